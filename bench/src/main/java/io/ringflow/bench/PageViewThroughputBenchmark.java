package io.ringflow.bench;

import io.ringflow.bench.PageViews.CountPerApp;
import io.ringflow.bench.PageViews.PageView;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CheckpointingMode;
import io.ringflow.engine.api.IdleStrategyKind;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.source.GeneratorSource;
import io.ringflow.engine.api.source.RecordGenerator;
import io.ringflow.state.chronicle.ChronicleStateConfig;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * End-to-end throughput of the page-view job, in records per second.
 *
 * <p><b>What is measured.</b> Each invocation builds the job, starts it, and waits until it has finished: a bounded
 * {@link GeneratorSource} makes {@code records} {@code PageView(appId = i % keys, timestamp)} records (record creation
 * is part of the cost, as in the real job), {@code keyBy(appId)} sends them through a ring to
 * {@link CountPerApp}, which counts per application in {@code ValueState<Long>} and emits an
 * {@code AppCount(appId, count)} per view into an {@link AppCountCheckingSink}. Parallelism 1.
 *
 * <pre>
 * chaining = true: 2 task threads, 1 ring
 *
 * +-------------+  keyBy(appId)    +--------------------------------------------+
 * | source      |   ring (SPSC)    | count (keyed ValueState)  -->  sink        |
 * | generator   |=================>| chained: AppCount passed as an object      |
 * +-------------+  PageView slots  +--------------------------------------------+
 *    thread 1                                         thread 2
 *
 * chaining = false: 3 task threads, 2 rings
 *
 * +-------------+   ring 1     +-------------+   ring 2     +-------------+
 * | source      |=============>| count       |=============>| sink        |
 * | generator   |   PageView   | ValueState  |   AppCount   | (checking)  |
 * +-------------+              +-------------+              +-------------+
 *    thread 1                     thread 2                     thread 3
 * </pre>
 *
 * <p><b>How.</b> {@code @OperationsPerInvocation(records)} makes the score records/s; the invocation is timed from
 * before the job is built until after its output is verified, so the figure includes starting the job (thread
 * creation, ring and state allocation, codec derivation, the sink's {@code long[keys]}). A one-record job takes
 * 1.5-5 ms with 1,000 keys and 6-12 ms with 1,000,000 keys (the sink's 8 MB array and its final sum make the
 * difference), measured on a busy 2-core machine: about 1% or less of an invocation of the default 10,000,000
 * records at up to 10 million records/s. Raise {@code records} to shrink it further.
 *
 * <p><b>Verification.</b> A score counts only if the whole job was done: the invocation throws, failing the run,
 * unless the job FINISHED, the sink received exactly {@code records} records, the final per-key counts add up to
 * {@code records}, and every key's counts arrived as 1, 2, 3, ... (see {@link AppCountCheckingSink}).
 *
 * <p><b>Parameters.</b> {@code keys} 1,000 (state fits in cache) and 1,000,000 (it does not); {@code chaining};
 * {@code idleStrategy} of the task threads. {@code records} (default 10,000,000) may be overridden only together with
 * JMH's operations per invocation: {@code -p records=N -opi N}; a mismatch fails the run. On a machine with fewer
 * cores than task threads, BUSY_SPIN and YIELD make the threads compete for cores: that is part of what is measured.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 5, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 5, timeUnit = TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {
    JvmFlags.XMS, JvmFlags.XMX, JvmFlags.PRE_TOUCH, JvmFlags.NO_CHRONICLE_ANALYTICS, JvmFlags.OPEN_LANG,
    JvmFlags.OPEN_REFLECT, JvmFlags.OPEN_IO, JvmFlags.OPEN_UTIL, JvmFlags.OPEN_NIO, JvmFlags.EXPORT_REF,
    JvmFlags.EXPORT_MISC, JvmFlags.EXPORT_NIO_CH, JvmFlags.EXPORT_SUN_MISC, JvmFlags.EXPORT_JAVAC_FILE,
    JvmFlags.OPEN_JAVAC})
@State(Scope.Benchmark)
public class PageViewThroughputBenchmark
{
    /** Records per invocation unless overridden (with {@code -p records=N -opi N}). */
    public static final int DEFAULT_RECORDS = 10_000_000;

    /** Number of applications (distinct keys). */
    @Param({"1000", "1000000"})
    public int keys;

    /** Whether count and sink are fused into one task. */
    @Param({"true", "false"})
    public boolean chaining;

    /** How idle task threads wait. */
    @Param({"BUSY_SPIN", "YIELD", "BACKOFF"})
    public IdleStrategyKind idleStrategy;

    /**
     * Checkpoint interval in ms; 0 for none. With an interval, each invocation must complete at least one checkpoint
     * or it fails (a figure counts only if the checkpoints were really taken).
     */
    @Param({"0"})
    public int checkpointIntervalMs;

    /** How barriers are handled at tasks with several inputs (matters only with checkpoints). */
    @Param({"EXACTLY_ONCE"})
    public CheckpointingMode checkpointingMode;

    /** Whether checkpoints are unaligned (needs EXACTLY_ONCE). */
    @Param({"false"})
    public boolean unaligned;

    /** Whether keyed state is checkpointed incrementally (deltas; the Chronicle backend). */
    @Param({"false"})
    public boolean incremental;

    /** Where the per-app counts live. */
    @Param({"HEAP"})
    public BackendChoice stateBackend;

    /**
     * Capacity of the Chronicle backend's hot-key front per value state, in keys; -1 (the backend's default) sizes it
     * from its heap budget, 64 MiB: about 2 million {@code Long} counters.
     */
    @Param({"-1"})
    public int hotKeys;

    /**
     * Whether the count is kept through {@code ValueState<Long>} (boxed value() and update(), as a job ported from
     * Flink) instead of the unboxed {@code LongValueState} view of the same state.
     */
    @Param({"false"})
    public boolean boxedState;

    /** Slots per ring channel; 0 for the engine's default. */
    @Param({"0"})
    public int ringSize;

    /** Bytes per ring slot, header included; 0 for the engine's default. */
    @Param({"0"})
    public int slotSize;

    /** Whether chains run on private class copies (the specialised path) or the shared classes (the general path). */
    @Param({"true"})
    public boolean specializeChains;

    /**
     * Where the counts go: CHECKING (in memory, every app's final count and number of updates checked) or FILE (the
     * exactly-once {@code TransactionalFileSink}, length-prefixed records in a fresh temporary directory per
     * invocation; the committed bytes are checked to hold exactly one record per view).
     */
    @Param({"CHECKING"})
    public String sink;

    /** Ring slots per burst of key hints to the count's state ({@code JobConfig.keyPrefetch}); 0 turns them off. */
    @Param({"" + JobConfig.DEFAULT_KEY_PREFETCH})
    public int keyPrefetch;

    /** Page views per invocation; must equal JMH's operations per invocation. */
    @Param({"" + DEFAULT_RECORDS})
    public int records;

    private JobConfig config;
    private RecordGenerator<PageView> generator;
    private java.nio.file.Path output;

    /** A fresh output directory for the FILE sink, outside the measured time. */
    @Setup(Level.Invocation)
    public void createOutput() throws java.io.IOException
    {
        if ("FILE".equals(sink))
        {
            output = java.nio.file.Files.createTempDirectory("ringflow-bench-output");
        }
    }

    /** Deletes the FILE sink's output, outside the measured time. */
    @org.openjdk.jmh.annotations.TearDown(Level.Invocation)
    public void deleteOutput() throws java.io.IOException
    {
        if (output != null)
        {
            try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.walk(output))
            {
                for (final java.nio.file.Path file : files.sorted(java.util.Comparator.reverseOrder()).toList())
                {
                    java.nio.file.Files.delete(file);
                }
            }
            output = null;
        }
    }

    /**
     * @param params injected by JMH, to check the operations per invocation.
     */
    @Setup(Level.Trial)
    public void setUp(final BenchmarkParams params)
    {
        BenchSupport.checkOperationsPerInvocation(params, records);
        final JobConfig.Builder builder = JobConfig.builder()
            .defaultParallelism(1)
            .chaining(chaining)
            .idleStrategy(idleStrategy)
            .specializeChains(specializeChains)
            .keyPrefetch(keyPrefetch)
            .checkpointingMode(checkpointingMode)
            .stateBackend(stateBackend.create(ChronicleStateConfig.defaults()
                .withExpectedEntriesPerState(Math.max(1_000, keys)).withHotKeysPerState(hotKeys)));
        if (checkpointIntervalMs > 0)
        {
            builder.checkpointing(CheckpointConfig.every(Duration.ofMillis(checkpointIntervalMs))
                .unaligned(unaligned).incremental(incremental).retained(3).build());
        }
        if (ringSize > 0)
        {
            builder.ringSize(ringSize);
        }
        if (slotSize > 0)
        {
            builder.slotSize(slotSize);
        }
        config = builder.build();
        generator = PageViews.generator(keys);
    }

    /**
     * Runs one bounded page-view job end to end and verifies its output.
     *
     * @return the number of records the sink received.
     * @throws Exception when the job failed or its output is incomplete.
     */
    @Benchmark
    @OperationsPerInvocation(DEFAULT_RECORDS)
    public long pageViewJob() throws Exception
    {
        final boolean toFile = "FILE".equals(sink);
        final AppCountCheckingSink checking = toFile ? null : new AppCountCheckingSink(keys);
        final JobEnvironment env = JobEnvironment.create(config);
        final io.ringflow.engine.api.source.Source<PageView> views =
            GeneratorSource.bounded(records, PageView.class, generator);
        // with checkpoints, the source ends only after one completed: a short run cannot end before any did
        final io.ringflow.engine.api.DataStream<PageViews.AppCount> counts =
            env.fromSource(checkpointIntervalMs > 0 ? new EndAfterCheckpointSource<>(views, 1) : views, "views")
                .keyBy(PageView::appId)
                .process(boxedState ? PageViews.BoxedCountPerApp::new : CountPerApp::new).name("count");
        if (toFile)
        {
            counts.sinkTo(io.ringflow.engine.api.sink.file.TransactionalFileSink.forRecords(output,
                io.ringflow.engine.api.sink.file.RecordEncoder.lengthPrefixed(
                    PageViews.AppCount.class)).build()).name("sink");
        }
        else
        {
            counts.sinkTo(checking).name("sink");
        }
        final int checkpoints = BenchSupport.runToCompletionCountingCheckpoints(env, "page-view-throughput");
        if (toFile)
        {
            verifyCommittedRecords(output, records);
        }
        else
        {
            checking.verify(records);
        }
        if (checkpointIntervalMs > 0 && checkpoints == 0)
        {
            throw new IllegalStateException("no checkpoint completed during the run: the figure would measure a " +
                "run without checkpoints");
        }
        return records;
    }

    /** An AppCount of two longs: a 4-byte length and 16 bytes, per record. */
    private static final long COMMITTED_RECORD_BYTES = 4 + 16;

    private static void verifyCommittedRecords(final java.nio.file.Path output, final long records)
        throws java.io.IOException
    {
        long bytes = 0;
        for (final java.nio.file.Path part : io.ringflow.engine.api.sink.file.CommittedOutput.parts(output))
        {
            bytes += java.nio.file.Files.size(part);
        }
        if (bytes != records * COMMITTED_RECORD_BYTES)
        {
            throw new IllegalStateException("the file sink committed " + bytes + " bytes, " +
                records * COMMITTED_RECORD_BYTES + " expected for " + records + " records");
        }
    }
}
