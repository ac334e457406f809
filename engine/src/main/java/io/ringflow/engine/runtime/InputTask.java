package io.ringflow.engine.runtime;

import io.ringflow.engine.channel.ChannelReader;
import io.ringflow.engine.channel.ChannelWriter;
import io.ringflow.engine.channel.ParkingSignal;
import io.ringflow.engine.channel.Slot;
import io.ringflow.engine.channel.SlotDescriptor;
import io.ringflow.engine.channel.SlotHandler;
import io.ringflow.engine.channel.SlotKind;
import io.ringflow.state.codec.Codec;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.function.BooleanSupplier;

/**
 * A task fed by ring channels. Each cycle reads up to {@code readBatch} slots from every live channel in turn.
 *
 * <p>Barriers: until the checkpointing layer replaces it, a barrier is forwarded when every channel that has not
 * ended has delivered it (END_OF_INPUT counts as every later barrier); no channel is blocked. The task finishes when
 * every channel has delivered END_OF_INPUT.
 */
final class InputTask extends Task
{
    private final InputChannel[] inputs;
    private final int readBatch;
    private final ParkingSignal signal;
    private final BooleanSupplier hasInput = this::hasInput;
    private int ended;
    private long newestBarrier;
    private int newestBarrierType;
    private long newestBarrierTimestamp;

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
        final ParkingSignal signal)
    {
        super(execution, name, chain, writers, idler, maxParkNanos, cpu);
        this.readBatch = readBatch;
        this.signal = signal;
        this.inputs = new InputChannel[readers.length];
        for (int i = 0; i < readers.length; i++)
        {
            inputs[i] = new InputChannel(this, readers[i], codecs[i], inputIndexes[i], chain[0]);
        }
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
        int work = 0;
        for (final InputChannel input : inputs)
        {
            if (!input.ended)
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

    private boolean hasInput()
    {
        for (final InputChannel input : inputs)
        {
            if (!input.ended && input.reader.hasAvailable())
            {
                return true;
            }
        }
        return false;
    }

    void onBarrier(final InputChannel channel, final long checkpointId, final int barrierType, final long timestamp)
    {
        if (checkpointId > newestBarrier)
        {
            newestBarrier = checkpointId;
            newestBarrierType = barrierType;
            newestBarrierTimestamp = timestamp;
        }
        channel.lastBarrier = Math.max(channel.lastBarrier, checkpointId);
        forwardIfAllDelivered(checkpointId, barrierType, timestamp);
    }

    void onEndOfInput(final InputChannel channel)
    {
        channel.ended = true;
        ended++;
        // The newest barrier may have been waiting only for this channel.
        if (ended < inputs.length && newestBarrier > lastForwardedBarrier())
        {
            forwardIfAllDelivered(newestBarrier, newestBarrierType, newestBarrierTimestamp);
        }
    }

    private void forwardIfAllDelivered(final long checkpointId, final int barrierType, final long timestamp)
    {
        if (checkpointId <= lastForwardedBarrier())
        {
            return;
        }
        for (final InputChannel input : inputs)
        {
            if (!input.ended && input.lastBarrier < checkpointId)
            {
                return;
            }
        }
        forwardBarrier(checkpointId, barrierType, timestamp);
    }

    /**
     * One input channel of the task and the handler of its slots. Records are decoded and handed to the head
     * operator's first or second input; barriers and END_OF_INPUT end the current poll so the task can react.
     */
    static final class InputChannel implements SlotHandler
    {
        final InputTask task;
        final ChannelReader reader;
        final Codec<Object> codec;
        final int inputIndex;
        final StreamOperator head;
        long lastBarrier;
        boolean ended;

        InputChannel(
            final InputTask task,
            final ChannelReader reader,
            final Codec<Object> codec,
            final int inputIndex,
            final StreamOperator head)
        {
            this.task = task;
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
