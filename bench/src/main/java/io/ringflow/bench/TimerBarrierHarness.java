package io.ringflow.bench;

import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CheckpointingMode;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.eventtime.WatermarkGenerator;
import io.ringflow.engine.api.eventtime.WatermarkOutput;
import io.ringflow.engine.api.eventtime.WatermarkStrategy;
import io.ringflow.engine.api.functions.CheckpointedFunction;
import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.KeyedProcessFunction;
import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.sink.DiscardSink;
import io.ringflow.engine.api.source.Source;
import io.ringflow.engine.api.source.SourceReader;
import io.ringflow.state.heap.HeapStateBackend;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How long a barrier waits behind a million due timers, in every barrier mode, with bounded firing (the default
 * batch of 1,024 timers) and without it (a batch of the whole pass: what an engine that fires every due timer in one
 * go does). One million keys each register an event-time timer at time 1; one record then makes the watermark jump
 * past it; as soon as the first timer fires, a checkpoint is triggered. Reported per run: the checkpoint's duration
 * (trigger to completion), how many timers had fired when the timers' operator took its snapshot, how long the
 * barrier took from the source's task to that snapshot (its wait behind the timers), and how long the whole pass
 * took. The checkpoint's duration also holds the synchronous encoding of the timers still pending at the barrier. Checked: every timer fired exactly once, and the checkpoint completed.
 *
 * <pre>
 * java -Xms2g -Xmx2g -XX:+AlwaysPreTouch -cp bench/target/benchmarks.jar io.ringflow.bench.TimerBarrierHarness [TIMERS] [ROUNDS]
 * </pre>
 */
public final class TimerBarrierHarness
{
    /** A timer's key and the record's event time. */
    public record Tick(long key, long time)
    {
    }

    private TimerBarrierHarness()
    {
    }

    /** Keys 0..n-1 at time 0, then the jump record; then nothing until released. */
    static final class JumpSource implements Source<Tick>
    {
        final long timers;
        final AtomicBoolean release = new AtomicBoolean();
        final AtomicBoolean jumped = new AtomicBoolean();

        JumpSource(final long timers)
        {
            this.timers = timers;
        }

        @Override
        public Class<Tick> producedType()
        {
            return Tick.class;
        }

        @Override
        public boolean isBounded()
        {
            return true;
        }

        @Override
        public int maxParallelism()
        {
            return 1;
        }

        @Override
        public SourceReader<Tick> createReader(final SubtaskInfo subtask)
        {
            return new SourceReader<>()
            {
                private long next;

                @Override
                public int pollNext(final io.ringflow.engine.api.functions.Collector<Tick> output,
                    final int maxRecords)
                {
                    int emitted = 0;
                    while (emitted < maxRecords && next < timers)
                    {
                        output.collect(new Tick(next++, 0));
                        emitted++;
                    }
                    if (emitted == 0 && next == timers)
                    {
                        output.collect(new Tick(0, 10));
                        next++;
                        jumped.set(true);
                        return 1;
                    }
                    if (emitted == 0 && release.get())
                    {
                        return END_OF_INPUT;
                    }
                    return emitted;
                }

                @Override
                public long position()
                {
                    return next;
                }

                @Override
                public void seek(final long position)
                {
                    next = position;
                }
            };
        }
    }

    /** Watermark only on the jump record. */
    static final class OnJump implements WatermarkGenerator<Tick>
    {
        @Override
        public void onEvent(final Tick event, final long timestamp, final WatermarkOutput output)
        {
            if (timestamp == 10)
            {
                output.emitWatermark(10);
            }
        }

        @Override
        public void onPeriodicEmit(final WatermarkOutput output)
        {
        }
    }

    /** What the timers' operator saw. */
    static final class Seen
    {
        final AtomicLong fired = new AtomicLong();
        final AtomicLong firedAtSnapshot = new AtomicLong(-1);
        final AtomicLong firstFireNanos = new AtomicLong();
        final AtomicLong lastFireNanos = new AtomicLong();
        /** When the barrier passed the source's task, and when the timers' operator took its snapshot. */
        final AtomicLong barrierAtSourceNanos = new AtomicLong();
        final AtomicLong snapshotNanos = new AtomicLong();
    }

    /** In the source's task: notes when the barrier passes it. */
    static final class BarrierAtSource implements io.ringflow.engine.api.functions.MapFunction<Tick, Tick>,
        CheckpointedFunction
    {
        private final Seen seen;

        BarrierAtSource(final Seen seen)
        {
            this.seen = seen;
        }

        @Override
        public Tick map(final Tick value)
        {
            return value;
        }

        @Override
        public void snapshotState(final long checkpointId)
        {
            seen.barrierAtSourceNanos.compareAndSet(0, System.nanoTime());
        }
    }

    /** One timer per key at time 1. */
    static final class TimerPerKey extends KeyedProcessFunction<Long, Tick, Long> implements CheckpointedFunction
    {
        private final Seen seen;

        TimerPerKey(final Seen seen)
        {
            this.seen = seen;
        }

        @Override
        public void processElement(final Tick value, final Context<Long> ctx, final Collector<Long> out)
        {
            if (value.time() == 0)
            {
                ctx.timerService().registerEventTimeTimer(1);
            }
        }

        @Override
        public void onTimer(final long timestamp, final OnTimerContext<Long> ctx, final Collector<Long> out)
        {
            final long now = System.nanoTime();
            if (seen.fired.getAndIncrement() == 0)
            {
                seen.firstFireNanos.set(now);
            }
            seen.lastFireNanos.set(now);
        }

        @Override
        public void snapshotState(final long checkpointId)
        {
            if (seen.firedAtSnapshot.compareAndSet(-1, seen.fired.get()))
            {
                seen.snapshotNanos.set(System.nanoTime());
            }
        }
    }

    enum Mode
    {
        ALIGNED, UNALIGNED, ALIGNED_WITH_TIMEOUT, AT_LEAST_ONCE
    }

    /**
     * @param args timers (default 1,000,000) and rounds (default 3).
     * @throws Exception when a run fails its checks.
     */
    public static void main(final String[] args) throws Exception
    {
        final long timers = args.length > 0 ? Long.parseLong(args[0].replace("_", "")) : 1_000_000;
        final int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        run(timers, rounds, System.out);
    }

    static void run(final long timers, final int rounds, final PrintStream out) throws Exception
    {
        out.printf("%,d due timers; checkpoint triggered at the first firing; %d rounds, medians%n", timers, rounds);
        out.println("| mode | firing batch | barrier: source → timers' snapshot (ms) | timers fired before the " +
            "snapshot | checkpoint duration (ms) | whole pass (ms) |");
        out.println("|---|---|---|---|---|---|");
        for (final Mode mode : Mode.values())
        {
            for (final int batch : new int[] {1_024, (int)Math.min(Integer.MAX_VALUE, timers)})
            {
                final List<long[]> results = new ArrayList<>();
                for (int round = 0; round < rounds + 1; round++)
                {
                    final long[] r = once(mode, batch, timers);
                    if (round > 0)
                    {
                        results.add(r);
                    }
                }
                out.printf("| %s | %,d | %.2f | %,d | %.1f | %.0f |%n", mode, batch, median(results, 3) / 1e6,
                    median(results, 1), median(results, 0) / 1e6, median(results, 2) / 1e6);
            }
        }
    }

    private static long median(final List<long[]> results, final int column)
    {
        final long[] values = results.stream().mapToLong(r -> r[column]).sorted().toArray();
        return values[values.length / 2];
    }

    /** @return checkpoint nanos, fired at snapshot, pass nanos. */
    static long[] once(final Mode mode, final int batch, final long timers) throws Exception
    {
        final JumpSource source = new JumpSource(timers);
        final Seen seen = new Seen();
        final CheckpointConfig.Builder checkpoints = CheckpointConfig.every(Duration.ofDays(1));
        if (mode == Mode.UNALIGNED)
        {
            checkpoints.unaligned(true);
        }
        if (mode == Mode.ALIGNED_WITH_TIMEOUT)
        {
            checkpoints.alignedTimeout(Duration.ofMillis(1));
        }
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .stateBackend(new HeapStateBackend())
            .checkpointingMode(mode == Mode.AT_LEAST_ONCE ? CheckpointingMode.AT_LEAST_ONCE :
                CheckpointingMode.EXACTLY_ONCE)
            .checkpointing(checkpoints.build())
            .timerFiringBatch(batch)
            .build());
        env.fromSource(source, "ticks")
            .map(() -> new BarrierAtSource(seen)).returns(Tick.class)
            .assignTimestampsAndWatermarks(WatermarkStrategy.forGenerator(OnJump::new)
                .withTimestampAssigner((tick, previous) -> tick.time()))
            .keyBy(Tick::key)
            .process(() -> new TimerPerKey(seen)).returns(Long.class)
            .sinkTo(new DiscardSink<>());
        try (JobHandle job = env.execute("timer-barrier-" + mode + "-" + batch))
        {
            while (seen.fired.get() == 0)
            {
                java.util.concurrent.locks.LockSupport.parkNanos(20_000);
            }
            final long start = System.nanoTime();
            final CompletedCheckpoint checkpoint = job.triggerCheckpoint().get(5, TimeUnit.MINUTES);
            final long duration = System.nanoTime() - start;
            source.release.set(true);
            if (job.awaitTermination(Duration.ofMinutes(5)) != JobStatus.FINISHED || checkpoint == null)
            {
                throw new IllegalStateException("the run did not finish");
            }
            if (seen.fired.get() != timers)
            {
                throw new IllegalStateException(seen.fired.get() + " timers fired, " + timers + " expected");
            }
            return new long[] {duration, seen.firedAtSnapshot.get(),
                seen.lastFireNanos.get() - seen.firstFireNanos.get(),
                seen.snapshotNanos.get() - seen.barrierAtSourceNanos.get()};
        }
    }
}
