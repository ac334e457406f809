package io.ringflow.engine.recovery;

import io.ringflow.engine.TestBackends;
import io.ringflow.engine.TestJobs;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CheckpointingMode;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.RestartStrategy;
import io.ringflow.engine.api.eventtime.WatermarkGenerator;
import io.ringflow.engine.api.eventtime.WatermarkOutput;
import io.ringflow.engine.api.eventtime.WatermarkStrategy;
import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.KeyedProcessFunction;
import io.ringflow.engine.api.functions.RuntimeContext;
import io.ringflow.engine.api.sink.Sink;
import io.ringflow.engine.api.sink.SinkWriter;
import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.state.checkpoint.DirectoryCheckpointStorage;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Timers are checkpointed with their keys: after a failure, and after a restore at another parallelism, every timer
 * fires and its effect on keyed state counts exactly once.
 */
class TimersRecoveryTest
{
    private static final long KEYS = 16;
    private static final long TOTAL = 6_000;

    /** A key and how many of its timers have fired, as keyed state says. */
    record Fired(long key, long count)
    {
    }

    /** One event-time timer per number, 5 after it; each firing counts in keyed state. Throws once when armed. */
    static final class CountFired extends KeyedProcessFunction<Long, Long, Fired>
    {
        private final AtomicBoolean armed;
        private ValueState<Long> fired;

        CountFired(final AtomicBoolean armed)
        {
            this.armed = armed;
        }

        @Override
        public void open(final RuntimeContext context)
        {
            fired = context.getState(new ValueStateDescriptor<>("fired", Long.class));
        }

        @Override
        public void processElement(final Long value, final Context<Long> ctx, final Collector<Fired> out)
        {
            if (armed.compareAndSet(true, false))
            {
                throw new IllegalStateException("injected failure at " + value);
            }
            ctx.timerService().registerEventTimeTimer(value + 5);
        }

        @Override
        public void onTimer(final long timestamp, final OnTimerContext<Long> ctx, final Collector<Fired> out)
        {
            final Long count = fired.value();
            final long now = count == null ? 1 : count + 1;
            fired.update(now);
            out.collect(new Fired(ctx.getCurrentKey(), now));
        }
    }

    /** The watermark trails each number by one: punctuated, no clock. */
    static final class TrailByOne implements WatermarkGenerator<Long>
    {
        @Override
        public void onEvent(final Long event, final long timestamp, final WatermarkOutput output)
        {
            output.emitWatermark(timestamp - 1);
        }

        @Override
        public void onPeriodicEmit(final WatermarkOutput output)
        {
        }
    }

    /** Keeps the latest count per key. */
    record LatestSink(Map<Long, Long> latest) implements Sink<Fired>
    {
        @Override
        public SinkWriter<Fired> createWriter(final SubtaskInfo subtask)
        {
            return value -> latest.merge(value.key(), value.count(), Math::max);
        }
    }

    private static void build(final JobEnvironment env, final GatedSource source, final AtomicBoolean armed,
        final Map<Long, Long> latest, final int parallelism)
    {
        env.fromSource(source, "numbers").uid("numbers")
            .assignTimestampsAndWatermarks(WatermarkStrategy.forGenerator(TrailByOne::new)
                .withTimestampAssigner((n, previous) -> n)).uid("stamps")
            .keyBy(n -> n % KEYS)
            .process(() -> new CountFired(armed)).returns(Fired.class).uid("count-fired").setParallelism(parallelism)
            .sinkTo(new LatestSink(latest)).uid("sink").setParallelism(parallelism);
    }

    private static void assertEveryTimerCountedOnce(final Map<Long, Long> latest)
    {
        assertThat(latest).hasSize((int)KEYS);
        for (long key = 0; key < KEYS; key++)
        {
            assertThat(latest.get(key)).as("key %d", key).isEqualTo(TOTAL / KEYS);
        }
    }

    enum Mode
    {
        ALIGNED, UNALIGNED, AT_LEAST_ONCE
    }

    @ParameterizedTest
    @EnumSource(TestBackends.class)
    void everyTimerFiresAndCountsOnceAcrossAFailure(final TestBackends backend) throws Exception
    {
        for (final Mode mode : Mode.values())
        {
            final GatedSource source = new GatedSource();
            final AtomicBoolean armed = new AtomicBoolean();
            final Map<Long, Long> latest = new ConcurrentHashMap<>();
            final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
                .stateBackend(backend.create())
                .checkpointingMode(mode == Mode.AT_LEAST_ONCE ? CheckpointingMode.AT_LEAST_ONCE :
                    CheckpointingMode.EXACTLY_ONCE)
                .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).unaligned(mode == Mode.UNALIGNED).build())
                .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO))
                .timerFiringBatch(7)
                .build());
            build(env, source, armed, latest, 2);
            try (JobHandle handle = env.execute("timers-" + backend + "-" + mode))
            {
                source.openUpTo(2_000);
                // watermark 1,998 (after number 1,999) fires the timers of 0 to 1,993
                Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() ->
                    latest.values().stream().mapToLong(Long::longValue).sum() == 1_994);
                handle.triggerCheckpoint().get(2, TimeUnit.MINUTES);
                armed.set(true);
                source.openUpTo(3_000);
                Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> handle.restartCount() == 1 &&
                    handle.status() == JobStatus.RUNNING);
                // before the end of the input: restored timers fire at their own time, not only at the final
                // watermark (watermark TOTAL - 2 after the last number fires the timers of 0 to TOTAL - 7)
                source.openUpTo(TOTAL);
                Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() ->
                    latest.values().stream().mapToLong(Long::longValue).sum() == TOTAL - 6);
                source.finishAt(TOTAL);
                TestJobs.awaitFinished(handle);
            }
            assertEveryTimerCountedOnce(latest);
        }
    }

    @ParameterizedTest
    @EnumSource(TestBackends.class)
    void timersFollowTheirKeysToAnotherParallelism(final TestBackends backend, @TempDir final Path dir)
        throws Exception
    {
        final GatedSource first = new GatedSource();
        final Map<Long, Long> latest = new ConcurrentHashMap<>();
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .stateBackend(backend.create())
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).storage(new DirectoryCheckpointStorage(dir))
                .build())
            .build());
        build(env, first, new AtomicBoolean(), latest, 2);
        final CompletedCheckpoint savepoint;
        try (JobHandle handle = env.execute("timers-rescale-" + backend))
        {
            first.openUpTo(2_000);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() ->
                latest.values().stream().mapToLong(Long::longValue).sum() == 1_994);
            savepoint = handle.stopWithSavepoint().get(2, TimeUnit.MINUTES);
            handle.awaitTermination(TestJobs.HANG_GUARD);
        }
        final GatedSource second = new GatedSource();
        final JobEnvironment restored = JobEnvironment.create(JobConfig.builder()
            .stateBackend(backend.create())
            .restoreFrom(dir.resolve("chk-" + savepoint.checkpointId())).build());
        build(restored, second, new AtomicBoolean(), latest, 3);
        try (JobHandle again = restored.execute("timers-rescaled-" + backend))
        {
            second.finishAt(TOTAL);
            TestJobs.awaitFinished(again);
        }
        assertEveryTimerCountedOnce(latest);
    }
}
