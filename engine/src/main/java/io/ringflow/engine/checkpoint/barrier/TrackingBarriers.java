package io.ringflow.engine.checkpoint.barrier;


/**
 * At-least-once: some barriers of the checkpoint have arrived; no channel is blocked, so records that follow a
 * barrier are processed before the snapshot (and again after a restore). When the last live channel delivers the
 * barrier (or ends): snapshot and forward.
 *
 * <p>Unlike Flink's {@code CheckpointBarrierTracker}, which tracks several checkpoints at once, a newer barrier
 * subsumes this checkpoint, as in every other state.
 */
final class TrackingBarriers extends CheckpointInProgress
{
    private TrackingBarriers(
        final BarrierHandlerOptions options,
        final Inputs inputs,
        final CheckpointBarrier barrier,
        final long delivered,
        final long firstBarrierNanos)
    {
        super(options, inputs, barrier, delivered, firstBarrierNanos);
    }

    /**
     * The first barrier of a checkpoint arrived.
     *
     * @param controller the task.
     * @param options    the task's options.
     * @param inputs     the inputs now.
     * @param channel    where the barrier arrived.
     * @param barrier    the barrier.
     * @param nowNanos   when it arrived.
     * @return the next state: tracking, or waiting again when this was the only live channel.
     */
    static BarrierHandlerState start(
        final BarrierController controller,
        final BarrierHandlerOptions options,
        final Inputs inputs,
        final int channel,
        final CheckpointBarrier barrier,
        final long nowNanos)
    {
        if ((inputs.live() & ~Inputs.bit(channel)) == 0)
        {
            return snapshotOnOnlyChannel(controller, options, inputs, barrier, nowNanos);
        }
        return new TrackingBarriers(options, inputs, barrier, 0, nowNanos)
            .onCurrentBarrier(controller, channel, nowNanos);
    }

    @Override
    BarrierHandlerState onCurrentBarrier(final BarrierController controller, final int channel, final long nowNanos)
    {
        final long nowDelivered = delivered | Inputs.bit(channel);
        if ((inputs.live() & ~nowDelivered) == 0)
        {
            return allDelivered(controller, inputs, nowNanos);
        }
        return new TrackingBarriers(options, inputs, barrier, nowDelivered, firstBarrierNanos);
    }

    @Override
    BarrierHandlerState onCurrentEndOfInput(
        final BarrierController controller, final int channel, final Inputs afterEnd, final long nowNanos)
    {
        if ((afterEnd.live() & ~delivered) == 0)
        {
            return allDelivered(controller, afterEnd, nowNanos);
        }
        return withInputs(afterEnd);
    }

    @Override
    BarrierHandlerState withInputs(final Inputs next)
    {
        return new TrackingBarriers(options, next, barrier, delivered, firstBarrierNanos);
    }

    @Override
    void releaseChannels(final BarrierController controller)
    {
        // nothing is blocked or recorded
    }

    private BarrierHandlerState allDelivered(
        final BarrierController controller, final Inputs finalInputs, final long nowNanos)
    {
        if (!snapshotAndForward(controller, barrier, false))
        {
            return declined(controller, options, finalInputs, checkpointId());
        }
        return completed(controller, finalInputs, false, nowNanos, nowNanos);
    }
}
