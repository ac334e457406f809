package io.ringflow.engine.checkpoint.barrier;

import java.util.Objects;

/**
 * Barrier handling for one task with 1 to {@value #MAX_CHANNELS} input channels: decides, per checkpoint, which
 * channels the task stops reading, when it snapshots and forwards the barrier, and which channels' records are
 * recorded as channel state. It holds the current protocol state (one small immutable class per situation, see the
 * package documentation) and replaces it with whatever each event returns.
 *
 * <p><b>Thread contract.</b> Not thread-safe: one task thread creates it and makes every call. The
 * {@link BarrierController} is called back on that thread, from inside the event methods ({@link #barrierReceived},
 * {@link #barrierAnnounced}, {@link #endOfInput}, {@link #checkTimeout}, {@link #checkpointAborted}, {@link #close});
 * a callback must not call an event method ({@link IllegalStateException}).
 *
 * <p><b>Driving it.</b>
 * <ul>
 *   <li>Every work cycle: {@link #checkTimeout()} (a field test unless an alignment with a timeout is in progress,
 *       so the clock is read only then); then poll only channels that have not ended and are not
 *       {@link #isBlocked(int) blocked}; when idling, count only those as possible input, or a blocked channel with
 *       data would keep the task from ever parking. An idle task notices an expired timeout only when it wakes, so
 *       its longest park bounds how late the switch can be.</li>
 *   <li>Before each poll of a channel: {@link #isRecording(int)}. The answer holds for the whole poll, because the
 *       poll ends at every barrier and END_OF_INPUT and only events change it. While it is true, each record read is
 *       processed and also stored as channel state of the checkpoint named by
 *       {@link BarrierController#startRecordingChannel}.</li>
 *   <li>A BARRIER slot: {@link #barrierReceived}, then end the poll. END_OF_INPUT: {@link #endOfInput}, then end the
 *       poll. A barrier announced ahead of its slot (unaligned): {@link #barrierAnnounced}, whether or not the
 *       channel is blocked.</li>
 *   <li>The coordinator's abort notification for checkpoint n: {@link #checkpointAborted(long)}.</li>
 *   <li>When the task stops, whatever the reason: {@link #close()}.</li>
 * </ul>
 *
 * <p><b>Cost.</b> The queries read one field and allocate nothing. Events allocate a few small objects, per barrier at
 * most; records never reach the handler.
 *
 * <p><b>Errors.</b> An impossible event (a barrier or END_OF_INPUT on a channel that has ended, a barrier slot or
 * END_OF_INPUT read from a blocked channel, the same barrier twice on one channel, a barrier after the handler was
 * closed) throws {@link IllegalStateException} with the reason: it means a bug in the task, never a legal
 * interleaving. After any exception out of an event, including one thrown by the controller, the handler refuses
 * further events and {@link #close()} does nothing: the task is expected to fail.
 */
public final class BarrierHandler
{
    /** The most input channels one handler supports. */
    public static final int MAX_CHANNELS = Inputs.MAX_CHANNELS;

    private final int channelCount;
    private final BarrierController controller;
    private final NanoClock clock;
    private BarrierHandlerState state;
    // Copies of the current state's answers, so the per-poll queries are one field read each.
    private long blockedChannels;
    private long recordingChannels;
    private boolean timeoutArmed;
    private boolean inEvent;
    private Throwable failure;

    /**
     * @param channelCount how many input channels the task has, 1 to {@value #MAX_CHANNELS}; channels are numbered
     *                     from 0.
     * @param options      how to handle barriers.
     * @param controller   the task.
     * @param clock        the clock that stamps barrier arrivals; {@link #checkTimeout} must be given its readings.
     * @throws IllegalArgumentException if {@code channelCount} is out of range.
     */
    public BarrierHandler(
        final int channelCount,
        final BarrierHandlerOptions options,
        final BarrierController controller,
        final NanoClock clock)
    {
        if (channelCount < 1 || channelCount > MAX_CHANNELS)
        {
            throw new IllegalArgumentException(
                "channelCount must be between 1 and " + MAX_CHANNELS + ", got " + channelCount);
        }
        Objects.requireNonNull(options, "options");
        this.channelCount = channelCount;
        this.controller = Objects.requireNonNull(controller, "controller");
        this.clock = Objects.requireNonNull(clock, "clock");
        transition(WaitingForFirstBarrier.initial(options, channelCount));
    }

    /**
     * A BARRIER slot was read from {@code channel}.
     *
     * @param channel the channel, 0-based.
     * @param barrier the barrier it carried.
     * @throws IllegalStateException if the channel has ended or is blocked, if the channel delivered this barrier
     *                               before, or after {@link #close()}.
     */
    public void barrierReceived(final int channel, final CheckpointBarrier barrier)
    {
        Objects.checkIndex(channel, channelCount);
        Objects.requireNonNull(barrier, "barrier");
        // no closure: this event comes with every checkpoint, on the task thread
        dispatch(Event.BARRIER_RECEIVED, channel, barrier, clock.nanoTime());
    }

    /**
     * A barrier was announced ahead of the data on {@code channel} (unaligned checkpoints): it overtakes the records
     * queued in front of its slot, whose slot the task skips when it reaches it. Unlike a read barrier, an announced
     * one may arrive on a blocked channel, because announcements are read out of band: a newer checkpoint announced
     * on a channel blocked for an older aligned one (a savepoint's) supersedes it there as a read barrier would. The
     * coordinator triggers no checkpoint while a savepoint is pending, so that happens only once the savepoint was
     * aborted and its abort has not reached this task yet.
     *
     * @param channel the channel, 0-based.
     * @param barrier the announced barrier.
     * @throws IllegalStateException if the channel has ended, if the barrier is a savepoint's or the handler does not
     *                               follow announcements (not pure unaligned), if the channel delivered this barrier
     *                               or a newer one before, or after {@link #close()}.
     */
    public void barrierAnnounced(final int channel, final CheckpointBarrier barrier)
    {
        Objects.checkIndex(channel, channelCount);
        Objects.requireNonNull(barrier, "barrier");
        dispatch(Event.BARRIER_ANNOUNCED, channel, barrier, clock.nanoTime());
    }

    /**
     * END_OF_INPUT was read from {@code channel}. It counts as the channel's barrier for the checkpoint in progress
     * and every later one; a checkpoint may complete on it.
     *
     * @param channel the channel, 0-based.
     * @throws IllegalStateException if the channel has ended or is blocked, or after {@link #close()}.
     */
    public void endOfInput(final int channel)
    {
        Objects.checkIndex(channel, channelCount);
        dispatch(Event.END_OF_INPUT, channel, null, clock.nanoTime());
    }

    /**
     * {@link #checkTimeout(long)} with a reading of the handler's clock, taken only while an alignment with a timeout
     * is in progress: the call to make once per work cycle.
     *
     * @return true if the alignment timed out on this call.
     */
    public boolean checkTimeout()
    {
        return timeoutArmed && checkTimeout(clock.nanoTime());
    }

    /**
     * Lets an alignment with a timeout switch to unaligned once it has lasted longer than the timeout. Cheap when
     * no such alignment is in progress.
     *
     * @param nowNanos a reading of the clock given to the constructor.
     * @return true if the alignment timed out on this call (the checkpoint switched to unaligned, or the task
     *         declined its snapshot).
     */
    public boolean checkTimeout(final long nowNanos)
    {
        if (!timeoutArmed)
        {
            return false;
        }
        // called every work cycle while armed: an event code, no closure
        return dispatch(Event.CHECK_TIMEOUT, -1, null, nowNanos);
    }

    /**
     * The coordinator aborted checkpoint {@code checkpointId}. If it is in progress here, it is aborted
     * ({@link AbortReason#ABORTED_BY_COORDINATOR}); an older one in progress is aborted as
     * {@link AbortReason#SUBSUMED}. Barriers of it, or of any older checkpoint, that arrive later are ignored.
     *
     * @param checkpointId the aborted checkpoint.
     */
    public void checkpointAborted(final long checkpointId)
    {
        dispatch(Event.CHECKPOINT_ABORTED, -1, null, checkpointId);
    }

    /**
     * The task is stopping: aborts the checkpoint in progress, if any ({@link AbortReason#TASK_CLOSING}), and
     * refuses barriers from now on. Idempotent; does nothing once an event has failed.
     */
    public void close()
    {
        if (failure != null)
        {
            return;
        }
        dispatch(Event.CLOSE, -1, null, 0);
    }

    /**
     * Whether the task must not read {@code channel} now: its barrier of the checkpoint being aligned has arrived.
     * Its records stay in the ring.
     *
     * @param channel a channel, 0 to {@code channelCount - 1} (not checked).
     * @return true while the channel is blocked.
     */
    public boolean isBlocked(final int channel)
    {
        return (blockedChannels & (1L << channel)) != 0;
    }

    /**
     * Whether the records the task reads from {@code channel} now are channel state of an unaligned checkpoint.
     *
     * @param channel a channel, 0 to {@code channelCount - 1} (not checked).
     * @return true while the channel is recorded.
     */
    public boolean isRecording(final int channel)
    {
        return (recordingChannels & (1L << channel)) != 0;
    }

    /** @return the blocked channels as a bitmap (bit {@code c} for channel {@code c}). */
    public long blockedChannels()
    {
        return blockedChannels;
    }

    /** @return the recorded channels as a bitmap (bit {@code c} for channel {@code c}). */
    public long recordingChannels()
    {
        return recordingChannels;
    }

    /**
     * @return the newest checkpoint this task has started, or heard the coordinator abort; 0 before any. Barriers
     *         of it or older checkpoints no longer start anything.
     */
    public long latestCheckpointId()
    {
        return state.latestCheckpointId();
    }

    /** @return how many input channels the handler was built for. */
    public int channelCount()
    {
        return channelCount;
    }

    /** The protocol's events; {@link #dispatch} runs one by its constant, so no closure is built per event. */
    private enum Event
    {
        BARRIER_RECEIVED("barrierReceived"),
        BARRIER_ANNOUNCED("barrierAnnounced"),
        END_OF_INPUT("endOfInput"),
        CHECK_TIMEOUT("checkTimeout"),
        CHECKPOINT_ABORTED("checkpointAborted"),
        CLOSE("close");

        /** The public method's name, for messages. */
        final String method;

        Event(final String method)
        {
            this.method = method;
        }
    }

    /**
     * Runs one event on the current state and installs the state it returns; an exception leaves the handler
     * unusable (the state may have called the controller half way).
     *
     * @param event   what happened.
     * @param channel the channel of a barrier or an END_OF_INPUT; else ignored.
     * @param barrier the barrier of a barrier event; else ignored.
     * @param value   a reading of the clock, or for {@link Event#CHECKPOINT_ABORTED} the checkpoint's id; ignored
     *                by {@link Event#CLOSE}.
     * @return whether the state changed.
     */
    private boolean dispatch(final Event event, final int channel, final CheckpointBarrier barrier, final long value)
    {
        final BarrierHandlerState current = enter(event.method);
        final BarrierHandlerState next;
        try
        {
            next = switch (event)
            {
                case BARRIER_RECEIVED -> current.barrierReceived(controller, channel, barrier, value);
                case BARRIER_ANNOUNCED -> current.barrierAnnounced(controller, channel, barrier, value);
                case END_OF_INPUT -> current.endOfInput(controller, channel, value);
                case CHECK_TIMEOUT -> current.checkTimeout(controller, value);
                case CHECKPOINT_ABORTED -> current.checkpointAborted(controller, value);
                case CLOSE -> current.close(controller);
            };
        }
        catch (final Throwable ex)
        {
            failure = ex;
            throw ex;
        }
        finally
        {
            inEvent = false;
        }
        transition(next);
        return next != current;
    }

    private BarrierHandlerState enter(final String event)
    {
        if (inEvent)
        {
            throw new IllegalStateException(event + " called from inside a controller callback: a callback must " +
                "not call the barrier handler's events");
        }
        if (failure != null)
        {
            throw new IllegalStateException(event + " after an earlier event failed: the barrier handler is " +
                "unusable", failure);
        }
        inEvent = true;
        return state;
    }

    private void transition(final BarrierHandlerState next)
    {
        state = next;
        blockedChannels = next.blockedChannels();
        recordingChannels = next.recordingChannels();
        timeoutArmed = next.isTimeoutArmed();
    }

    @Override
    public String toString()
    {
        return "BarrierHandler{" + state + '}';
    }
}
