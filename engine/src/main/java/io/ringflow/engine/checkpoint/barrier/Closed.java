package io.ringflow.engine.checkpoint.barrier;


/**
 * The task closed the handler; a checkpoint that was in progress has been aborted with
 * {@link AbortReason#TASK_CLOSING}. Barriers and END_OF_INPUT are impossible now; coordinator notifications and
 * further closes are ignored.
 */
final class Closed extends BarrierHandlerState
{
    private final long latestCheckpointId;

    Closed(final BarrierHandlerOptions options, final Inputs inputs, final long latestCheckpointId)
    {
        super(options, inputs);
        this.latestCheckpointId = latestCheckpointId;
    }

    @Override
    BarrierHandlerState onBarrier(
        final BarrierController controller, final int channel, final CheckpointBarrier barrier, final long nowNanos)
    {
        throw new IllegalStateException(what(barrier) + " on channel " + channel + " after the handler was closed");
    }

    @Override
    BarrierHandlerState onEndOfInput(
        final BarrierController controller, final int channel, final Inputs afterEnd, final long nowNanos)
    {
        throw new IllegalStateException("END_OF_INPUT on channel " + channel + " after the handler was closed");
    }

    @Override
    BarrierHandlerState checkpointAborted(final BarrierController controller, final long checkpointId)
    {
        return this;
    }

    @Override
    BarrierHandlerState close(final BarrierController controller)
    {
        return this;
    }

    @Override
    long latestCheckpointId()
    {
        return latestCheckpointId;
    }

    @Override
    public String toString()
    {
        return "Closed{latest " + latestCheckpointId + '}';
    }
}
