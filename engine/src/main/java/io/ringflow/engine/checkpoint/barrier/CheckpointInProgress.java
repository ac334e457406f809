package io.ringflow.engine.checkpoint.barrier;


/**
 * A checkpoint this task has started and not finished: the rules every such state shares.
 *
 * <ul>
 *   <li>A barrier of an older checkpoint is ignored: that checkpoint was subsumed or aborted here.</li>
 *   <li>A barrier of a newer checkpoint aborts this one ({@link AbortReason#SUBSUMED}) and starts the newer one, as
 *       if this task had been waiting for it: a task tracks only its newest checkpoint, as Flink's
 *       {@code SingleCheckpointBarrierHandler} does.</li>
 *   <li>A second barrier of this checkpoint on one channel, or one of another kind, is impossible.</li>
 *   <li>END_OF_INPUT on a channel that has not delivered this barrier counts as its barrier.</li>
 * </ul>
 *
 * A subclass says what a barrier of this checkpoint and an END_OF_INPUT do ({@link #onCurrentBarrier},
 * {@link #onCurrentEndOfInput}) and how to let go of its channels when aborted ({@link #releaseChannels}).
 *
 * <p>Invariant of every state an event returns: {@link #delivered} is not empty and holds only channels that
 * delivered this checkpoint's barrier, and {@link #missing()} is not empty, or the checkpoint would have finished.
 * (A subclass may build a state with nothing delivered only to apply the first barrier to it.)
 */
abstract sealed class CheckpointInProgress extends BarrierHandlerState
    permits AligningBarriers, TrackingBarriers, RecordingChannels
{
    /** The first barrier of the checkpoint to arrive here; later ones carry the same id and kind. */
    final CheckpointBarrier barrier;
    /** The channels that have delivered the barrier (some may have ended since). */
    final long delivered;
    /** When the first barrier arrived. */
    final long firstBarrierNanos;

    CheckpointInProgress(
        final BarrierHandlerOptions options,
        final Inputs inputs,
        final CheckpointBarrier barrier,
        final long delivered,
        final long firstBarrierNanos)
    {
        super(options, inputs);
        this.barrier = barrier;
        this.delivered = delivered;
        this.firstBarrierNanos = firstBarrierNanos;
    }

    /** @return the checkpoint in progress. */
    final long checkpointId()
    {
        return barrier.checkpointId();
    }

    /** @return the live channels that have not delivered the barrier yet. */
    final long missing()
    {
        return inputs.live() & ~delivered;
    }

    @Override
    final BarrierHandlerState onBarrier(
        final BarrierController controller, final int channel, final CheckpointBarrier next, final long nowNanos)
    {
        final long nextId = next.checkpointId();
        if (nextId < checkpointId())
        {
            return this;
        }
        if (nextId > checkpointId())
        {
            return abort(controller, AbortReason.SUBSUMED).barrierReceived(controller, channel, next, nowNanos);
        }
        if (next.kind() != barrier.kind())
        {
            throw new IllegalStateException(what(next) + " on channel " + channel + ", but the barriers of " +
                "checkpoint " + nextId + " that arrived before were " + barrier.kind());
        }
        if ((delivered & Inputs.bit(channel)) != 0)
        {
            throw new IllegalStateException(what(next) + " arrived twice on channel " + channel +
                ": barrier ids must increase along every channel");
        }
        return onCurrentBarrier(controller, channel, nowNanos);
    }

    @Override
    final BarrierHandlerState onEndOfInput(
        final BarrierController controller, final int channel, final Inputs afterEnd, final long nowNanos)
    {
        if ((delivered & Inputs.bit(channel)) != 0)
        {
            // Its barrier is already counted; nothing waits for it.
            return withInputs(afterEnd);
        }
        return onCurrentEndOfInput(controller, channel, afterEnd, nowNanos);
    }

    @Override
    final BarrierHandlerState checkpointAborted(final BarrierController controller, final long abortedId)
    {
        if (abortedId < checkpointId())
        {
            return this;
        }
        if (abortedId == checkpointId())
        {
            return abort(controller, AbortReason.ABORTED_BY_COORDINATOR);
        }
        return abort(controller, AbortReason.SUBSUMED).checkpointAborted(controller, abortedId);
    }

    @Override
    final BarrierHandlerState close(final BarrierController controller)
    {
        abort(controller, AbortReason.TASK_CLOSING);
        return new Closed(options, inputs, checkpointId());
    }

    @Override
    final long latestCheckpointId()
    {
        return checkpointId();
    }

    /**
     * This checkpoint's barrier arrived on {@code channel}, which had not delivered it.
     *
     * @param controller the task.
     * @param channel    a live channel, not blocked, not in {@link #delivered}.
     * @param nowNanos   when it arrived.
     * @return the next state.
     */
    abstract BarrierHandlerState onCurrentBarrier(BarrierController controller, int channel, long nowNanos);

    /**
     * END_OF_INPUT arrived on {@code channel}, which had not delivered this checkpoint's barrier: it counts as the
     * barrier.
     *
     * @param controller the task.
     * @param channel    the channel, not in {@link #delivered}.
     * @param afterEnd   the inputs with {@code channel} ended.
     * @param nowNanos   when it arrived.
     * @return the next state.
     */
    abstract BarrierHandlerState onCurrentEndOfInput(
        BarrierController controller, int channel, Inputs afterEnd, long nowNanos);

    /**
     * @param next the inputs after a channel that had delivered the barrier ended.
     * @return this state with those inputs.
     */
    abstract BarrierHandlerState withInputs(Inputs next);

    /**
     * Undo what this state holds in the task, before the checkpoint is aborted: unblock, or stop recording.
     *
     * @param controller the task.
     */
    abstract void releaseChannels(BarrierController controller);

    /**
     * Gives the checkpoint up: releases the channels, then tells the task.
     *
     * @param controller the task.
     * @param reason     why.
     * @return the state waiting for a newer checkpoint.
     */
    final BarrierHandlerState abort(final BarrierController controller, final AbortReason reason)
    {
        releaseChannels(controller);
        controller.abortCheckpoint(checkpointId(), reason);
        return WaitingForFirstBarrier.after(options, inputs, checkpointId(), false);
    }

    /**
     * Every channel has delivered the barrier or ended, after the snapshot was taken and forwarded.
     *
     * @param controller    the task.
     * @param finalInputs   the inputs now.
     * @param unaligned     whether the snapshot was unaligned.
     * @param snapshotNanos when the snapshot was taken.
     * @param nowNanos      when the last barrier arrived.
     * @return the state waiting for the next checkpoint.
     */
    final BarrierHandlerState completed(
        final BarrierController controller,
        final Inputs finalInputs,
        final boolean unaligned,
        final long snapshotNanos,
        final long nowNanos)
    {
        return completed(controller, options, finalInputs, checkpointId(), unaligned, firstBarrierNanos,
            snapshotNanos, nowNanos);
    }

    private static BarrierHandlerState completed(
        final BarrierController controller,
        final BarrierHandlerOptions options,
        final Inputs finalInputs,
        final long checkpointId,
        final boolean unaligned,
        final long firstBarrierNanos,
        final long snapshotNanos,
        final long nowNanos)
    {
        controller.allBarriersReceived(
            new CheckpointAlignment(checkpointId, unaligned, firstBarrierNanos, snapshotNanos, nowNanos));
        return WaitingForFirstBarrier.after(options, finalInputs, checkpointId, true);
    }

    /**
     * The first barrier of a checkpoint arrived on the only live channel, aligned or at-least-once: nothing is blocked
     * or tracked, so the snapshot is taken and forwarded at once, with no state in between (a task with one input,
     * at every checkpoint). What the state built for the barrier would have done on it, without building it.
     *
     * @param controller the task.
     * @param options    the task's options.
     * @param inputs     the inputs now: the barrier's channel is the only live one.
     * @param barrier    the barrier.
     * @param nowNanos   when it arrived.
     * @return the state waiting for the next checkpoint.
     */
    static BarrierHandlerState snapshotOnOnlyChannel(
        final BarrierController controller,
        final BarrierHandlerOptions options,
        final Inputs inputs,
        final CheckpointBarrier barrier,
        final long nowNanos)
    {
        if (!snapshotAndForward(controller, barrier, false))
        {
            return declined(controller, options, inputs, barrier.checkpointId());
        }
        return completed(controller, options, inputs, barrier.checkpointId(), false, nowNanos, nowNanos, nowNanos);
    }

    /**
     * Takes the snapshot and, if the task took it, forwards the barrier.
     *
     * @param controller the task.
     * @param barrier    the checkpoint.
     * @param unaligned  whether channel state will be recorded.
     * @return false if the task declined the checkpoint.
     */
    static boolean snapshotAndForward(
        final BarrierController controller, final CheckpointBarrier barrier, final boolean unaligned)
    {
        if (!controller.snapshotState(barrier, unaligned))
        {
            return false;
        }
        controller.forwardBarrier(barrier, unaligned);
        return true;
    }

    /**
     * The task declined the snapshot: tells it the checkpoint is aborted. Channels must already be released.
     *
     * @param controller   the task.
     * @param options      the task's options.
     * @param inputs       the inputs now.
     * @param checkpointId the declined checkpoint.
     * @return the state waiting for a newer checkpoint.
     */
    static BarrierHandlerState declined(
        final BarrierController controller,
        final BarrierHandlerOptions options,
        final Inputs inputs,
        final long checkpointId)
    {
        controller.abortCheckpoint(checkpointId, AbortReason.DECLINED);
        return WaitingForFirstBarrier.after(options, inputs, checkpointId, false);
    }

    @Override
    public String toString()
    {
        return getClass().getSimpleName() + "{checkpoint " + checkpointId() + ' ' + barrier.kind() +
            ", delivered " + Inputs.describe(delivered) + ", missing " + Inputs.describe(missing()) +
            ", ended " + Inputs.describe(inputs.ended()) + '}';
    }
}
