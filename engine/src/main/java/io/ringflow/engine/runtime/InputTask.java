package io.ringflow.engine.runtime;

import io.ringflow.engine.channel.ChannelReader;
import io.ringflow.engine.channel.ChannelWriter;
import io.ringflow.engine.channel.ParkingSignal;
import io.ringflow.engine.channel.Slot;
import io.ringflow.engine.channel.SlotDescriptor;
import io.ringflow.engine.channel.SlotHandler;
import io.ringflow.engine.channel.SlotKind;
import io.ringflow.engine.checkpoint.AbortReason;
import io.ringflow.engine.checkpoint.BarrierController;
import io.ringflow.engine.checkpoint.BarrierHandler;
import io.ringflow.engine.checkpoint.BarrierHandlerOptions;
import io.ringflow.engine.checkpoint.CheckpointAlignment;
import io.ringflow.engine.checkpoint.CheckpointBarrier;
import io.ringflow.engine.checkpoint.NanoClock;
import io.ringflow.state.codec.Codec;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.System.Logger.Level;
import java.util.function.BooleanSupplier;

/**
 * A task fed by ring channels. Each cycle reads up to {@code readBatch} slots from every channel that has not ended
 * and is not blocked.
 *
 * <p>Barriers go to a {@link BarrierHandler}: in EXACTLY_ONCE mode a channel whose barrier has arrived is blocked
 * (its records stay in its ring) until every live channel delivered the barrier; then the chain snapshots, the
 * barrier is forwarded and the channels are unblocked. In AT_LEAST_ONCE mode nothing is blocked and the snapshot
 * happens on the last barrier. END_OF_INPUT counts as the channel's barrier for every later checkpoint. The task
 * finishes when every channel has delivered END_OF_INPUT.
 */
final class InputTask extends Task
{
    private static final System.Logger LOG = System.getLogger(InputTask.class.getName());

    private final InputChannel[] inputs;
    private final int readBatch;
    private final ParkingSignal signal;
    private final BooleanSupplier hasInput = this::hasInput;
    private final BarrierHandler barriers;
    private int ended;
    /** Duration of the last synchronous snapshot, reported with the acknowledgement. Task thread only. */
    private long lastSyncNanos;

    InputTask(
        final JobExecution execution,
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
        final ParkingSignal signal,
        final BarrierHandlerOptions barrierOptions)
    {
        super(execution, name, chain, writers, idler, maxParkNanos, cpu);
        this.readBatch = readBatch;
        this.signal = signal;
        this.inputs = new InputChannel[readers.length];
        for (int i = 0; i < readers.length; i++)
        {
            inputs[i] = new InputChannel(this, i, readers[i], codecs[i], inputIndexes[i], chain[0]);
        }
        this.barriers = new BarrierHandler(readers.length, barrierOptions, new Controller(), NanoClock.SYSTEM);
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
    int doWork()
    {
        barriers.checkTimeout();
        int work = 0;
        for (final InputChannel input : inputs)
        {
            if (!input.ended && !barriers.isBlocked(input.index))
            {
                work += input.reader.poll(input, readBatch);
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

    void onBarrier(final InputChannel channel, final long checkpointId, final int barrierType, final long timestamp)
    {
        barriers.barrierReceived(channel.index,
            new CheckpointBarrier(checkpointId, timestamp, CheckpointBarrier.Kind.fromCode(barrierType)));
    }

    void onEndOfInput(final InputChannel channel)
    {
        channel.ended = true;
        ended++;
        barriers.endOfInput(channel.index);
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
            lastSyncNanos = System.nanoTime() - start;
            return true;
        }

        @Override
        public void forwardBarrier(final CheckpointBarrier barrier, final boolean unaligned)
        {
            emitBarrier(barrier.checkpointId(), barrier.kind().code(), barrier.timestampMillis());
        }

        @Override
        public void startRecordingChannel(final int channel, final long checkpointId)
        {
            throw new UnsupportedOperationException("unaligned checkpoints are not available yet");
        }

        @Override
        public void stopRecordingChannel(final int channel, final long checkpointId)
        {
            throw new UnsupportedOperationException("unaligned checkpoints are not available yet");
        }

        @Override
        public void abortCheckpoint(final long checkpointId, final AbortReason reason)
        {
            LOG.log(Level.DEBUG, () -> "task " + name + " aborted checkpoint " + checkpointId + ": " + reason);
        }

        @Override
        public void allBarriersReceived(final CheckpointAlignment alignment)
        {
            // the input side is complete: acknowledge with the statistics of this checkpoint
            acknowledgeSnapshot(alignment.checkpointId(), -1, alignment.firstBarrierNanos(), lastSyncNanos,
                alignment.alignmentDurationNanos(), alignment.unaligned());
        }
    }

    /**
     * One input channel of the task and the handler of its slots. Records are decoded and handed to the head
     * operator's first or second input; barriers and END_OF_INPUT end the current poll so the task can react.
     */
    static final class InputChannel implements SlotHandler
    {
        final InputTask task;
        final int index;
        final ChannelReader reader;
        final Codec<Object> codec;
        final int inputIndex;
        final StreamOperator head;
        boolean ended;

        InputChannel(
            final InputTask task,
            final int index,
            final ChannelReader reader,
            final Codec<Object> codec,
            final int inputIndex,
            final StreamOperator head)
        {
            this.task = task;
            this.index = index;
            this.reader = reader;
            this.codec = codec;
            this.inputIndex = inputIndex;
            this.head = head;
        }

        @Override
        public boolean onSlot(final Slot slot)
        {
            final int kind = slot.kind();
            if (kind == SlotKind.RECORD)
            {
                final Object record = codec.decode(slot.payload(), 0, slot.length());
                try
                {
                    if (inputIndex == 0)
                    {
                        head.processElement(record);
                    }
                    else
                    {
                        head.processElement2(record);
                    }
                }
                catch (final Throwable ex)
                {
                    throw OperatorException.wrap(head.runtime(), ex);
                }
                return true;
            }
            if (kind == SlotKind.BARRIER)
            {
                final UnsafeBuffer payload = slot.payload();
                task.onBarrier(
                    this,
                    payload.getLong(SlotDescriptor.BARRIER_CHECKPOINT_ID_OFFSET),
                    payload.getInt(SlotDescriptor.BARRIER_TYPE_OFFSET),
                    payload.getLong(SlotDescriptor.BARRIER_TIMESTAMP_OFFSET));
                return false;
            }
            if (kind == SlotKind.END_OF_INPUT)
            {
                task.onEndOfInput(this);
                return false;
            }
            throw new IllegalStateException("slot of unexpected kind " + SlotKind.name(kind) + " on channel " +
                reader.channel().name());
        }
    }
}
