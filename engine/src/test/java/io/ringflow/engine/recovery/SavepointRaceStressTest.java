package io.ringflow.engine.recovery;

import io.ringflow.engine.TestBackends;
import io.ringflow.engine.TestJobs;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CheckpointException;
import io.ringflow.engine.api.CheckpointingMode;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.DataStream;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.RestartStrategy;
import io.ringflow.engine.api.functions.CheckpointedFunction;
import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.KeyedProcessFunction;
import io.ringflow.engine.api.functions.OperatorListState;
import io.ringflow.engine.api.functions.RuntimeContext;
import io.ringflow.engine.api.functions.StateInitializationContext;
import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.sink.Sink;
import io.ringflow.engine.api.sink.SinkWriter;
import io.ringflow.state.checkpoint.DirectoryCheckpointStorage;
import io.ringflow.state.keyed.MapState;
import io.ringflow.state.keyed.MapStateDescriptor;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Savepoints, checkpoints asked for by hand and periodic checkpoints racing each other, with injected failures,
 * cancels and stops with a savepoint at random points: the fault-injection job that found the savepoint races.
 *
 * <p>The job, at parallelism 3: numbers in three stripes, a map, two paths (filter + map for the even numbers, a
 * flatMap for the odd ones), their union, keyed by {@code n % 1000} into a stage with value, map and operator state,
 * to a sink; then a rebalance and a second keyed stage, by bucket, to a second sink. Both sinks keep the highest
 * count per key, so replayed output converges to the exact counts. Each seed draws the barrier mode (aligned,
 * unaligned, aligned with a timeout, at-least-once), the state backend, {@code maxConcurrent} 1 to 3 and a checkpoint
 * interval of 1 to 13 ms; the test thread then raises the source's limit step by step and, at random between steps,
 * triggers checkpoints and savepoints without waiting, injects a failure (exactly-once modes), or waits for progress.
 * It ends the run by finishing the input, cancelling, or stopping with a savepoint.
 *
 * <p>It asserts: no task fails but by an injected failure (every restart's cause is one); no savepoint or checkpoint
 * future stays pending (their timeout is an hour: a hang fails the test's hang guard), and each completes or fails
 * only for a reason the run explains (the job stopped or was restarting; a checkpoint may also be subsumed); no
 * warning about clean-up or anything else; exactly-once runs that finish have exact counts; and every completed
 * savepoint, restored at another parallelism of the keyed stages and run to the end, gives the exact counts.
 */
class SavepointRaceStressTest
{
    private static final int SOURCES = 3;
    private static final long KEYS = 1_000;
    private static final long BUCKETS = 7;
    private static final Duration NEVER = Duration.ofHours(1);
    private static final Set<CheckpointException.Reason> SAVEPOINT_MAY_FAIL = EnumSet.of(
        CheckpointException.Reason.JOB_STOPPED, CheckpointException.Reason.JOB_NOT_RUNNING,
        CheckpointException.Reason.JOB_RESTARTING);

    private final List<LogRecord> warnings = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler()
    {
        @Override
        public void publish(final LogRecord record)
        {
            if (record.getLevel().intValue() >= Level.WARNING.intValue())
            {
                warnings.add(record);
            }
        }

        @Override
        public void flush()
        {
        }

        @Override
        public void close()
        {
        }
    };

    @BeforeEach
    void captureWarnings()
    {
        Logger.getLogger("io.ringflow").addHandler(capture);
    }

    @AfterEach
    void stopCapturing()
    {
        Logger.getLogger("io.ringflow").removeHandler(capture);
    }

    /** How the test thread ends a run. */
    private enum Ending
    {
        FINISH, CANCEL, STOP_WITH_SAVEPOINT
    }

    /** A barrier mode to run. */
    private enum Mode
    {
        ALIGNED, UNALIGNED, ALIGNED_TIMEOUT, AT_LEAST_ONCE
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
    void savepointsAndCheckpointsInterleavedAtRandomNeverFailATaskAndEverySavepointRestoresExactly(final long seed,
        @TempDir final Path dir) throws Exception
    {
        final Random random = new Random(seed);
        final Mode mode = Mode.values()[(int)(seed % Mode.values().length)];
        final TestBackends backend = random.nextInt(3) == 0 ? TestBackends.CHRONICLE : TestBackends.HEAP;
        final int maxConcurrent = 1 + random.nextInt(3);
        final int intervalMillis = 1 + random.nextInt(13);
        final Ending ending = Ending.values()[random.nextInt(Ending.values().length)];
        final String configuration = "seed " + seed + ": " + mode + ", " + backend + ", maxConcurrent " +
            maxConcurrent + ", every " + intervalMillis + " ms, ending " + ending;

        final CheckpointConfig.Builder checkpoints = CheckpointConfig.every(Duration.ofMillis(intervalMillis))
            .maxConcurrent(maxConcurrent).timeout(NEVER).retained(2).retainOnCancel(true)
            .storage(new DirectoryCheckpointStorage(dir));
        switch (mode)
        {
            case UNALIGNED -> checkpoints.unaligned(true);
            case ALIGNED_TIMEOUT -> checkpoints.alignedTimeout(Duration.ofNanos(1 + random.nextInt(200_000)));
            default ->
            {
            }
        }
        final JobConfig.Builder config = JobConfig.builder().defaultParallelism(SOURCES).stateBackend(backend.create())
            .ringSize(16 << random.nextInt(4)).checkpointingMode(mode == Mode.AT_LEAST_ONCE ?
                CheckpointingMode.AT_LEAST_ONCE : CheckpointingMode.EXACTLY_ONCE)
            .restartStrategy(RestartStrategy.fixedDelay(1_000, Duration.ZERO));
        final boolean exactlyOnce = mode != Mode.AT_LEAST_ONCE;

        final RaceJob first = new RaceJob();
        final JobEnvironment env = JobEnvironment.create(config.checkpointing(checkpoints.build()).build());
        first.build(env, SOURCES);
        final List<CompletableFuture<CompletedCheckpoint>> savepoints = new ArrayList<>();
        final List<CompletableFuture<CompletedCheckpoint>> checkpointFutures = new ArrayList<>();
        int injected = 0;
        long limit = 0;
        final JobHandle handle = env.execute("savepoint-race-" + seed);
        try
        {
            for (int step = 0; step < 40; step++)
            {
                limit += 1 + random.nextInt(400);
                first.source.openUpTo(limit);
                final int dice = random.nextInt(100);
                if (dice < 30)
                {
                    checkpointFutures.add(handle.triggerCheckpoint());
                }
                else if (dice < 55)
                {
                    savepoints.add(handle.triggerSavepoint());
                }
                else if (dice < 62)
                {
                    savepoints.add(handle.triggerSavepoint());
                    checkpointFutures.add(handle.triggerCheckpoint());
                }
                else if (dice < 70 && exactlyOnce && !first.armed.get())
                {
                    first.armed.set(true);
                    injected++;
                }
                else if (dice < 85)
                {
                    final long reached = Math.min(limit, 1 + random.nextInt((int)limit));
                    Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> first.stageOneTotal() >= reached);
                }
            }
            final long total = limit;
            switch (ending)
            {
                case FINISH ->
                {
                    first.source.finishAt(total);
                    assertThat(handle.awaitTermination(TestJobs.HANG_GUARD)).as(configuration)
                        .isEqualTo(JobStatus.FINISHED);
                    if (exactlyOnce)
                    {
                        assertThat(first.exactFor(total)).as("failure-free counts, %s", configuration).isTrue();
                    }
                }
                case CANCEL ->
                {
                    handle.cancel();
                    assertThat(handle.awaitTermination(TestJobs.HANG_GUARD)).isEqualTo(JobStatus.CANCELED);
                }
                case STOP_WITH_SAVEPOINT ->
                {
                    savepoints.add(stopWithSavepoint(handle, configuration));
                    assertThat(handle.awaitTermination(TestJobs.HANG_GUARD)).isEqualTo(JobStatus.CANCELED);
                }
            }
        }
        finally
        {
            handle.close();
        }

        final List<CompletedCheckpoint> completedSavepoints = new ArrayList<>();
        for (final CompletableFuture<CompletedCheckpoint> savepoint : savepoints)
        {
            final CompletedCheckpoint done = outcome(savepoint, SAVEPOINT_MAY_FAIL, configuration);
            if (done != null)
            {
                assertThat(done.savepoint()).isTrue();
                assertThat(done.inFlightBytes()).as("a savepoint holds no channel state").isZero();
                completedSavepoints.add(done);
            }
        }
        final Set<CheckpointException.Reason> checkpointMayFail = EnumSet.copyOf(SAVEPOINT_MAY_FAIL);
        checkpointMayFail.add(CheckpointException.Reason.SUBSUMED);
        for (final CompletableFuture<CompletedCheckpoint> checkpoint : checkpointFutures)
        {
            outcome(checkpoint, checkpointMayFail, configuration);
        }
        assertThat(handle.restartCount()).as("restarts, %s", configuration).isLessThanOrEqualTo(injected);
        assertThat(first.fired.get()).isLessThanOrEqualTo(injected);
        for (final LogRecord warning : warnings)
        {
            final String text = warning.getMessage() + (warning.getThrown() == null ? "" : " " + warning.getThrown());
            assertThat(text).as("a warning in %s", configuration)
                .contains("failed; restart").contains("injected failure");
        }

        // every completed savepoint restores, at another parallelism of the keyed stages, to the exact result
        final long end = limit + 1_000;
        // the oldest and the newest: how many completed depends on the machine, the rule for choosing does not
        for (int sample = 0; sample < Math.min(2, completedSavepoints.size()); sample++)
        {
            final CompletedCheckpoint savepoint =
                completedSavepoints.get(sample == 0 ? 0 : completedSavepoints.size() - 1);
            final int keyedParallelism = 1 + random.nextInt(4);
            final RaceJob restored = new RaceJob();
            final JobEnvironment again = JobEnvironment.create(config.checkpointing(null)
                .checkpointingMode(CheckpointingMode.EXACTLY_ONCE)
                .restoreFrom(dir.resolve("chk-" + savepoint.checkpointId())).build());
            restored.build(again, keyedParallelism);
            try (JobHandle job = again.execute("savepoint-race-" + seed + "-restored-" + sample))
            {
                restored.source.finishAt(end);
                TestJobs.awaitFinished(job);
            }
            assertThat(restored.exactFor(end)).as("savepoint %d restored at keyed parallelism %d, %s",
                savepoint.checkpointId(), keyedParallelism, configuration).isTrue();
        }
    }

    /**
     * Stops with a savepoint; while the job is restarting after an injected failure the stop is refused, so it is
     * asked again once the job runs.
     */
    private static CompletableFuture<CompletedCheckpoint> stopWithSavepoint(final JobHandle handle,
        final String configuration) throws Exception
    {
        while (true)
        {
            final CompletableFuture<CompletedCheckpoint> stop = handle.stopWithSavepoint();
            try
            {
                stop.get(TestJobs.HANG_GUARD.toMinutes(), TimeUnit.MINUTES);
                return stop;
            }
            catch (final ExecutionException ex)
            {
                final Throwable cause = ex.getCause();
                assertThat(cause).as(configuration).isInstanceOf(CheckpointException.class);
                assertThat(((CheckpointException)cause).reason()).as(configuration)
                    .isIn(CheckpointException.Reason.JOB_RESTARTING, CheckpointException.Reason.JOB_STOPPED,
                        CheckpointException.Reason.JOB_NOT_RUNNING);
                // refused while restarting, or aborted by an injected failure: once the job runs again, ask again
                Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> handle.status() == JobStatus.RUNNING &&
                    ((io.ringflow.engine.runtime.JobRun)handle).currentAttempt().status() == JobStatus.RUNNING);
            }
        }
    }

    /**
     * @return the checkpoint, or null when it failed for one of the allowed reasons; fails the test on any other
     *     outcome, and when it is still pending after the hang guard.
     */
    private static CompletedCheckpoint outcome(final CompletableFuture<CompletedCheckpoint> future,
        final Set<CheckpointException.Reason> allowed, final String configuration) throws Exception
    {
        try
        {
            return future.get(TestJobs.HANG_GUARD.toMinutes(), TimeUnit.MINUTES);
        }
        catch (final ExecutionException | CompletionException ex)
        {
            final Throwable cause = ex.getCause();
            assertThat(cause).as(configuration).isInstanceOf(CheckpointException.class);
            assertThat(((CheckpointException)cause).reason()).as("%s: %s", configuration, cause.getMessage())
                .isIn(allowed);
            return null;
        }
    }

    /** The job, its two sinks' highest counts per key, and the failure switch. */
    static final class RaceJob
    {
        final StripedGatedSource source = new StripedGatedSource(SOURCES);
        final Map<Long, Long> stageOneCounts = new ConcurrentHashMap<>();
        final Map<Long, Long> stageTwoCounts = new ConcurrentHashMap<>();
        final AtomicBoolean armed = new AtomicBoolean();
        final AtomicInteger fired = new AtomicInteger();

        void build(final JobEnvironment env, final int keyedParallelism)
        {
            final DataStream<Long> numbers = env.fromSource(source, "numbers").uid("numbers");
            final DataStream<Long> mapped = numbers.map(n -> n).returns(Long.class).uid("identity");
            final DataStream<Long> evens = mapped.filter(n -> n % 2 == 0).uid("evens")
                .map(n -> n).returns(Long.class).uid("evens-mapped");
            final DataStream<Long> odds = mapped.<Long>flatMap((n, out) ->
            {
                if (n % 2 != 0)
                {
                    out.collect(n);
                }
            }).returns(Long.class).uid("odds");
            final DataStream<CountingJob.Count> stageOne = evens.union(odds)
                .keyBy(n -> n % KEYS)
                .process(() -> new StageOne(armed, fired))
                .returns(CountingJob.Count.class).uid("stage-one").setParallelism(keyedParallelism);
            stageOne.sinkTo(new MaxPerKey(stageOneCounts)).uid("sink-one");
            stageOne.rebalance().map(count -> count).returns(CountingJob.Count.class).uid("rebalanced")
                .keyBy(count -> count.key() % BUCKETS)
                .process(StageTwo::new).returns(CountingJob.Count.class).uid("stage-two")
                .setParallelism(keyedParallelism)
                .sinkTo(new MaxPerKey(stageTwoCounts)).uid("sink-two");
        }

        long stageOneTotal()
        {
            return stageOneCounts.values().stream().mapToLong(Long::longValue).sum();
        }

        /** @return whether both sinks hold the exact counts of the numbers below {@code total}. */
        boolean exactFor(final long total)
        {
            final Map<Long, Long> perBucket = new java.util.HashMap<>();
            for (long key = 0; key < KEYS; key++)
            {
                final long expected = total / KEYS + (key < total % KEYS ? 1 : 0);
                if (stageOneCounts.getOrDefault(key, 0L) != expected)
                {
                    return false;
                }
                perBucket.merge(key % BUCKETS, expected, Long::sum);
            }
            for (long bucket = 0; bucket < BUCKETS; bucket++)
            {
                if (stageTwoCounts.getOrDefault(bucket, 0L).longValue() != perBucket.getOrDefault(bucket, 0L))
                {
                    return false;
                }
            }
            return true;
        }
    }

    /**
     * Counts per key in a value state, and per key and residue {@code n % 4} in a map state whose sum must equal the
     * count (checked on every record: a torn restore fails the task); records processed in operator state.
     */
    static final class StageOne extends KeyedProcessFunction<Long, Long, CountingJob.Count>
        implements CheckpointedFunction
    {
        private final AtomicBoolean armed;
        private final AtomicInteger fired;
        private ValueState<Long> count;
        private MapState<Long, Long> byResidue;
        private OperatorListState<Long> processedState;
        private long processed;

        StageOne(final AtomicBoolean armed, final AtomicInteger fired)
        {
            this.armed = armed;
            this.fired = fired;
        }

        @Override
        public void initializeState(final StateInitializationContext context)
        {
            processedState = context.getListState("processed", Long.class);
            for (final long value : processedState.get())
            {
                processed += value;
            }
        }

        @Override
        public void open(final RuntimeContext context)
        {
            count = context.getState(new ValueStateDescriptor<>("count", Long.class, 0L));
            byResidue = context.getMapState(new MapStateDescriptor<>("by-residue", Long.class, Long.class));
        }

        @Override
        public void processElement(final Long value, final Context<Long> ctx, final Collector<CountingJob.Count> out)
        {
            if (armed.compareAndSet(true, false))
            {
                fired.incrementAndGet();
                throw new IllegalStateException("injected failure at " + value);
            }
            final long next = count.value() + 1;
            count.update(next);
            final Long residue = byResidue.get(value % 4);
            byResidue.put(value % 4, residue == null ? 1 : residue + 1);
            long sum = 0;
            for (final Long perResidue : byResidue.values())
            {
                sum += perResidue;
            }
            if (sum != next)
            {
                throw new AssertionError("key " + ctx.getCurrentKey() + ": map state sums to " + sum +
                    ", value state counts " + next);
            }
            processed++;
            out.collect(new CountingJob.Count(ctx.getCurrentKey(), next));
        }

        @Override
        public void snapshotState(final long checkpointId)
        {
            processedState.update(List.of(processed));
        }
    }

    /** Counts the first stage's outputs per bucket. */
    static final class StageTwo extends KeyedProcessFunction<Long, CountingJob.Count, CountingJob.Count>
    {
        private ValueState<Long> count;

        @Override
        public void open(final RuntimeContext context)
        {
            count = context.getState(new ValueStateDescriptor<>("count", Long.class, 0L));
        }

        @Override
        public void processElement(final CountingJob.Count value, final Context<Long> ctx,
            final Collector<CountingJob.Count> out)
        {
            final long next = count.value() + 1;
            count.update(next);
            out.collect(new CountingJob.Count(ctx.getCurrentKey(), next));
        }
    }

    /** Keeps the highest count per key. */
    record MaxPerKey(Map<Long, Long> counts) implements Sink<CountingJob.Count>
    {
        @Override
        public SinkWriter<CountingJob.Count> createWriter(final SubtaskInfo subtask)
        {
            return record -> counts.merge(record.key(), record.count(), Math::max);
        }
    }
}
