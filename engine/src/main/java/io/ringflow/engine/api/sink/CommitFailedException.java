package io.ringflow.engine.api.sink;

/**
 * A committable could not be committed after every retry. The job attempt fails; the restarted job commits it again
 * from the restored checkpoint, so no output is dropped.
 */
public final class CommitFailedException extends Exception
{
    private static final long serialVersionUID = 1L;

    private final long checkpointId;

    /**
     * @param checkpointId the checkpoint whose committable failed.
     * @param message      what failed, naming the transaction.
     * @param cause        the last try's failure.
     */
    public CommitFailedException(final long checkpointId, final String message, final Throwable cause)
    {
        super(message, cause);
        this.checkpointId = checkpointId;
    }

    /** @return the checkpoint whose committable failed. */
    public long checkpointId()
    {
        return checkpointId;
    }
}
