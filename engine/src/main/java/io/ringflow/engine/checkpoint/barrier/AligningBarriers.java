package io.ringflow.engine.checkpoint.barrier;


/**
 * Exactly-once, aligned: some barriers of the checkpoint have arrived, and the channels that delivered them are
 * blocked. The task does not read a blocked channel, so its records stay in its ring; nothing is copied.
 *
 * <ul>
 *   <li>The barrier of the last live channel (or its END_OF_INPUT): snapshot, forward, unblock every channel.</li>
 *   <li>Any other barrier: block its channel.</li>
 *   <li>With a timeout (unaligned checkpoints enabled, not a savepoint; Flink's "alternating" aligned phase): when
 *       {@link #checkTimeout} sees the alignment has lasted longer than the timeout since the first barrier, this
 *       checkpoint switches to unaligned: snapshot, forward, unblock, and record the channels still missing their
 *       barrier ({@link RecordingChannels}).</li>
 * </ul>
 *
 * <p>Invariant: the blocked channels are exactly {@link #delivered}; none of them can end, since none is read.
 */
final class AligningBarriers extends CheckpointInProgress
{
    /** The timeout of an alignment that never switches to unaligned. */
    static final long NO_TIMEOUT = Long.MAX_VALUE;

    private final long timeoutNanos;

    private AligningBarriers(
        final BarrierHandlerOptions options,
        final Inputs inputs,
        final CheckpointBarrier barrier,
        final long delivered,
        final long firstBarrierNanos,
        final long timeoutNanos)
    {
        super(options, inputs, barrier, delivered, firstBarrierNanos);
        this.timeoutNanos = timeoutNanos;
    }

    /**
     * The first barrier of a checkpoint arrived.
     *
     * @param controller   the task.
     * @param options      the task's options.
     * @param inputs       the inputs now.
     * @param channel      where the barrier arrived.
     * @param barrier      the barrier.
     * @param nowNanos     when it arrived.
     * @param timeoutNanos how long to align before switching to unaligned, or {@link #NO_TIMEOUT}.
     * @return the next state: aligning, or waiting again when this was the only live channel.
     */
    static BarrierHandlerState start(
        final BarrierController controller,
        final BarrierHandlerOptions options,
        final Inputs inputs,
        final int channel,
        final CheckpointBarrier barrier,
        final long nowNanos,
        final long timeoutNanos)
    {
        if ((inputs.live() & ~Inputs.bit(channel)) == 0)
        {
            return snapshotOnOnlyChannel(controller, options, inputs, barrier, nowNanos);
        }
        return new AligningBarriers(options, inputs, barrier, 0, nowNanos, timeoutNanos)
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
        controller.blockChannel(channel);
        return new AligningBarriers(options, inputs, barrier, nowDelivered, firstBarrierNanos, timeoutNanos);
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
    BarrierHandlerState checkTimeout(final BarrierController controller, final long nowNanos)
    {
        if (nowNanos - firstBarrierNanos <= timeoutNanos)
        {
            return this;
        }
        // Aligned for too long: this checkpoint becomes unaligned. The blocked channels' barriers are in, so what
        // they hold is after the cut; the channels still missing their barrier are recorded from now on.
        final boolean taken = snapshotAndForward(controller, barrier, true);
        controller.unblockAllChannels();
        if (!taken)
        {
            return declined(controller, options, inputs, checkpointId());
        }
        return RecordingChannels.begin(controller, options, inputs, barrier, delivered, firstBarrierNanos, nowNanos);
    }

    @Override
    BarrierHandlerState withInputs(final Inputs next)
    {
        return new AligningBarriers(options, next, barrier, delivered, firstBarrierNanos, timeoutNanos);
    }

    @Override
    void releaseChannels(final BarrierController controller)
    {
        if (delivered != 0)
        {
            controller.unblockAllChannels();
        }
    }

    @Override
    long blockedChannels()
    {
        return delivered;
    }

    @Override
    boolean isTimeoutArmed()
    {
        return timeoutNanos != NO_TIMEOUT;
    }

    private BarrierHandlerState allDelivered(
        final BarrierController controller, final Inputs finalInputs, final long nowNanos)
    {
        final boolean taken = snapshotAndForward(controller, barrier, false);
        releaseChannels(controller);
        if (!taken)
        {
            return declined(controller, options, finalInputs, checkpointId());
        }
        return completed(controller, finalInputs, false, nowNanos, nowNanos);
    }
}
