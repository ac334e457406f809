package io.ringflow.engine.checkpoint.barrier;

import io.ringflow.engine.channel.BarrierKind;

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
        return new CheckpointBarrier(checkpointId, checkpointId * 1000, BarrierKind.CHECKPOINT);
    }

    /**
     * @param checkpointId the savepoint.
     * @return a SAVEPOINT barrier stamped {@code checkpointId * 1000}.
     */
    static CheckpointBarrier savepoint(final long checkpointId)
    {
        return new CheckpointBarrier(checkpointId, checkpointId * 1000, BarrierKind.SAVEPOINT);
    }
}
