package io.ringflow.engine.checkpoint.barrier;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A stub task: logs every controller call in order, keeps the blocked and recorded channels as the calls describe
 * them, and declines the snapshots it was told to. It fails fast (AssertionError) on calls the contract rules out:
 * blocking a blocked channel, unblocking when nothing is blocked, starting to record a recorded channel, stopping a
 * recording that is not running.
 *
 * <p>A listener, if given, sees each call before the stub's bookkeeping changes, so it can compare the call with the
 * stub's state just before it.
 */
final class RecordingController implements BarrierController
{
    /**
     * One controller call. Fields a call does not carry are -1, false or null.
     *
     * @param name         which method.
     * @param channel      the channel, or -1.
     * @param checkpointId the checkpoint, or -1.
     * @param unaligned    the unaligned flag of a snapshot or forward.
     * @param declined     whether a snapshot was declined.
     * @param reason       the reason of an abort.
     * @param alignment    the statistics of a completed checkpoint.
     */
    record Call(
        Name name,
        int channel,
        long checkpointId,
        boolean unaligned,
        boolean declined,
        AbortReason reason,
        CheckpointAlignment alignment)
    {
        @Override
        public String toString()
        {
            return switch (name)
            {
                case BLOCK -> "block " + channel;
                case UNBLOCK_ALL -> "unblock all";
                case SNAPSHOT -> "snapshot " + checkpointId + (unaligned ? " unaligned" : " aligned") +
                    (declined ? " declined" : "");
                case FORWARD -> "forward " + checkpointId + (unaligned ? " unaligned" : " aligned");
                case START_RECORDING -> "record " + channel + " for " + checkpointId;
                case STOP_RECORDING -> "stop recording " + channel + " for " + checkpointId;
                case ABORT -> "abort " + checkpointId + ' ' + reason;
                case ALL_BARRIERS_RECEIVED -> "all barriers of " + checkpointId;
            };
        }
    }

    /** The controller's methods. */
    enum Name
    {
        BLOCK, UNBLOCK_ALL, SNAPSHOT, FORWARD, START_RECORDING, STOP_RECORDING, ABORT, ALL_BARRIERS_RECEIVED
    }

    private final List<Call> calls = new ArrayList<>();
    private final Set<Long> declines = new HashSet<>();
    private final Consumer<Call> listener;
    private final long[] recordingFor = new long[Long.SIZE];
    private long blocked;
    private int taken;

    RecordingController()
    {
        this(call ->
        {
        });
    }

    /** @param listener sees each call before the stub's bookkeeping. */
    RecordingController(final Consumer<Call> listener)
    {
        this.listener = listener;
    }

    /** @param checkpointIds checkpoints whose snapshot the stub declines. */
    void decline(final long... checkpointIds)
    {
        Arrays.stream(checkpointIds).forEach(declines::add);
    }

    /** @return the calls since the last take, as strings, and forgets them. */
    List<String> takeCalls()
    {
        final List<String> since = calls.subList(taken, calls.size()).stream().map(Call::toString).toList();
        taken = calls.size();
        return since;
    }

    /** @return every call so far. */
    List<Call> calls()
    {
        return calls;
    }

    /** @return the statistics of every completed checkpoint, in order. */
    List<CheckpointAlignment> alignments()
    {
        return calls.stream().filter(call -> call.name() == Name.ALL_BARRIERS_RECEIVED)
            .map(Call::alignment).toList();
    }

    /** @return the channels blocked by the calls so far. */
    long blocked()
    {
        return blocked;
    }

    /**
     * @param channel a channel.
     * @return the checkpoint its records are recorded for, or 0.
     */
    long recordingCheckpoint(final int channel)
    {
        return recordingFor[channel];
    }

    @Override
    public void blockChannel(final int channel)
    {
        final Call call = log(new Call(Name.BLOCK, channel, -1, false, false, null, null));
        check((blocked & (1L << channel)) == 0, call, "channel is already blocked");
        blocked |= 1L << channel;
    }

    @Override
    public void unblockAllChannels()
    {
        final Call call = log(new Call(Name.UNBLOCK_ALL, -1, -1, false, false, null, null));
        check(blocked != 0, call, "nothing is blocked");
        blocked = 0;
    }

    @Override
    public boolean snapshotState(final CheckpointBarrier barrier, final boolean unaligned)
    {
        final boolean declined = declines.contains(barrier.checkpointId());
        log(new Call(Name.SNAPSHOT, -1, barrier.checkpointId(), unaligned, declined, null, null));
        return !declined;
    }

    @Override
    public void forwardBarrier(final CheckpointBarrier barrier, final boolean unaligned)
    {
        log(new Call(Name.FORWARD, -1, barrier.checkpointId(), unaligned, false, null, null));
    }

    @Override
    public void startRecordingChannel(final int channel, final long checkpointId)
    {
        final Call call = log(new Call(Name.START_RECORDING, channel, checkpointId, false, false, null, null));
        check(recordingFor[channel] == 0, call, "the channel is recorded for " + recordingFor[channel]);
        recordingFor[channel] = checkpointId;
    }

    @Override
    public void stopRecordingChannel(final int channel, final long checkpointId)
    {
        final Call call = log(new Call(Name.STOP_RECORDING, channel, checkpointId, false, false, null, null));
        check(recordingFor[channel] == checkpointId, call, "the channel is recorded for " + recordingFor[channel]);
        recordingFor[channel] = 0;
    }

    @Override
    public void abortCheckpoint(final long checkpointId, final AbortReason reason)
    {
        log(new Call(Name.ABORT, -1, checkpointId, false, false, reason, null));
    }

    @Override
    public void allBarriersReceived(final CheckpointAlignment alignment)
    {
        log(new Call(Name.ALL_BARRIERS_RECEIVED, -1, alignment.checkpointId(), alignment.unaligned(), false, null,
            alignment));
    }

    private Call log(final Call call)
    {
        listener.accept(call);
        calls.add(call);
        return call;
    }

    private static void check(final boolean ok, final Call call, final String why)
    {
        if (!ok)
        {
            throw new AssertionError("controller contract broken by \"" + call + "\": " + why);
        }
    }
}
