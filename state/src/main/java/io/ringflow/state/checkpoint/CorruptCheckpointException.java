package io.ringflow.state.checkpoint;

/**
 * A checkpoint file is missing, torn or corrupt; it is never restored from. Names the file and what is wrong.
 */
public final class CorruptCheckpointException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param file    the file.
     * @param problem what is wrong with it.
     */
    public CorruptCheckpointException(final String file, final String problem)
    {
        super("checkpoint file " + file + " cannot be used: " + problem);
    }
}
