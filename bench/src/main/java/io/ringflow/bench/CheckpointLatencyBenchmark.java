package io.ringflow.bench;

import io.ringflow.engine.api.CheckpointingMode;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.DataStream;
import io.ringflow.engine.api.IdleStrategyKind;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.sink.DiscardSink;
import io.ringflow.engine.api.source.GeneratorSource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Checkpoint latency: from {@code JobHandle.triggerCheckpoint()} to the checkpoint's completion, i.e. the barrier
 * injected at the source, carried through {@code depth} ring hops, every task's synchronous snapshot and
 * acknowledgement, and the commit of the metadata: to the in-memory storage (same bytes as on disk, no fsync) or,
 * with {@code storage=DIRECTORY}, to a directory (write, fsync, rename, fsync the folder) under the JVM's temporary
 * directory. One job runs for the whole trial; each invocation is one checkpoint.
 *
 * <pre>
 * source --ring--> map 1 --ring--> map 2 ... --ring--> map depth (+ sink, chained)
 *   thread 1        thread 2                            thread depth+1
 * </pre>
 *
 * <p>{@code load}: IDLE (the sources emit 1,000 records/s in total: the rings are empty, this is the pure barrier
 * path) or SATURATED (as fast as possible: the barrier queues behind full rings). {@code fanIn} parallel source
 * subtasks feed the first map, which then aligns (or, unaligned, overtakes) that many barriers.
 * {@code checkpointingMode} and {@code unaligned} choose the barrier handling. Verified: every invocation returns a
 * completed checkpoint that recorded a position for every source subtask, and the job must still be RUNNING at the
 * end of the trial.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 3, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 3, timeUnit = TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {
    JvmFlags.XMS, JvmFlags.XMX, JvmFlags.PRE_TOUCH, JvmFlags.NO_CHRONICLE_ANALYTICS, JvmFlags.OPEN_LANG,
    JvmFlags.OPEN_REFLECT, JvmFlags.OPEN_IO, JvmFlags.OPEN_UTIL, JvmFlags.OPEN_NIO, JvmFlags.EXPORT_REF,
    JvmFlags.EXPORT_MISC, JvmFlags.EXPORT_NIO_CH, JvmFlags.EXPORT_SUN_MISC, JvmFlags.EXPORT_JAVAC_FILE,
    JvmFlags.OPEN_JAVAC})
@State(Scope.Benchmark)
public class CheckpointLatencyBenchmark
{
    /** Whether records flow while checkpoints are taken. */
    public enum Load
    {
        /** 1,000 records/s: empty rings. */
        IDLE,
        /** As fast as possible: full rings. */
        SATURATED
    }

    /** Ring hops between the source and the last operator. */
    @Param({"1", "3", "5"})
    public int depth;

    /** Records flowing or not. */
    @Param({"IDLE", "SATURATED"})
    public Load load;

    /** How idle task threads wait. */
    @Param({"BLOCK", "BACKOFF"})
    public IdleStrategyKind idleStrategy;

    /** Barrier handling at tasks. */
    @Param({"EXACTLY_ONCE"})
    public CheckpointingMode checkpointingMode;

    /** With EXACTLY_ONCE: whether barriers overtake queued records (unaligned checkpoints). */
    @Param({"false"})
    public boolean unaligned;

    /** Parallel source subtasks feeding the first map: its input channels, each with its own barrier. */
    @Param({"1"})
    public int fanIn;

    /** Where checkpoints are committed: in memory, or a directory (write, fsync, rename, fsync). */
    @Param({"MEMORY"})
    public String storage;

    private JobHandle job;
    private java.nio.file.Path directory;

    /** Starts the pipeline. */
    @Setup(Level.Trial)
    public void start()
    {
        final JobConfig.Builder config = JobConfig.builder()
            .idleStrategy(idleStrategy).checkpointingMode(checkpointingMode).chaining(true)
            // the figures of docs/benchmarks.md were taken with the heap backend; the backend is not the subject here
            .stateBackend(new io.ringflow.state.heap.HeapStateBackend());
        final io.ringflow.engine.api.CheckpointConfig.Builder checkpoints =
            io.ringflow.engine.api.CheckpointConfig.every(java.time.Duration.ofDays(1)).unaligned(unaligned);
        if ("DIRECTORY".equals(storage))
        {
            try
            {
                directory = java.nio.file.Files.createTempDirectory("ringflow-checkpoint-latency");
                checkpoints.storage(new io.ringflow.state.checkpoint.DirectoryCheckpointStorage(directory));
            }
            catch (final java.io.IOException ex)
            {
                throw new java.io.UncheckedIOException(ex);
            }
        }
        else if (!"MEMORY".equals(storage))
        {
            throw new IllegalArgumentException("storage must be MEMORY or DIRECTORY, was " + storage);
        }
        config.checkpointing(checkpoints.build());
        final JobEnvironment env = JobEnvironment.create(config.build());
        final GeneratorSource<Long> numbers = GeneratorSource.unbounded(Long.class, (i, t) -> i);
        DataStream<Long> stream = env.fromSource(load == Load.IDLE ? numbers.withRate(1_000) : numbers, "numbers")
            .uid("numbers").setParallelism(fanIn);
        for (int hop = 1; hop <= depth; hop++)
        {
            stream = stream.rebalance().map(n -> n + 1).name("map-" + hop).setParallelism(1);
        }
        stream.sinkTo(new DiscardSink<>()).name("sink");
        job = env.execute("checkpoint-latency");
    }

    /**
     * @return the completed checkpoint.
     * @throws Exception when the checkpoint was aborted or took longer than a minute.
     */
    @Benchmark
    public CompletedCheckpoint checkpoint() throws Exception
    {
        final CompletedCheckpoint done = job.triggerCheckpoint().get(1, TimeUnit.MINUTES);
        final List<Long> positions = done.sourcePositions().get("numbers");
        if (positions == null || positions.size() != fanIn || positions.stream().anyMatch(position -> position < 0))
        {
            throw new IllegalStateException("checkpoint " + done.checkpointId() + " recorded no source position");
        }
        return done;
    }

    /** Stops the pipeline; it must still have been running. */
    @TearDown(Level.Trial)
    public void stop()
    {
        final JobStatus status = job.status();
        job.close();
        if (directory != null)
        {
            try (java.util.stream.Stream<java.nio.file.Path> paths = java.nio.file.Files.walk(directory))
            {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
            catch (final java.io.IOException ignored)
            {
                // a temporary directory; the OS cleans it eventually
            }
        }
        if (status != JobStatus.RUNNING)
        {
            throw new IllegalStateException("the pipeline was " + status + " before the end of the trial: " +
                job.failureCause().map(Throwable::toString).orElse("no cause"));
        }
    }
}
