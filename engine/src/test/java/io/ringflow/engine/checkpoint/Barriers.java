package io.ringflow.engine.checkpoint;

/**
 * Barrier fixtures.
 */
final class Barriers
{
    private Barriers()
    {
    }

    /**
     * @param checkpointId the checkpoint.
     * @return a CHECKPOINT barrier stamped {@code checkpointId * 1000}.
     */
    static CheckpointBarrier checkpoint(final long checkpointId)
    {
        return new CheckpointBarrier(checkpointId, checkpointId * 1000, CheckpointBarrier.Kind.CHECKPOINT);
    }

    /**
     * @param checkpointId the savepoint.
     * @return a SAVEPOINT barrier stamped {@code checkpointId * 1000}.
     */
    static CheckpointBarrier savepoint(final long checkpointId)
    {
        return new CheckpointBarrier(checkpointId, checkpointId * 1000, CheckpointBarrier.Kind.SAVEPOINT);
    }
}
