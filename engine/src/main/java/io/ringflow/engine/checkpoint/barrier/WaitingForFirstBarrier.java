package io.ringflow.engine.checkpoint.barrier;

import io.ringflow.engine.api.CheckpointingMode;
import io.ringflow.engine.channel.BarrierKind;

/**
 * No checkpoint is in progress; the next barrier newer than {@link #latestCheckpointId()} starts one. Which state it
 * starts is decided here, per checkpoint: aligned for a savepoint in every mode; else at-least-once tracking, aligned,
 * aligned with a timeout, or unaligned.
 *
 * <p>A barrier not newer than the latest checkpoint belongs to a checkpoint this task has aborted (subsumed, declined
 * or aborted by the coordinator) and is ignored. After a checkpoint completed here, every live channel has delivered
 * its barrier, so such a barrier is impossible and throws {@link IllegalStateException}.
 */
final class WaitingForFirstBarrier extends BarrierHandlerState
{
    private final long latestCheckpointId;
    private final boolean latestCompleted;

    private WaitingForFirstBarrier(
        final BarrierHandlerOptions options,
        final Inputs inputs,
        final long latestCheckpointId,
        final boolean latestCompleted)
    {
        super(options, inputs);
        this.latestCheckpointId = latestCheckpointId;
        this.latestCompleted = latestCompleted;
    }

    /**
     * @param options      the task's options.
     * @param channelCount how many input channels, 1 to 64.
     * @return the state of a new handler.
     */
    static BarrierHandlerState initial(final BarrierHandlerOptions options, final int channelCount)
    {
        return new WaitingForFirstBarrier(options, new Inputs(channelCount, 0), 0, false);
    }

    /**
     * @param options            the task's options.
     * @param inputs             the inputs now.
     * @param latestCheckpointId the checkpoint just completed or aborted.
     * @param latestCompleted    whether it completed.
     * @return the state after a checkpoint: waiting for the next one, or {@link AllChannelsEnded}.
     */
    static BarrierHandlerState after(
        final BarrierHandlerOptions options,
        final Inputs inputs,
        final long latestCheckpointId,
        final boolean latestCompleted)
    {
        if (inputs.allEnded())
        {
            return new AllChannelsEnded(options, inputs, latestCheckpointId);
        }
        return new WaitingForFirstBarrier(options, inputs, latestCheckpointId, latestCompleted);
    }

    @Override
    BarrierHandlerState onBarrier(
        final BarrierController controller, final int channel, final CheckpointBarrier barrier, final long nowNanos)
    {
        final long checkpointId = barrier.checkpointId();
        if (checkpointId <= latestCheckpointId)
        {
            if (latestCompleted)
            {
                throw new IllegalStateException(what(barrier) + " on channel " + channel + " after checkpoint " +
                    latestCheckpointId + " completed in this task: barrier ids must increase along every channel");
            }
            return this;
        }
        if (barrier.kind() == BarrierKind.SAVEPOINT)
        {
            // a savepoint is aligned in every mode, at-least-once included: it holds no in-flight records and no
            // record after its cut, so restoring it is exact, into a changed job or at another parallelism
            return AligningBarriers.start(
                controller, options, inputs, channel, barrier, nowNanos, AligningBarriers.NO_TIMEOUT);
        }
        if (options.mode() == CheckpointingMode.AT_LEAST_ONCE)
        {
            return TrackingBarriers.start(controller, options, inputs, channel, barrier, nowNanos);
        }
        if (!options.unaligned())
        {
            return AligningBarriers.start(
                controller, options, inputs, channel, barrier, nowNanos, AligningBarriers.NO_TIMEOUT);
        }
        if (options.hasAlignedTimeout())
        {
            return AligningBarriers.start(
                controller, options, inputs, channel, barrier, nowNanos, options.alignedTimeoutNanos());
        }
        return RecordingChannels.start(controller, options, inputs, channel, barrier, nowNanos);
    }

    @Override
    BarrierHandlerState onEndOfInput(
        final BarrierController controller, final int channel, final Inputs afterEnd, final long nowNanos)
    {
        return after(options, afterEnd, latestCheckpointId, latestCompleted);
    }

    @Override
    BarrierHandlerState checkpointAborted(final BarrierController controller, final long checkpointId)
    {
        if (checkpointId <= latestCheckpointId)
        {
            return this;
        }
        return new WaitingForFirstBarrier(options, inputs, checkpointId, false);
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
        final String latest = latestCheckpointId == 0 ? "none" :
            latestCheckpointId + (latestCompleted ? " (completed)" : " (aborted)");
        return "WaitingForFirstBarrier{latest " + latest + ", ended " + Inputs.describe(inputs.ended()) + '}';
    }
}
