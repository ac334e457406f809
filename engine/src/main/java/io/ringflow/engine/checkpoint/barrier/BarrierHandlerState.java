package io.ringflow.engine.checkpoint.barrier;

import io.ringflow.engine.channel.BarrierKind;

/**
 * One state of a task's barrier protocol. Each event returns the next state (or {@code this}); a state never
 * changes after construction and owns everything it knows, so the handler's current state is the whole truth about
 * the protocol. A state reaches back to its task only through the {@link BarrierController} passed to each event.
 *
 * <p>Thread contract: task thread only, through {@link BarrierHandler}.
 *
 * <p>The events common to every state are checked here: a barrier or END_OF_INPUT on a channel that has ended, or a
 * barrier slot or END_OF_INPUT read from a channel that is blocked (the task must not read it), is impossible and
 * throws {@link IllegalStateException}. A barrier announced on a blocked channel is legal (announcements are not
 * reads).
 */
abstract sealed class BarrierHandlerState
    permits WaitingForFirstBarrier, CheckpointInProgress, AllChannelsEnded, Closed
{
    final BarrierHandlerOptions options;
    final Inputs inputs;

    BarrierHandlerState(final BarrierHandlerOptions options, final Inputs inputs)
    {
        this.options = options;
        this.inputs = inputs;
    }

    /**
     * A barrier was read from {@code channel}.
     *
     * @param controller the task.
     * @param channel    the channel, in range.
     * @param barrier    the barrier.
     * @param nowNanos   when it arrived.
     * @return the next state.
     */
    final BarrierHandlerState barrierReceived(
        final BarrierController controller, final int channel, final CheckpointBarrier barrier, final long nowNanos)
    {
        checkReadable(channel, barrier);
        return onBarrier(controller, channel, barrier, nowNanos);
    }

    /**
     * A barrier was announced on {@code channel} ahead of its slot. It is handled as a read barrier, except that the
     * channel may be blocked: announcements are not reads. On a blocked channel only a newer checkpoint's barrier can
     * be announced (the channel delivered the current one, and ids rise along a channel); it supersedes the current
     * checkpoint, which unblocks the channel.
     *
     * @param controller the task.
     * @param channel    the channel, in range.
     * @param barrier    the barrier.
     * @param nowNanos   when it was seen.
     * @return the next state.
     */
    final BarrierHandlerState barrierAnnounced(
        final BarrierController controller, final int channel, final CheckpointBarrier barrier, final long nowNanos)
    {
        checkNotEnded(channel, barrier);
        if (barrier.kind() != BarrierKind.CHECKPOINT)
        {
            throw new IllegalStateException(what(barrier) + " announced on channel " + channel + ": only " +
                "checkpoints are announced, a savepoint is always aligned");
        }
        if (!options.unaligned() || options.hasAlignedTimeout())
        {
            throw new IllegalStateException(what(barrier) + " announced on channel " + channel + ": announcements " +
                "are followed only with unaligned checkpoints without an aligned timeout (" + options + ")");
        }
        if ((blockedChannels() & Inputs.bit(channel)) != 0 && barrier.checkpointId() <= latestCheckpointId())
        {
            throw new IllegalStateException(what(barrier) + " announced on channel " + channel + ", which is " +
                "blocked having delivered checkpoint " + latestCheckpointId() + ": barrier ids must increase along " +
                "every channel (" + this + ")");
        }
        // a newer barrier aborts the current checkpoint first, which unblocks every channel, then starts as if read
        return onBarrier(controller, channel, barrier, nowNanos);
    }

    /**
     * END_OF_INPUT was read from {@code channel}: it counts as the channel's barrier for this and every later
     * checkpoint.
     *
     * @param controller the task.
     * @param channel    the channel, in range.
     * @param nowNanos   when it arrived.
     * @return the next state.
     */
    final BarrierHandlerState endOfInput(final BarrierController controller, final int channel, final long nowNanos)
    {
        checkReadable(channel, null);
        return onEndOfInput(controller, channel, inputs.withEnded(channel), nowNanos);
    }

    /** {@link #barrierReceived}, on a channel that is neither ended nor blocked. */
    abstract BarrierHandlerState onBarrier(
        BarrierController controller, int channel, CheckpointBarrier barrier, long nowNanos);

    /**
     * {@link #endOfInput}, on a channel that was neither ended nor blocked.
     *
     * @param afterEnd the inputs with {@code channel} ended.
     */
    abstract BarrierHandlerState onEndOfInput(
        BarrierController controller, int channel, Inputs afterEnd, long nowNanos);

    /**
     * The task's clock read {@code nowNanos}. Only an alignment with a timeout reacts.
     *
     * @param controller the task.
     * @param nowNanos   a reading of the handler's clock.
     * @return the next state.
     */
    BarrierHandlerState checkTimeout(final BarrierController controller, final long nowNanos)
    {
        return this;
    }

    /**
     * The coordinator aborted checkpoint {@code checkpointId}; its barriers that have not arrived yet will be
     * ignored, as will those of any older checkpoint.
     *
     * @param controller   the task.
     * @param checkpointId the aborted checkpoint.
     * @return the next state.
     */
    abstract BarrierHandlerState checkpointAborted(BarrierController controller, long checkpointId);

    /**
     * The task is closing: abort the checkpoint in progress, if any.
     *
     * @param controller the task.
     * @return the final state.
     */
    abstract BarrierHandlerState close(BarrierController controller);

    /** @return the newest checkpoint this task has started or heard aborted; 0 before any. */
    abstract long latestCheckpointId();

    /** @return the channels the task must not read. */
    long blockedChannels()
    {
        return 0;
    }

    /** @return the channels whose records the task must record as channel state. */
    long recordingChannels()
    {
        return 0;
    }

    /** @return whether {@link #checkTimeout} can change anything. */
    boolean isTimeoutArmed()
    {
        return false;
    }

    private void checkReadable(final int channel, final CheckpointBarrier barrier)
    {
        checkNotEnded(channel, barrier);
        if ((blockedChannels() & Inputs.bit(channel)) != 0)
        {
            throw new IllegalStateException(what(barrier) + " on channel " + channel + ", which is blocked for " +
                "alignment: the task must not read a blocked channel (" + this + ")");
        }
    }

    private void checkNotEnded(final int channel, final CheckpointBarrier barrier)
    {
        if (inputs.isEnded(channel))
        {
            throw new IllegalStateException(what(barrier) + " on channel " + channel +
                " after its END_OF_INPUT: nothing follows END_OF_INPUT on a channel");
        }
    }

    /**
     * @param barrier a barrier, or null for END_OF_INPUT.
     * @return the event, for messages.
     */
    static String what(final CheckpointBarrier barrier)
    {
        return barrier == null ? "END_OF_INPUT" : barrier.kind() + " barrier " + barrier.checkpointId();
    }
}
