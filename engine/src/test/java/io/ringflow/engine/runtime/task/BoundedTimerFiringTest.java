package io.ringflow.engine.runtime.task;

import io.ringflow.engine.api.IdleStrategyKind;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.functions.CheckpointedFunction;
import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.KeyedProcessFunction;
import io.ringflow.engine.channel.BarrierKind;
import io.ringflow.engine.channel.ChannelReader;
import io.ringflow.engine.channel.ChannelWriter;
import io.ringflow.engine.channel.RecordTimestamp;
import io.ringflow.engine.channel.RingChannel;
import io.ringflow.engine.channel.SlotDescriptor;
import io.ringflow.engine.channel.SlotKind;
import io.ringflow.engine.checkpoint.barrier.BarrierHandlerOptions;
import io.ringflow.engine.runtime.deploy.JobAttempt;
import io.ringflow.engine.runtime.operators.KeyedProcessOperator;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.codec.LongCodec;
import io.ringflow.state.heap.HeapKeyedStateStore;
import io.ringflow.state.keyed.KeyGroupRange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A watermark that makes many timers due does not hold a barrier back, in any barrier mode: the task fires them in
 * batches and reads its input between two batches. Drives the task's cycles by hand with a real keyed process
 * operator, so every count is exact: no threads, no time.
 */
class BoundedTimerFiringTest
{
    private static final int TIMERS = 1_000;
    private static final int BATCH = 100;
    private final List<RingChannel> channels = new ArrayList<>();

    enum Mode
    {
        ALIGNED, UNALIGNED, ALIGNED_WITH_TIMEOUT, AT_LEAST_ONCE
    }

    /** One event-time timer per number, at the number; counts firings and what the snapshot saw. */
    static final class OneTimerEach extends KeyedProcessFunction<Long, Long, Long> implements CheckpointedFunction
    {
        long fired;
        long firedAtSnapshot = -1;

        @Override
        public void processElement(final Long value, final Context<Long> ctx, final Collector<Long> out)
        {
            ctx.timerService().registerEventTimeTimer(value);
        }

        @Override
        public void onTimer(final long timestamp, final OnTimerContext<Long> ctx, final Collector<Long> out)
        {
            fired++;
            out.collect(timestamp);
        }

        @Override
        public void snapshotState(final long checkpointId)
        {
            firedAtSnapshot = fired;
        }
    }

    @AfterEach
    void release()
    {
        channels.forEach(RingChannel::release);
    }

    private RingChannel ring(final String name)
    {
        final RingChannel channel = new RingChannel(name, 4096, 64, 64, null);
        channels.add(channel);
        return channel;
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aBarrierArrivingDuringAFiringPassIsTakenBetweenTwoBatches(final Mode mode) throws Exception
    {
        final RingChannel in = ring("in");
        final RingChannel out = ring("out");
        final OneTimerEach function = new OneTimerEach();
        final KeyedProcessOperator operator = new KeyedProcessOperator(function, (Long n) -> n % 10);
        final CodecRegistry codecs = CodecRegistry.withBuiltIns();
        final HeapKeyedStateStore store = new HeapKeyedStateStore(codecs, 128, new KeyGroupRange(0, 127));
        final TaskTime time = new TaskTime(Clock.systemUTC(), BATCH, 200);
        operator.setup(new OperatorRuntime("job", "timers", "timers", 0, 1, 128, store,
            new OperatorStateStore(codecs), "test", time), new io.ringflow.engine.runtime.task.ForwardOutput(
            out.writer(), codecOf(LongCodec.INSTANCE)));
        out.writer().timestamps(time.timestamp);
        final BarrierHandlerOptions options = switch (mode)
        {
            case ALIGNED -> BarrierHandlerOptions.aligned();
            case UNALIGNED -> BarrierHandlerOptions.unalignedCheckpoints();
            case ALIGNED_WITH_TIMEOUT -> BarrierHandlerOptions.alignedWithTimeout(java.time.Duration.ofDays(1));
            case AT_LEAST_ONCE -> BarrierHandlerOptions.atLeastOnce();
        };
        final InputTask task = new InputTask(new JobAttempt("job", null, 1,
            new io.ringflow.state.checkpoint.InMemoryCheckpointStorage()), "timers (1/1)",
            new StreamOperator[] {operator}, new ChannelWriter[] {out.writer()},
            Idler.create(IdleStrategyKind.BUSY_SPIN, null, 100_000), 100_000, -1,
            new ChannelReader[] {in.reader()}, new int[] {0}, new Codec[] {LongCodec.INSTANCE}, 4096,
            JobConfig.DEFAULT_KEY_PREFETCH, null, options, List.of(ChannelInput.class));
        operator.initializeState();
        operator.open();
        task.collectTimedOperators();

        // given: a timer per number, then a watermark that makes all of them due
        final ChannelWriter writer = in.writer();
        final RecordTimestamp stamp = new RecordTimestamp();
        writer.timestamps(stamp);
        for (long n = 0; n < TIMERS; n++)
        {
            stamp.value = n;
            writer.writeRecord(LongCodec.INSTANCE, n);
        }
        writer.writeWatermark(TIMERS);
        writer.flush();

        // when: one cycle reads it all and starts the pass
        task.cycle();
        // then: two batches fired (one when the watermark was read, one after the read), the watermark downstream is
        // just below the first timer not fired: the pass's progress, not the input's watermark
        assertThat(function.fired).isEqualTo(2 * BATCH);
        assertThat(lastWatermark(out)).isEqualTo(2 * BATCH - 1);

        // when: a barrier arrives while the pass is under way
        if (mode == Mode.UNALIGNED || mode == Mode.ALIGNED_WITH_TIMEOUT)
        {
            writer.announceBarrier(1, BarrierKind.CHECKPOINT, 0);
        }
        writer.writeBarrier(1, BarrierKind.CHECKPOINT, 0);
        writer.flush();
        task.cycle();
        // then: it is taken before another batch fires, and goes on downstream
        assertThat(function.firedAtSnapshot).isEqualTo(2 * BATCH);
        assertThat(function.fired).isEqualTo(3 * BATCH);

        // and the pass finishes, batch by batch, its watermark reaching the input's
        while (function.fired < TIMERS)
        {
            task.cycle();
        }
        assertThat(lastWatermark(out)).isEqualTo(TIMERS);
        assertThat(operator.hasPendingTimers()).isFalse();
    }

    @SuppressWarnings("unchecked")
    private static Codec<Object> codecOf(final Codec<?> codec)
    {
        return (Codec<Object>)codec;
    }

    /** Reads everything on {@code out}; returns the last watermark seen (and checks one barrier at most). */
    private static long lastWatermark(final RingChannel out)
    {
        final ChannelReader reader = out.reader();
        long watermark = Long.MIN_VALUE;
        int available;
        while ((available = reader.available(1_000)) > 0)
        {
            for (int i = 0; i < available; i++)
            {
                final long sequence = reader.nextSequence() + i;
                if (SlotDescriptor.kind(reader.header(sequence)) == SlotKind.WATERMARK)
                {
                    watermark = reader.watermark(sequence);
                }
            }
            reader.advance(available);
        }
        return watermark;
    }
}
