package io.ringflow.engine.sink;

import io.ringflow.engine.ForwardingCheckpointStorage;
import io.ringflow.engine.TestBackends;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CheckpointingMode;
import io.ringflow.engine.api.DataStream;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.RestartStrategy;
import io.ringflow.engine.api.functions.CheckpointedFunction;
import io.ringflow.engine.api.functions.CoProcessFunction;
import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.KeyedProcessFunction;
import io.ringflow.engine.api.functions.OperatorListState;
import io.ringflow.engine.api.functions.RuntimeContext;
import io.ringflow.engine.api.functions.StateInitializationContext;
import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.sink.Committer;
import io.ringflow.engine.api.sink.TransactionalWriter;
import io.ringflow.engine.api.sink.TwoPhaseCommitSink;
import io.ringflow.engine.api.sink.file.CommittedOutput;
import io.ringflow.engine.api.sink.file.FileCommittable;
import io.ringflow.engine.api.sink.file.RecordEncoder;
import io.ringflow.engine.api.sink.file.TransactionalFileSink;
import io.ringflow.engine.api.source.GeneratorSource;
import io.ringflow.state.checkpoint.CheckpointMetadata;
import io.ringflow.state.checkpoint.DirectoryCheckpointStorage;
import io.ringflow.state.checkpoint.StateOutput;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The end-to-end exactly-once proof in the test tree: generator, keyBy, a running count per key (value state) and a
 * transactional file sink, with faults drawn from a seed (a user function throws, the synchronous snapshot throws, a
 * sink write throws, a pre-commit throws, a commit keeps failing past its retries, a task thread's user code throws an
 * Error, a state file cannot be written by the asynchronous flush, a checkpoint's metadata cannot be committed), on a
 * line, a diamond and a two-input job whose inputs run at different speeds. The committed output must be exactly the failure-free output: every key's counts 1, 2, ..., n in order,
 * no gap, no duplicate. In at-least-once mode nothing may be lost; duplicates are counted.
 *
 * <p>The faults fire on record and call counts, never on time; how many checkpoints complete between them varies from
 * run to run, and the assertions hold for every interleaving.
 */
class ExactlyOnceFileSinkTest
{
    private static final long RECORDS = 8_000;
    /** Seeds per combination of mode, backend, parallelism and shape; {@code -Dringflow.faults.seeds=N} for more. */
    private static final int SEEDS = Integer.getInteger("ringflow.faults.seeds", 3);
    private static final long KEYS = 37;

    enum Mode
    {
        ALIGNED, UNALIGNED, ALIGNED_TIMEOUT, AT_LEAST_ONCE
    }

    enum Shape
    {
        /** source → keyBy → count → sink. */
        LINE,
        /** source split into two filtered paths, unioned back before the keyBy. */
        DIAMOND,
        /** even and odd numbers from two sources at different speeds, keyed on both sides of a co-process count. */
        TWO_INPUTS
    }

    static Stream<Arguments> cases()
    {
        final List<Arguments> cases = new ArrayList<>();
        long seed = 1;
        for (final Mode mode : Mode.values())
        {
            for (final TestBackends backend : TestBackends.values())
            {
                for (final int parallelism : new int[] {1, 3})
                {
                    for (final Shape shape : Shape.values())
                    {
                        for (int i = 0; i < SEEDS; i++)
                        {
                            cases.add(Arguments.of(seed++, mode, backend, parallelism, shape));
                        }
                    }
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "seed {0}: {1}, {2}, parallelism {3}, {4}")
    @MethodSource("cases")
    void committedOutputIsTheFailureFreeOutput(final long seed, final Mode mode, final TestBackends backend,
        final int parallelism, final Shape shape, @TempDir final Path dir) throws Exception
    {
        final Faults faults = Faults.draw(seed);
        final Path output = dir.resolve("out");
        final JobHandle job = build(mode, backend, parallelism, shape, output, faults, dir.resolve("checkpoints"));
        final JobStatus status = job.termination().get(120, TimeUnit.SECONDS);
        assertThat(status).as("%s, failure %s", faults, job.failureCause().orElse(null))
            .isEqualTo(JobStatus.FINISHED);

        final Map<Long, List<Long>> perKey = new HashMap<>();
        for (final String line : CommittedOutput.readLines(output))
        {
            final int comma = line.indexOf(',');
            perKey.computeIfAbsent(Long.parseLong(line.substring(0, comma)), k -> new ArrayList<>())
                .add(Long.parseLong(line.substring(comma + 1)));
        }
        long duplicates = 0;
        for (long key = 0; key < KEYS; key++)
        {
            final long expected = RECORDS / KEYS + (key < RECORDS % KEYS ? 1 : 0);
            final List<Long> counts = perKey.getOrDefault(key, List.of());
            if (mode == Mode.AT_LEAST_ONCE)
            {
                // nothing lost: every count 1..n appears. Replays may repeat some, and since barriers do not align,
                // a restored count may already hold records the sources replay, so counts may go past n
                final java.util.Set<Long> seen = new java.util.HashSet<>(counts);
                for (long c = 1; c <= expected; c++)
                {
                    assertThat(seen).as("key %d, %s", key, faults).contains(c);
                }
                duplicates += counts.size() - expected;
                continue;
            }
            final List<Long> exact = new ArrayList<>();
            for (long c = 1; c <= expected; c++)
            {
                exact.add(c);
            }
            assertThat(counts).as("key %d, %s", key, faults).isEqualTo(exact);
        }
        if (mode == Mode.AT_LEAST_ONCE)
        {
            System.out.printf("seed %d, at-least-once: %d update(s) more than the failure-free run (records replayed into state or output), nothing lost%n", seed,
                duplicates);
        }
        try (Stream<Path> files = Files.list(output))
        {
            assertThat(files.map(p -> p.getFileName().toString()))
                .as("no pending or in-progress part is left once the job finished")
                .noneMatch(name -> name.endsWith(".pending") || name.endsWith(".inprogress"));
        }
        job.close();
    }

    private static JobHandle build(final Mode mode, final TestBackends backend, final int parallelism,
        final Shape shape, final Path output, final Faults faults, final Path checkpoints)
    {
        final CheckpointConfig.Builder checkpointing;
        try
        {
            checkpointing = CheckpointConfig.every(Duration.ofMillis(3))
                .tolerableFailures(Integer.MAX_VALUE)
                .storage(new FaultyStorage(new DirectoryCheckpointStorage(checkpoints), faults));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        if (mode == Mode.UNALIGNED)
        {
            checkpointing.unaligned(true);
        }
        else if (mode == Mode.ALIGNED_TIMEOUT)
        {
            checkpointing.alignedTimeout(Duration.ofNanos(1));
        }
        final JobConfig config = JobConfig.builder()
            .stateBackend(backend.create())
            .checkpointing(checkpointing.build())
            .checkpointingMode(mode == Mode.AT_LEAST_ONCE ? CheckpointingMode.AT_LEAST_ONCE :
                CheckpointingMode.EXACTLY_ONCE)
            .restartStrategy(RestartStrategy.fixedDelay(50, Duration.ZERO))
            .ringSize(64)
            .build();
        final JobEnvironment env = JobEnvironment.create(config);
        final DataStream<String> counts = shape == Shape.TWO_INPUTS ? twoInputCounts(env, faults, parallelism) :
            oneInputCounts(env, faults, parallelism, shape);
        counts.sinkTo(new FaultySink(TransactionalFileSink.forRecords(output, RecordEncoder.<String>textLines())
                .maxPartBytes(4096).build(), faults))
            .uid("sink")
            .setParallelism(parallelism);
        return env.execute("exactly-once-" + mode);
    }

    private static DataStream<String> oneInputCounts(final JobEnvironment env, final Faults faults,
        final int parallelism, final Shape shape)
    {
        final DataStream<Long> numbers = env.fromSource(
            GeneratorSource.bounded(RECORDS, Long.class, (i, nanos) -> i).withRate(100_000), "numbers")
            .uid("numbers");
        final DataStream<Long> keyedInput = shape == Shape.LINE ? numbers :
            numbers.filter(n -> n % 2 == 0).uid("even").union(numbers.filter(n -> n % 2 == 1).uid("odd"));
        return keyedInput.keyBy(n -> n % KEYS)
            .process(() -> new CountPerKey(faults))
            .returns(String.class)
            .uid("count")
            .setParallelism(parallelism);
    }

    /** Even numbers at 80,000/s against odd ones at 20,000/s: one input runs four times ahead of the other. */
    private static DataStream<String> twoInputCounts(final JobEnvironment env, final Faults faults,
        final int parallelism)
    {
        final DataStream<Long> evens = env.fromSource(GeneratorSource.bounded(RECORDS / 2, Long.class,
            (i, nanos) -> 2 * i).withRate(80_000), "evens").uid("evens");
        final DataStream<Long> odds = env.fromSource(GeneratorSource.bounded(RECORDS / 2, Long.class,
            (i, nanos) -> 2 * i + 1).withRate(20_000), "odds").uid("odds");
        return evens.keyBy(n -> n % KEYS).connect(odds.keyBy(n -> n % KEYS))
            .process(() -> new CountBothInputs(faults))
            .returns(String.class)
            .uid("count")
            .setParallelism(parallelism);
    }

    /** Faults drawn from a seed, each firing once, on counts of records or calls. */
    static final class Faults
    {
        final long seed;
        final long userFunctionAt;
        final long snapshotAt;
        final long sinkWriteAt;
        final long preCommitAt;
        final long commitAt;
        final long errorAt;
        final long stateWriteAt;
        final long metadataWriteAt;
        final AtomicLong errors = new AtomicLong();
        final AtomicLong stateWrites = new AtomicLong();
        final AtomicLong metadataWrites = new AtomicLong();
        final AtomicLong records = new AtomicLong();
        final AtomicLong snapshots = new AtomicLong();
        final AtomicLong writes = new AtomicLong();
        final AtomicLong preCommits = new AtomicLong();
        final AtomicLong commits = new AtomicLong();
        /** Commit calls left to fail; set when the commit fault fires, more than the operator's retries. */
        final AtomicLong failingCommits = new AtomicLong();

        private Faults(final long seed)
        {
            this.seed = seed;
            final SplittableRandom random = new SplittableRandom(seed);
            // -1: that fault does not fire in this case
            userFunctionAt = random.nextInt(3) == 0 ? -1 : random.nextLong(1, RECORDS);
            snapshotAt = random.nextInt(3) == 0 ? -1 : random.nextLong(1, 8);
            sinkWriteAt = random.nextInt(3) == 0 ? -1 : random.nextLong(1, RECORDS);
            preCommitAt = random.nextInt(3) == 0 ? -1 : random.nextLong(1, 12);
            commitAt = random.nextInt(3) == 0 ? -1 : random.nextLong(1, 6);
            errorAt = random.nextInt(3) == 0 ? -1 : random.nextLong(1, RECORDS);
            stateWriteAt = random.nextInt(3) == 0 ? -1 : random.nextLong(1, 20);
            metadataWriteAt = random.nextInt(3) == 0 ? -1 : random.nextLong(1, 8);
        }

        static Faults draw(final long seed)
        {
            return new Faults(seed);
        }

        static void fire(final AtomicLong counter, final long at, final String what)
        {
            if (at > 0 && counter.incrementAndGet() == at)
            {
                throw new IllegalStateException("injected fault: " + what + " #" + at);
            }
        }

        @Override
        public String toString()
        {
            return "faults of seed " + seed + " (user function at record " + userFunctionAt + ", snapshot #" +
                snapshotAt + ", sink write #" + sinkWriteAt + ", pre-commit #" + preCommitAt + ", commit #" +
                commitAt + ", error at record " + errorAt + ", state file #" + stateWriteAt + ", metadata #" +
                metadataWriteAt + ")";
        }
    }

    /** A running count per key in value state, emitted as "key,count"; records processed in operator state. */
    static final class CountPerKey extends KeyedProcessFunction<Long, Long, String> implements CheckpointedFunction
    {
        private final Faults faults;
        private ValueState<Long> count;
        private OperatorListState<Long> processedState;
        private long processed;

        CountPerKey(final Faults faults)
        {
            this.faults = faults;
        }

        @Override
        public void initializeState(final StateInitializationContext context)
        {
            processedState = context.getListState("processed", Long.class);
        }

        @Override
        public void open(final RuntimeContext context)
        {
            count = context.getState(new ValueStateDescriptor<>("count", Long.class, 0L));
        }

        @Override
        public void processElement(final Long value, final Context<Long> ctx, final Collector<String> out)
        {
            Faults.fire(faults.records, faults.userFunctionAt, "user function");
            if (faults.errorAt > 0 && faults.errors.incrementAndGet() == faults.errorAt)
            {
                // an Error, not an Exception: what kills a thread (the task catches it and fails the attempt)
                throw new AssertionError("injected fault: the task thread dies at record " + value);
            }
            final long next = count.value() + 1;
            count.update(next);
            processed++;
            out.collect(ctx.getCurrentKey() + "," + next);
        }

        @Override
        public void snapshotState(final long checkpointId)
        {
            Faults.fire(faults.snapshots, faults.snapshotAt, "synchronous snapshot");
            processedState.update(List.of(processed));
        }
    }

    /** Counts per key over both inputs of a keyed co-process function: one state per key, shared by the inputs. */
    static final class CountBothInputs extends CoProcessFunction<Long, Long, String>
    {
        private final Faults faults;
        private ValueState<Long> count;

        CountBothInputs(final Faults faults)
        {
            this.faults = faults;
        }

        @Override
        public void open(final RuntimeContext context)
        {
            count = context.getState(new ValueStateDescriptor<>("count", Long.class, 0L));
        }

        @Override
        public void processElement1(final Long value, final Collector<String> out)
        {
            process(value, out);
        }

        @Override
        public void processElement2(final Long value, final Collector<String> out)
        {
            process(value, out);
        }

        private void process(final Long value, final Collector<String> out)
        {
            Faults.fire(faults.records, faults.userFunctionAt, "user function");
            final long next = count.value() + 1;
            count.update(next);
            out.collect(value % KEYS + "," + next);
        }
    }

    /** Directory storage whose n-th state file, and n-th metadata commit, fail to be written. */
    static final class FaultyStorage extends ForwardingCheckpointStorage
    {
        private final Faults faults;

        FaultyStorage(final DirectoryCheckpointStorage delegate, final Faults faults)
        {
            super(delegate);
            this.faults = faults;
        }

        private void stateWrite() throws IOException
        {
            if (faults.stateWriteAt > 0 && faults.stateWrites.incrementAndGet() == faults.stateWriteAt)
            {
                throw new IOException("injected fault: the asynchronous flush of state file #" + faults.stateWriteAt);
            }
        }

        @Override
        public StateOutput createStateOutput(final long checkpointId, final String name) throws IOException
        {
            stateWrite();
            return super.createStateOutput(checkpointId, name);
        }

        @Override
        public StateOutput createSharedStateOutput(final long checkpointId, final String name) throws IOException
        {
            stateWrite();
            return super.createSharedStateOutput(checkpointId, name);
        }

        @Override
        public void commit(final CheckpointMetadata metadata) throws IOException
        {
            if (faults.metadataWriteAt > 0 && faults.metadataWrites.incrementAndGet() == faults.metadataWriteAt)
            {
                throw new IOException("injected fault: committing checkpoint " + metadata.checkpointId());
            }
            super.commit(metadata);
        }

        @Override
        public String describe()
        {
            return "faulty " + super.describe();
        }
    }

    /** A transactional file sink whose writer and committer fail as the faults say. */
    record FaultySink(TransactionalFileSink<String> inner, Faults faults)
        implements TwoPhaseCommitSink<String, FileCommittable>
    {
        @Override
        public TransactionalWriter<String, FileCommittable> createWriter(final SubtaskInfo subtask) throws Exception
        {
            final TransactionalWriter<String, FileCommittable> writer = inner.createWriter(subtask);
            return new TransactionalWriter<>()
            {
                @Override
                public void write(final String record) throws Exception
                {
                    Faults.fire(faults.writes, faults.sinkWriteAt, "sink write");
                    writer.write(record);
                }

                @Override
                public List<FileCommittable> preCommit(final long checkpointId) throws Exception
                {
                    Faults.fire(faults.preCommits, faults.preCommitAt, "pre-commit");
                    return writer.preCommit(checkpointId);
                }

                @Override
                public void close() throws Exception
                {
                    writer.close();
                }
            };
        }

        @Override
        public Committer<FileCommittable> createCommitter(final SubtaskInfo subtask) throws Exception
        {
            final Committer<FileCommittable> committer = inner.createCommitter(subtask);
            return new Committer<>()
            {
                @Override
                public void commit(final FileCommittable committable, final long checkpointId) throws Exception
                {
                    if (faults.commitAt > 0 && faults.commits.incrementAndGet() == faults.commitAt)
                    {
                        // more failures in a row than the operator retries: the attempt fails, the restored
                        // checkpoint commits it again
                        faults.failingCommits.set(6);
                    }
                    if (faults.failingCommits.getAndUpdate(n -> Math.max(0, n - 1)) > 0)
                    {
                        throw new IOException("injected fault: commit of " + committable.committedFile());
                    }
                    committer.commit(committable, checkpointId);
                }

                @Override
                public void abortLeftovers(final String currentAttemptId) throws Exception
                {
                    committer.abortLeftovers(currentAttemptId);
                }
            };
        }

        @Override
        public Class<FileCommittable> committableType()
        {
            return FileCommittable.class;
        }
    }
}
