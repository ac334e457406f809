package io.ringflow.engine.runtime.task;

import io.ringflow.engine.channel.BarrierAnnouncement;
import io.ringflow.engine.channel.BarrierKind;
import io.ringflow.engine.channel.ChannelReader;
import io.ringflow.engine.channel.ChannelWriter;
import io.ringflow.engine.channel.ParkingSignal;
import io.ringflow.engine.channel.SlotDescriptor;
import io.ringflow.engine.channel.SlotKind;
import io.ringflow.engine.checkpoint.barrier.AbortReason;
import io.ringflow.engine.checkpoint.barrier.BarrierController;
import io.ringflow.engine.checkpoint.barrier.BarrierHandler;
import io.ringflow.engine.checkpoint.barrier.BarrierHandlerOptions;
import io.ringflow.engine.checkpoint.barrier.CheckpointAlignment;
import io.ringflow.engine.checkpoint.barrier.CheckpointBarrier;
import io.ringflow.engine.checkpoint.barrier.NanoClock;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;

import java.lang.System.Logger.Level;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * A task fed by ring channels. Each cycle reads up to {@code readBatch} slots from every channel that has not ended
 * and is not blocked.
 *
 * <p>Barriers go to a {@link BarrierHandler}:
 * <ul>
 *   <li>EXACTLY_ONCE aligned: a channel whose barrier has arrived is blocked (its records stay in its ring) until
 *   every live channel delivered the barrier; then the chain snapshots, the barrier is forwarded and the channels are
 *   unblocked.</li>
 *   <li>AT_LEAST_ONCE: nothing is blocked; the snapshot happens on the last barrier.</li>
 *   <li>EXACTLY_ONCE unaligned: upstream tasks announce each barrier on the channel before the records queued in front
 *   of it are read ({@link BarrierAnnouncement}); at the start of every cycle this task looks for new announcements.
 *   On a checkpoint's first barrier it snapshots at once and forwards the barrier (announced, so it overtakes this
 *   task's queued output too). The records the barrier overtook on its channel, and every record read from the other
 *   channels until their barriers, are copied into the checkpoint's channel state and processed as usual. The
 *   checkpoint's input side is complete once every channel announced its barrier or ended: the time that takes does
 *   not grow with the records queued in the rings.</li>
 *   <li>Aligned with a timeout: aligned until the timeout, then as unaligned for the channels still missing their
 *   barrier (their records are recorded until their barrier slot is read).</li>
 * </ul>
 * END_OF_INPUT counts as the channel's barrier for every later checkpoint. The task finishes when every channel has
 * delivered END_OF_INPUT. A job restored from an unaligned checkpoint replays the task's channel state into the head
 * operator before reading any new input.
 */
public final class InputTask extends Task
{
    private static final System.Logger LOG = System.getLogger(InputTask.class.getName());
    /** Records read between two looks for announced barriers, in unaligned mode. */
    static final int ANNOUNCEMENT_CHUNK = 32;

    private final InputChannel[] inputs;
    private final int readBatch;
    /** Slots per burst of key hints to a keyed head ({@code JobConfig.keyPrefetch}); 0 for none. */
    private final int keyPrefetch;
    private final ParkingSignal signal;
    private final BooleanSupplier hasInput = this::hasInput;
    private final BarrierHandler barriers;
    /** Whether barriers are acted on when announced rather than when their slot is read (pure unaligned mode). */
    private final boolean followAnnouncements;
    /** In-flight records of a job restored from an unaligned checkpoint, replayed before any input; then null. */
    private byte[] restoredChannelState;
    private String restoredChannelStateFile;
    private int ended;
    /** Duration of the last synchronous snapshot, reported with the acknowledgement. Task thread only. */
    private long lastSyncNanos;
    /** Channel state of the unaligned checkpoint in progress, or null. Task thread only. */
    private ChannelStateRecorder recorder;
    /** The channel whose announced barrier is being handed to the handler, and that barrier's slot; -1 if none. */
    private int announcingChannel = -1;
    private long announcedSequence;
    /** The task's watermark: the minimum over its live, active input channels. */
    private final WatermarkValve watermarks;

    /**
     * @param recordLoops per channel, the class of its record loop: {@link ChannelInput} or a private copy of it
     *                    ({@link ClassCopies}); the other arguments are as their names say, one entry per channel for
     *                    the arrays.
     */
    public InputTask(
        final TaskHost host,
        final String name,
        final StreamOperator[] chain,
        final ChannelWriter[] writers,
        final Idler idler,
        final long maxParkNanos,
        final int cpu,
        final ChannelReader[] readers,
        final int[] inputIndexes,
        final Codec<Object>[] codecs,
        final int readBatch,
        final int keyPrefetch,
        final ParkingSignal signal,
        final BarrierHandlerOptions barrierOptions,
        final List<Class<? extends InputChannel>> recordLoops)
    {
        super(host, name, chain, writers, idler, maxParkNanos, cpu);
        this.readBatch = readBatch;
        this.keyPrefetch = keyPrefetch;
        this.signal = signal;
        this.inputs = new InputChannel[readers.length];
        for (int i = 0; i < readers.length; i++)
        {
            inputs[i] = ClassCopies.construct(InputChannel.class, recordLoops.get(i), this, i, readers[i], codecs[i],
                inputIndexes[i], chain[0]);
        }
        this.barriers = new BarrierHandler(readers.length, barrierOptions, new Controller(), NanoClock.SYSTEM);
        this.watermarks = new WatermarkValve(readers.length, new WatermarkValve.Listener()
        {
            @Override
            public void watermark(final long watermark)
            {
                watermarkToChain(watermark);
            }

            @Override
            public void status(final boolean idle)
            {
                watermarkStatusToChain(idle);
            }
        });
        this.followAnnouncements = barrierOptions.unaligned() && !barrierOptions.hasAlignedTimeout();
        announceBarriers(barrierOptions.unaligned());
    }

    /** @return per input channel, the operator input it feeds. */
    public int[] inputIndexes()
    {
        final int[] indexes = new int[inputs.length];
        for (int i = 0; i < inputs.length; i++)
        {
            indexes[i] = inputs[i].inputIndex;
        }
        return indexes;
    }

    /**
     * @param bytes the channel state this task's subtask stored in the checkpoint being restored, its layout already
     *              checked against this task's channels.
     * @param file  its name, for errors.
     */
    public void restoreChannelState(final byte[] bytes, final String file)
    {
        restoredChannelState = bytes;
        restoredChannelStateFile = file;
    }


    /** @return slots per burst of key hints to a keyed head, 0 for none; see {@code JobConfig.keyPrefetch}. */
    int keyPrefetch()
    {
        return keyPrefetch;
    }
    @Override
    void onStart()
    {
        if (signal != null)
        {
            signal.bindToCurrentThread();
        }
    }

    @Override
    void onOperatorsOpened()
    {
        if (restoredChannelState == null)
        {
            return;
        }
        final byte[] state = restoredChannelState;
        restoredChannelState = null;
        ChannelStateRecorder.replay(state, restoredChannelStateFile, inputIndexes(),
            (channel, timestamp, bytes, offset, length) -> inputs[channel].process(timestamp, bytes, offset, length));
    }

    @Override
    int doWork()
    {
        barriers.checkTimeout();
        int work = 0;
        if (followAnnouncements)
        {
            work = pollWatchingAnnouncements();
        }
        else
        {
            for (final InputChannel input : inputs)
            {
                if (!input.ended && !barriers.isBlocked(input.index))
                {
                    work += input.drain(readBatch);
                }
            }
        }
        if (ended == inputs.length && !isFinished())
        {
            finish();
        }
        return work;
    }

    @Override
    void idle(final int work)
    {
        idler.idle(work, hasInput);
    }

    @Override
    void onClose()
    {
        barriers.close();
        recorder = null;
    }

    /** @return whether a channel that may be read has a slot waiting. */
    private boolean hasInput()
    {
        for (final InputChannel input : inputs)
        {
            if (!input.ended && !barriers.isBlocked(input.index) && input.reader.hasAvailable())
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Unaligned mode: reads each channel in chunks of {@link #ANNOUNCEMENT_CHUNK} records and looks for announced
     * barriers between chunks, so a barrier waits behind at most one chunk of this task's work (each record of which
     * may wait for room downstream), not behind a whole read batch.
     */
    private int pollWatchingAnnouncements()
    {
        checkAnnouncements();
        int work = 0;
        for (final InputChannel input : inputs)
        {
            int remaining = readBatch;
            while (remaining > 0 && !input.ended && !barriers.isBlocked(input.index))
            {
                final int chunk = Math.min(remaining, ANNOUNCEMENT_CHUNK);
                final int read = input.drain(chunk);
                work += read;
                remaining -= read;
                if (read < chunk)
                {
                    break;
                }
                checkAnnouncements();
            }
        }
        return work;
    }

    /** Acts on barriers announced since the last cycle: one volatile read per live channel. */
    private void checkAnnouncements()
    {
        for (final InputChannel input : inputs)
        {
            if (input.ended)
            {
                continue;
            }
            final BarrierAnnouncement announcement = input.reader.channel().announcement();
            if (announcement != null && announcement != input.seenAnnouncement)
            {
                input.seenAnnouncement = announcement;
                // only checkpoints overtake; any other barrier kind is taken aligned, when its slot is read
                if (announcement.checkpointId() > input.handledBarrier &&
                    announcement.kind() == BarrierKind.CHECKPOINT)
                {
                    onAnnouncedBarrier(input, announcement);
                }
            }
        }
    }

    /**
     * An unaligned barrier announced on {@code input}: the records in its ring in front of the barrier's slot were
     * overtaken and go to the channel state; then the handler hears of the barrier.
     */
    private void onAnnouncedBarrier(final InputChannel input, final BarrierAnnouncement announcement)
    {
        input.handledBarrier = announcement.checkpointId();
        if (recorder != null && recorder.checkpointId == announcement.checkpointId())
        {
            // a later channel of a checkpoint in progress: its overtaken records complete its channel state
            peekOvertaken(input, announcement.sequence(), recorder);
        }
        // when this is the checkpoint's first barrier, the snapshot callback records the overtaken records
        announcingChannel = input.index;
        announcedSequence = announcement.sequence();
        try
        {
            // the channel may be blocked for a savepoint's alignment: announcements are read out of band
            barriers.barrierAnnounced(input.index, new CheckpointBarrier(announcement.checkpointId(),
                announcement.timestamp(), announcement.kind()));
        }
        finally
        {
            announcingChannel = -1;
        }
    }

    /**
     * A slot other than a record was read on {@code channel}: a barrier or END_OF_INPUT. Called from the channel's
     * record loop, on the task thread.
     *
     * @param channel  the channel.
     * @param sequence the slot's sequence.
     * @param kind     its {@link SlotKind}.
     * @return whether the run may go on: a barrier handled before (announced) is skipped; anything else ends the run,
     *     so the task can decide whether the channel is blocked.
     */
    boolean onControlSlot(final InputChannel channel, final long sequence, final int kind)
    {
        if (kind == SlotKind.BARRIER)
        {
            final long checkpointId = channel.reader.barrierCheckpointId(sequence);
            if (checkpointId <= channel.handledBarrier)
            {
                return true;
            }
            channel.handledBarrier = checkpointId;
            barriers.barrierReceived(channel.index, new CheckpointBarrier(checkpointId,
                channel.reader.barrierTimestamp(sequence), channel.reader.barrierKind(sequence)));
            return false;
        }
        if (kind == SlotKind.WATERMARK)
        {
            final int flags = SlotDescriptor.flags(channel.reader.header(sequence));
            if ((flags & SlotDescriptor.FLAG_IDLE) != 0)
            {
                watermarks.onIdle(channel.index);
            }
            else if ((flags & SlotDescriptor.FLAG_ACTIVE) != 0)
            {
                watermarks.onActive(channel.index);
            }
            else
            {
                watermarks.onWatermark(channel.index, channel.reader.watermark(sequence));
            }
            return true;
        }
        if (kind == SlotKind.END_OF_INPUT)
        {
            onEndOfInput(channel);
            return false;
        }
        throw new IllegalStateException("slot of unexpected kind " + SlotKind.name(kind) + " on channel " +
            channel.reader.channel().name());
    }

    /** Copies the records in {@code input}'s ring in front of an announced barrier's slot into the channel state. */
    private static void peekOvertaken(final InputChannel input, final long barrierSequence,
        final ChannelStateRecorder into)
    {
        input.reader.peekRecordsBefore(barrierSequence,
            (timestamp, buffer, offset, length) -> into.append(input.index, timestamp, buffer, offset, length));
    }

    @Override
    void onCheckpointAborted(final long checkpointId)
    {
        // unblock or stop recording channels held for it, and drop its channel state
        barriers.checkpointAborted(checkpointId);
    }

    void onEndOfInput(final InputChannel channel)
    {
        channel.ended = true;
        ended++;
        barriers.endOfInput(channel.index);
        watermarks.onEnd(channel.index);
    }

    /**
     * The task's side of the barrier protocol: the handler decides, this carries it out. Blocking needs no action
     * here beyond the handler's bitmap, which {@link #doWork} reads before polling each channel.
     */
    private final class Controller implements BarrierController
    {
        @Override
        public void blockChannel(final int channel)
        {
            // the handler's bitmap is the block: doWork skips the channel, its records stay in the ring
        }

        @Override
        public void unblockAllChannels()
        {
            // likewise: the cleared bitmap lets doWork read every live channel again
        }

        @Override
        public boolean snapshotState(final CheckpointBarrier barrier, final boolean unaligned)
        {
            final long start = System.nanoTime();
            snapshotChain(barrier.checkpointId());
            if (unaligned)
            {
                recorder = new ChannelStateRecorder(barrier.checkpointId(), inputIndexes());
                if (announcingChannel >= 0)
                {
                    final InputChannel input = inputs[announcingChannel];
                    peekOvertaken(input, announcedSequence, recorder);
                }
            }
            lastSyncNanos = System.nanoTime() - start;
            return true;
        }

        @Override
        public void forwardBarrier(final CheckpointBarrier barrier, final boolean unaligned)
        {
            emitBarrier(barrier.checkpointId(), barrier.kind(), barrier.timestampMillis());
        }

        @Override
        public void startRecordingChannel(final int channel, final long checkpointId)
        {
            inputs[channel].recording = recorder;
        }

        @Override
        public void stopRecordingChannel(final int channel, final long checkpointId)
        {
            inputs[channel].recording = null;
        }

        @Override
        public void abortCheckpoint(final long checkpointId, final AbortReason reason)
        {
            if (recorder != null && recorder.checkpointId == checkpointId)
            {
                recorder = null;
            }
            LOG.log(Level.DEBUG, () -> "task " + name + " aborted checkpoint " + checkpointId + ": " + reason);
            // the coordinator's own abort needs no echo; a task closes with a checkpoint in progress only when the
            // attempt stops, and stopping aborts every pending checkpoint itself (as JOB_STOPPED)
            if (reason != AbortReason.ABORTED_BY_COORDINATOR && reason != AbortReason.TASK_CLOSING)
            {
                host.checkpoints().abortedByTask(InputTask.this, checkpointId, reason);
            }
        }

        @Override
        public void allBarriersReceived(final CheckpointAlignment alignment)
        {
            final TaskSnapshot snapshot = pendingSnapshot();
            if (alignment.unaligned() && recorder != null && recorder.checkpointId == alignment.checkpointId() &&
                snapshot != null && snapshot.checkpointId == alignment.checkpointId())
            {
                snapshot.channelState(recorder.finish(), recorder.records());
            }
            if (recorder != null && recorder.checkpointId <= alignment.checkpointId())
            {
                recorder = null;
            }
            // the input side is complete: acknowledge with the statistics of this checkpoint
            acknowledgeSnapshot(alignment.checkpointId(), -1, alignment.firstBarrierNanos(), lastSyncNanos,
                alignment.alignmentDurationNanos(), alignment.unaligned());
        }
    }
}
