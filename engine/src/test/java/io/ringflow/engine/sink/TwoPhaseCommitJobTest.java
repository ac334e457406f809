package io.ringflow.engine.sink;

import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.DataStream;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.RestartStrategy;
import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.KeyedProcessFunction;
import io.ringflow.engine.api.functions.RuntimeContext;
import io.ringflow.engine.api.sink.file.CommittedOutput;
import io.ringflow.engine.api.sink.file.RecordEncoder;
import io.ringflow.engine.api.sink.file.TransactionalFileSink;
import io.ringflow.engine.api.source.GeneratorSource;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Whole jobs with a transactional file sink: bounded ends, stop with savepoint, resuming, one job per directory. */
class TwoPhaseCommitJobTest
{
    private static final long KEYS = 11;

    @TempDir
    Path dir;

    /** Counts per key; can be armed to throw once; counts records seen in this JVM. */
    static final class Count extends KeyedProcessFunction<Long, Long, String>
    {
        private final AtomicBoolean armed;
        private final AtomicLong seen;
        private ValueState<Long> count;

        Count(final AtomicBoolean armed, final AtomicLong seen)
        {
            this.armed = armed;
            this.seen = seen;
        }

        @Override
        public void open(final RuntimeContext context)
        {
            count = context.getState(new ValueStateDescriptor<>("count", Long.class, 0L));
        }

        @Override
        public void processElement(final Long value, final Context<Long> ctx, final Collector<String> out)
        {
            if (armed.compareAndSet(true, false))
            {
                throw new IllegalStateException("injected failure at record " + value);
            }
            seen.incrementAndGet();
            final long next = count.value() + 1;
            count.update(next);
            out.collect(ctx.getCurrentKey() + "," + next);
        }
    }

    private static JobHandle run(final JobConfig config, final GeneratorSource<Long> source, final Path output,
        final AtomicBoolean armed, final AtomicLong seen)
    {
        final JobEnvironment env = JobEnvironment.create(config);
        final DataStream<Long> numbers = env.fromSource(source, "numbers").uid("numbers");
        numbers.keyBy(n -> n % KEYS)
            .process(() -> new Count(armed, seen)).returns(String.class).uid("count").setParallelism(2)
            .sinkTo(TransactionalFileSink.forRecords(output, RecordEncoder.<String>textLines()).build())
            .uid("sink").setParallelism(2);
        return env.execute("two-phase-commit");
    }

    /** @return per key, the counts committed, in order. */
    private static Map<Long, List<Long>> committed(final Path output) throws IOException
    {
        final Map<Long, List<Long>> perKey = new HashMap<>();
        for (final String line : CommittedOutput.readLines(output))
        {
            final int comma = line.indexOf(',');
            perKey.computeIfAbsent(Long.parseLong(line.substring(0, comma)), k -> new ArrayList<>())
                .add(Long.parseLong(line.substring(comma + 1)));
        }
        return perKey;
    }

    /** Asserts the committed output is every key's counts 1..n in order, for the first {@code records} numbers. */
    private static void assertExactlyOnce(final Path output, final long records) throws IOException
    {
        final Map<Long, List<Long>> perKey = committed(output);
        for (long key = 0; key < KEYS; key++)
        {
            final long expected = records / KEYS + (key < records % KEYS ? 1 : 0);
            final List<Long> exact = new ArrayList<>();
            for (long c = 1; c <= expected; c++)
            {
                exact.add(c);
            }
            assertThat(perKey.getOrDefault(key, List.of())).as("key %d", key).isEqualTo(exact);
        }
    }

    private static List<String> hiddenParts(final Path output) throws IOException
    {
        try (Stream<Path> files = Files.list(output))
        {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(".part-")).toList();
        }
    }

    @Test
    void aBoundedJobWithoutCheckpointingCommitsEverythingBeforeItFinishes() throws Exception
    {
        final Path output = dir.resolve("out");
        final JobHandle job = run(JobConfig.builder().build(),
            GeneratorSource.bounded(5_000, Long.class, (i, nanos) -> i), output, new AtomicBoolean(),
            new AtomicLong());
        assertThat(job.termination().get(60, TimeUnit.SECONDS)).isEqualTo(JobStatus.FINISHED);
        assertExactlyOnce(output, 5_000);
        assertThat(hiddenParts(output)).isEmpty();
        assertThat(job.completedCheckpoints()).as("the sink asked for the checkpoint that released its output")
            .isNotEmpty();
        job.close();
    }

    @Test
    void stopWithSavepointCommitsTheSavepointsOutputAndARestoreContinuesExactly() throws Exception
    {
        final Path output = dir.resolve("out");
        final AtomicLong seen = new AtomicLong();
        final JobConfig config = JobConfig.builder().checkpointing(CheckpointConfig.every(Duration.ofMillis(20))
            .directory(dir.resolve("checkpoints")).build()).build();
        // at this rate the source would need 20 s to end: the savepoint always comes first
        final JobHandle first = run(config, GeneratorSource.bounded(1_000_000, Long.class, (i, nanos) -> i)
            .withRate(50_000), output, new AtomicBoolean(), seen);
        await().atMost(Duration.ofSeconds(60)).until(() -> seen.get() > 1_000);
        final CompletedCheckpoint savepoint = first.stopWithSavepoint().get(60, TimeUnit.SECONDS);
        first.termination().get(60, TimeUnit.SECONDS);
        final long cut = savepoint.sourcePositions().get("numbers").get(0);
        assertThat(cut).isBetween(1L, 999_999L);
        // everything before the savepoint's cut is committed when the job has stopped, nothing after it
        assertExactlyOnce(output, cut);
        first.close();

        final JobHandle second = run(config.toBuilder().restoreFrom(dir.resolve("checkpoints").resolve("chk-" + savepoint.checkpointId())).build(),
            GeneratorSource.bounded(1_000_000, Long.class, (i, nanos) -> i), output, new AtomicBoolean(),
            new AtomicLong());
        assertThat(second.termination().get(120, TimeUnit.SECONDS)).isEqualTo(JobStatus.FINISHED);
        assertExactlyOnce(output, 1_000_000);
        assertThat(hiddenParts(output)).isEmpty();
        second.close();
    }

    @Test
    void aFailedJobResumedFromItsCheckpointDirectoryCommitsExactlyOnce() throws Exception
    {
        final Path output = dir.resolve("out");
        final Path checkpoints = dir.resolve("checkpoints");
        final AtomicBoolean armed = new AtomicBoolean();
        final AtomicLong seen = new AtomicLong();
        final JobConfig config = JobConfig.builder().checkpointing(CheckpointConfig.every(Duration.ofMillis(10))
            .directory(checkpoints).build()).restartStrategy(RestartStrategy.none()).build();
        // at this rate the source would need 25 s to end: the armed failure always comes first
        final JobHandle crashed = run(config, GeneratorSource.bounded(1_000_000, Long.class, (i, nanos) -> i)
            .withRate(40_000), output, armed, seen);
        await().atMost(Duration.ofSeconds(60)).until(() -> seen.get() > 1_000);
        crashed.triggerCheckpoint().get(60, TimeUnit.SECONDS);
        armed.set(true);
        assertThat(crashed.termination().get(60, TimeUnit.SECONDS)).isEqualTo(JobStatus.FAILED);
        crashed.close();
        // a newer checkpoint folder that a crash left without metadata is skipped
        Files.createDirectories(checkpoints.resolve("chk-100000"));

        final JobHandle resumed = run(config.toBuilder().resumeFrom(checkpoints).build(),
            GeneratorSource.bounded(1_000_000, Long.class, (i, nanos) -> i), output, new AtomicBoolean(),
            new AtomicLong());
        assertThat(resumed.termination().get(120, TimeUnit.SECONDS)).isEqualTo(JobStatus.FINISHED);
        assertExactlyOnce(output, 1_000_000);
        assertThat(hiddenParts(output)).as("the failed attempt's transactions were aborted").isEmpty();
        resumed.close();
    }

    @Test
    void aRestartedSinksLastTransactionIsNamedByTheCheckpointThatHoldsIt() throws Exception
    {
        // checkpoints on demand only: the restarted attempt sees no barrier before its end of input, so its last
        // transaction gets the id of the checkpoint it asks for, never one the first attempt already committed
        final Path output = dir.resolve("out");
        final AtomicBoolean armed = new AtomicBoolean();
        final AtomicLong seen = new AtomicLong();
        final JobHandle job = run(JobConfig.builder().restartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO))
                .build(), GeneratorSource.bounded(200_000, Long.class, (i, nanos) -> i).withRate(50_000), output,
            armed, seen);
        await().atMost(Duration.ofSeconds(60)).until(() -> seen.get() > 1_000);
        job.triggerCheckpoint().get(60, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(60)).until(() -> !CommittedOutput.parts(output).isEmpty());
        armed.set(true);
        assertThat(job.termination().get(60, TimeUnit.SECONDS)).as("%s", job.failureCause())
            .isEqualTo(JobStatus.FINISHED);
        assertExactlyOnce(output, 200_000);
        job.close();
    }

    @Test
    void aCheckpointWhoseTransactionalSinkIsGoneIsRefusedOrItsTransactionsAbortedWithAWarning() throws Exception
    {
        final Path output = dir.resolve("out");
        final Path checkpoints = dir.resolve("checkpoints");
        final AtomicLong seen = new AtomicLong();
        final JobConfig config = JobConfig.builder().checkpointing(CheckpointConfig.every(Duration.ofDays(1))
            .directory(checkpoints).build()).build();
        final JobHandle first = run(config, GeneratorSource.bounded(1_000_000, Long.class, (i, nanos) -> i)
            .withRate(20_000), output, new AtomicBoolean(), seen);
        await().atMost(Duration.ofSeconds(60)).until(() -> seen.get() > 1_000);
        final CompletedCheckpoint checkpoint = first.triggerCheckpoint().get(60, TimeUnit.SECONDS);
        first.cancel();
        first.termination().get(60, TimeUnit.SECONDS);
        first.close();
        final Path folder = checkpoints.resolve("chk-" + checkpoint.checkpointId());

        // the same job without its file sink (uid "sink")
        final java.util.function.Function<JobConfig, JobHandle> withoutSink = c ->
        {
            final JobEnvironment env = JobEnvironment.create(c);
            env.fromSource(GeneratorSource.bounded(1_000_000, Long.class, (i, nanos) -> i), "numbers").uid("numbers")
                .keyBy(n -> n % KEYS)
                .process(() -> new Count(new AtomicBoolean(), new AtomicLong())).returns(String.class).uid("count")
                .setParallelism(2)
                .sinkTo(new io.ringflow.engine.api.sink.DiscardSink<>()).uid("discard").setParallelism(2);
            return env.execute("two-phase-commit-without-its-sink");
        };
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> withoutSink.apply(JobConfig.builder()
                .restoreFrom(folder).build()))
            .isInstanceOf(io.ringflow.engine.api.InvalidJobException.class).hasMessageContaining("sink");

        final java.util.List<String> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
        final java.util.logging.Logger logger = java.util.logging.Logger.getLogger(
            io.ringflow.engine.runtime.recovery.StateRestorer.class.getName());
        final java.util.logging.Handler handler = new java.util.logging.Handler()
        {
            @Override
            public void publish(final java.util.logging.LogRecord record)
            {
                warnings.add(record.getMessage());
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
        logger.addHandler(handler);
        try
        {
            final JobHandle second = withoutSink.apply(JobConfig.builder().restoreFrom(folder)
                .allowNonRestoredState(true).build());
            assertThat(second.termination().get(120, TimeUnit.SECONDS)).isEqualTo(JobStatus.FINISHED);
            second.close();
        }
        finally
        {
            logger.removeHandler(handler);
        }
        assertThat(warnings).anySatisfy(w -> assertThat(w).contains("uid 'sink'")
            .containsPattern("holds [1-9][0-9]* pre-committed transaction\\(s\\) of a transactional sink")
            .contains("aborted: never committed"));
    }

    @Test
    void resumingFromAnEmptyDirectoryStartsFromScratch() throws Exception
    {
        final Path output = dir.resolve("out");
        final JobHandle job = run(JobConfig.builder().resumeFrom(dir.resolve("no-checkpoints-yet")).build(),
            GeneratorSource.bounded(1_000, Long.class, (i, nanos) -> i), output, new AtomicBoolean(),
            new AtomicLong());
        assertThat(job.termination().get(60, TimeUnit.SECONDS)).isEqualTo(JobStatus.FINISHED);
        assertExactlyOnce(output, 1_000);
        job.close();
    }

    @Test
    void aSecondJobWritingTheSameDirectoryIsRefused() throws Exception
    {
        final Path output = dir.resolve("out");
        final JobHandle first = run(JobConfig.builder().build(),
            GeneratorSource.unbounded(Long.class, (i, nanos) -> i).withRate(1_000), output, new AtomicBoolean(),
            new AtomicLong());
        await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(output.resolve(".ringflow-sink.lock")));
        final JobHandle second = run(JobConfig.builder().restartStrategy(RestartStrategy.none()).build(),
            GeneratorSource.bounded(10, Long.class, (i, nanos) -> i), output, new AtomicBoolean(), new AtomicLong());
        assertThat(second.termination().get(60, TimeUnit.SECONDS)).isEqualTo(JobStatus.FAILED);
        assertThat(second.failureCause()).get().asString().contains(output.toString())
            .contains("in use by another job");
        first.cancel();
        first.termination().get(60, TimeUnit.SECONDS);
        first.close();
        second.close();
    }
}
