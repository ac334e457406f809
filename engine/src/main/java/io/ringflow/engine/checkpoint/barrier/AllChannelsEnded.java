package io.ringflow.engine.checkpoint.barrier;


/**
 * Every channel has delivered END_OF_INPUT: no barrier can arrive any more. Any checkpoint in progress completed on
 * the last END_OF_INPUT (it counts as the channel's barrier), so none is pending. Final until {@link #close}.
 */
final class AllChannelsEnded extends BarrierHandlerState
{
    private final long latestCheckpointId;

    AllChannelsEnded(final BarrierHandlerOptions options, final Inputs inputs, final long latestCheckpointId)
    {
        super(options, inputs);
        this.latestCheckpointId = latestCheckpointId;
    }

    @Override
    BarrierHandlerState onBarrier(
        final BarrierController controller, final int channel, final CheckpointBarrier barrier, final long nowNanos)
    {
        // Unreachable: every channel has ended, so the common check throws first.
        throw new IllegalStateException(what(barrier) + " on channel " + channel + " after every channel ended");
    }

    @Override
    BarrierHandlerState onEndOfInput(
        final BarrierController controller, final int channel, final Inputs afterEnd, final long nowNanos)
    {
        // Unreachable: every channel has ended, so the common check throws first.
        throw new IllegalStateException("END_OF_INPUT on channel " + channel + " after every channel ended");
    }

    @Override
    BarrierHandlerState checkpointAborted(final BarrierController controller, final long checkpointId)
    {
        return this;
    }

    @Override
    BarrierHandlerState close(final BarrierController controller)
    {
        return new Closed(options, inputs, latestCheckpointId);
    }

    @Override
    long latestCheckpointId()
    {
        return latestCheckpointId;
    }

    @Override
    public String toString()
    {
        return "AllChannelsEnded{latest " + latestCheckpointId + '}';
    }
}
