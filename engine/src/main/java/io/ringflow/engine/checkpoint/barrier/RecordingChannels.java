package io.ringflow.engine.checkpoint.barrier;


/**
 * Exactly-once, unaligned: the snapshot is taken and the barrier forwarded; the live channels that have not
 * delivered the barrier yet are recorded. Every record the task reads from such a channel before its barrier was in
 * flight across the cut (Chandy-Lamport's channel state): the task processes it and stores it with the checkpoint.
 * Nothing is blocked.
 *
 * <p>Entered on the first barrier of a checkpoint when unaligned checkpoints are enabled without a timeout
 * ({@link #start}), or when an alignment times out ({@link AligningBarriers}, through {@link #begin}).
 *
 * <ul>
 *   <li>The barrier or END_OF_INPUT of a recorded channel: stop recording it; when none is left, the checkpoint's
 *       channel state is complete.</li>
 *   <li>Aborted: stop recording every channel, then abort.</li>
 * </ul>
 *
 * <p>Invariant: the recorded channels are exactly {@link #missing()}.
 */
final class RecordingChannels extends CheckpointInProgress
{
    private final long snapshotNanos;

    private RecordingChannels(
        final BarrierHandlerOptions options,
        final Inputs inputs,
        final CheckpointBarrier barrier,
        final long delivered,
        final long firstBarrierNanos,
        final long snapshotNanos)
    {
        super(options, inputs, barrier, delivered, firstBarrierNanos);
        this.snapshotNanos = snapshotNanos;
    }

    /**
     * The first barrier of an unaligned checkpoint arrived: snapshot and forward at once, then record the others.
     *
     * @param controller the task.
     * @param options    the task's options.
     * @param inputs     the inputs now.
     * @param channel    where the barrier arrived.
     * @param barrier    the barrier.
     * @param nowNanos   when it arrived.
     * @return the next state: recording, or waiting again when this was the only live channel or it was declined.
     */
    static BarrierHandlerState start(
        final BarrierController controller,
        final BarrierHandlerOptions options,
        final Inputs inputs,
        final int channel,
        final CheckpointBarrier barrier,
        final long nowNanos)
    {
        if (!snapshotAndForward(controller, barrier, true))
        {
            return declined(controller, options, inputs, barrier.checkpointId());
        }
        return begin(controller, options, inputs, barrier, Inputs.bit(channel), nowNanos, nowNanos);
    }

    /**
     * The unaligned snapshot was taken and forwarded: starts recording every live channel that has not delivered
     * the barrier.
     *
     * @param controller        the task.
     * @param options           the task's options.
     * @param inputs            the inputs now.
     * @param barrier           the checkpoint.
     * @param delivered         the channels that delivered its barrier before the snapshot.
     * @param firstBarrierNanos when its first barrier arrived.
     * @param snapshotNanos     when the snapshot was taken.
     * @return the next state: recording, or waiting again when nothing is left to record.
     */
    static BarrierHandlerState begin(
        final BarrierController controller,
        final BarrierHandlerOptions options,
        final Inputs inputs,
        final CheckpointBarrier barrier,
        final long delivered,
        final long firstBarrierNanos,
        final long snapshotNanos)
    {
        final RecordingChannels state =
            new RecordingChannels(options, inputs, barrier, delivered, firstBarrierNanos, snapshotNanos);
        final long missing = state.missing();
        for (long rest = missing; rest != 0; rest &= rest - 1)
        {
            controller.startRecordingChannel(Long.numberOfTrailingZeros(rest), barrier.checkpointId());
        }
        if (missing == 0)
        {
            return state.completed(controller, inputs, true, snapshotNanos, snapshotNanos);
        }
        return state;
    }

    @Override
    BarrierHandlerState onCurrentBarrier(final BarrierController controller, final int channel, final long nowNanos)
    {
        controller.stopRecordingChannel(channel, checkpointId());
        final long nowDelivered = delivered | Inputs.bit(channel);
        if ((inputs.live() & ~nowDelivered) == 0)
        {
            return completed(controller, inputs, true, snapshotNanos, nowNanos);
        }
        return new RecordingChannels(options, inputs, barrier, nowDelivered, firstBarrierNanos, snapshotNanos);
    }

    @Override
    BarrierHandlerState onCurrentEndOfInput(
        final BarrierController controller, final int channel, final Inputs afterEnd, final long nowNanos)
    {
        // Everything the channel held before its end has been recorded: its channel state is complete.
        controller.stopRecordingChannel(channel, checkpointId());
        if ((afterEnd.live() & ~delivered) == 0)
        {
            return completed(controller, afterEnd, true, snapshotNanos, nowNanos);
        }
        return withInputs(afterEnd);
    }

    @Override
    BarrierHandlerState withInputs(final Inputs next)
    {
        return new RecordingChannels(options, next, barrier, delivered, firstBarrierNanos, snapshotNanos);
    }

    @Override
    void releaseChannels(final BarrierController controller)
    {
        for (long rest = missing(); rest != 0; rest &= rest - 1)
        {
            controller.stopRecordingChannel(Long.numberOfTrailingZeros(rest), checkpointId());
        }
    }

    @Override
    long recordingChannels()
    {
        return missing();
    }
}
