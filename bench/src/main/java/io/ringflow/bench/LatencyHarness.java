package io.ringflow.bench;

import io.ringflow.bench.PageViews.PageView;
import io.ringflow.bench.PageViews.TimedAppCount;
import io.ringflow.bench.PageViews.TimedCountPerApp;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CheckpointingMode;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.IdleStrategyKind;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobExecutionException;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.sink.Sink;
import io.ringflow.engine.api.sink.SinkWriter;
import io.ringflow.engine.api.source.GeneratorSource;
import io.ringflow.engine.api.source.RecordGenerator;
import io.ringflow.engine.metrics.JobThreadAllocation;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * End-to-end latency of the page-view job at a fixed offered rate, corrected for coordinated omission, next to the
 * floor: a bare Disruptor hop at the same rate. A plain {@code main}, not JMH: latency at a fixed rate is a
 * distribution over one long run, not a score per invocation.
 *
 * <pre>
 * 1. Ringflow page-view job, parallelism 1, at a fixed rate
 *
 * +------------------+  keyBy(appId)  +------------------------------------------------+
 * | GeneratorSource  |   ring (SPSC)  | count (keyed ValueState) --> latency sink      |
 * | .withRate(r)     |===============>| (chained unless --chaining false, which puts   |
 * | stamps each view |    PageView    |  a second ring between count and sink)         |
 * | with its due time|                | histogram of nanoTime() - view's due time      |
 * +------------------+                +------------------------------------------------+
 *
 * 2. Floor: bare Disruptor one hop at the same rate, both threads busy-spinning
 *
 * +----------------------+    OffHeapRing (1024 x 16 B off-heap)    +------------------------+
 * | producer thread      |----------------------------------------->| consumer thread        |
 * | spins until slot i is|   one event per due time: (i, due_i)     | histogram of           |
 * | due, publishes it    |                                          | nanoTime() - due_i     |
 * +----------------------+                                          +------------------------+
 * </pre>
 *
 * <p><b>What is measured.</b> Record {@code i} is due at {@code t0 + i * period} ({@code period = 1 s / rate}); the
 * Ringflow generator stamps each page view with that due time, not the time it was made, and the count function
 * carries it on. The sink records {@code System.nanoTime() - due} into an HdrHistogram (one single-writer histogram
 * per sink subtask, read by the main thread once the job has stopped). If anything stalls (GC, a full ring, a parked
 * thread, the source falling behind), the records due during the stall are late by the time they waited for their
 * turn, and the histogram shows it: this is the coordinated-omission correction. The floor does the same with a
 * producer thread that spins until each record is due and publishes it, catching up at once if late. Records due in
 * the first {@code --warmup-seconds} after the first record are recorded into a histogram of their own, which is
 * dropped; records due in the following {@code --seconds} are the result (the same code path in both, so that the
 * window's opening does not deoptimize the record loop). Percentiles are printed in microseconds, with the achieved
 * rate: records that reached the sink during the measurement window, divided by its length.
 *
 * <p><b>What is checked</b> (the run prints {@code [FAIL]} and exits with status 1 if a check fails):
 * <ul>
 *   <li>Order, loss and state (per record, Ringflow): from {@code AppCount(app, count)} the sink reconstructs the
 *       view's index {@code (count - 1) * keys + app}; it must be 0, 1, 2, ... with no gap, duplicate or reordering
 *       (one source subtask, FIFO rings), and due times must never go backwards. So the delivered records are
 *       exactly the first M generated views, each counted right. The final per-app counts must also sum to M.</li>
 *   <li>Completeness of the window: every record due in the measurement window reached the sink before the job was
 *       stopped (the sink saw a record due after the window), so no late sample was cut off.</li>
 *   <li>Records generated up to the cancel point: with the default unbounded source, the job is cancelled after the
 *       window; records still in the rings at that moment are lost by design, so the check is that the generator's
 *       count G (read after the job stopped) satisfies {@code M <= G <= M + rings * ringSize + readBatch}. With
 *       {@code --bounded}, the source is bounded to (warm-up + measurement) x rate records plus a 1% tail, the job
 *       runs to FINISHED and the check is exact: {@code M == G == N}.</li>
 *   <li>Sample count: the window holds within 1% of {@code rate x seconds} samples.</li>
 *   <li>Floor: the consumer received exactly the N records the producer published, in order.</li>
 * </ul>
 * Not checked: that the job kept up. If the achieved rate is below 99% of the offered one, the run prints
 * {@code [warn]}: latencies then grow with the backlog, which is itself the result.
 *
 * <p><b>Options</b> (all optional):
 * <pre>
 * --idle BUSY_SPIN|YIELD|BACKOFF|BLOCK  idle strategy of the Ringflow task threads (default BUSY_SPIN; the floor
 *                                       always busy-spins)
 * --rate N              offered records/s (default 1000000)
 * --keys N              distinct app ids (default 1000)
 * --warmup-seconds S    warm-up, not recorded (default 10; decimals allowed)
 * --seconds S           measurement window (default 20; decimals allowed)
 * --chaining true|false fuse count and sink (default true: 2 task threads; false: 3 and a second ring)
 * --pin [CPUS]          pin the task threads through JobConfig.cpus, round robin in topological order (source
 *                       first), and the floor's producer and consumer to the first two listed; CPUS is a
 *                       comma-separated list, default all cores 0..n-1
 * --spare-core          leave core 0 free for the OS and the JVM's own threads (GC, JIT, this main thread): pin the
 *                       task threads one per core on cores 1..t (and the floor on 1..2). Possible only with at least
 *                       t + 1 cores, t = 2 task threads (3 without chaining). On a 2-core machine it is not
 *                       possible: the harness says so and runs unpinned, threads sharing both cores with the JVM.
 * --bounded             bounded source, the job runs to FINISHED: exact count verification (see above)
 * --no-floor            skip the bare Disruptor floor
 * --drain-seconds S     how long the runs may take past their window before they are given up as stuck (default
 *                       the larger of 5 s and --seconds); the smoke test passes a hang guard
 * --checkpoint MODE     none (default), aligned, unaligned, aligned-timeout (aligned, switching to unaligned after
 *                       --aligned-timeout) or at-least-once
 * --checkpoint-interval MS  between checkpoints (default 100)
 * --aligned-timeout MS  for aligned-timeout (default 1)
 * --checkpoint-dir DIR  write checkpoints to this directory (fsync'd files) instead of memory
 * --backend heap|chronicle  keyed state backend (default heap, as the figures of docs/benchmarks.md before
 *                       2026-12-02 were taken; chronicle is the engine's default)
 * --stall MS:EVERY      back-pressure: the sink pauses MS ms each time the due times pass another EVERY ms, so the
 *                       ring fills and the source waits (default: no pause)
 * --label TEXT          a name for this run in the table and the CSV line
 * --csv FILE            append one line of results to FILE (header written when FILE is new)
 * </pre>
 *
 * <p>With checkpoints, the run also prints the distribution of the checkpoints that completed from the start of the
 * measurement window until the job stopped (the job runs until at least one has, and the run fails if none did
 * before its drain deadline): end to end (trigger to the last acknowledgement), the slowest task's synchronous part
 * and asynchronous part.
 * Run with a fixed, pre-touched heap, e.g.
 * {@code java -Xms2g -Xmx2g -XX:+AlwaysPreTouch -cp bench/target/benchmarks.jar io.ringflow.bench.LatencyHarness}
 * (plus the Ringflow JVM flags, see README.md). The harness allocates nothing per record beyond what the job itself
 * does; each sink writer's histogram and per-app array are allocated when the job starts.
 */
public final class LatencyHarness
{
    /** Latencies above this are recorded as this (and counted); 10 minutes. */
    static final long MAX_RECORDABLE_NANOS = TimeUnit.MINUTES.toNanos(10);
    private static final int SIGNIFICANT_DIGITS = 3;
    /** {@link #phaseOf}: before the window (the warm-up), in it, after it. */
    static final int WARM_UP = 0;
    static final int WINDOW = 1;
    static final int PAST = 2;

    /**
     * @return {@link #WARM_UP}, {@link #WINDOW} or {@link #PAST} for a time against the window {@code [start, end)},
     *     computed without a branch: the sinks call it for every record, and a branch first taken when the window
     *     opens would deoptimize the record loop it is inlined into.
     */
    static int phaseOf(final long time, final long start, final long end)
    {
        return (int)((start - 1 - time) >>> 63) + (int)((end - 1 - time) >>> 63);
    }

    /**
     * Records {@code now - due}, at most {@link #MAX_RECORDABLE_NANOS}, into the histogram of the record's phase.
     *
     * @param byPhase the histograms, indexed by {@link #phaseOf}.
     * @return 1 when a latency of the window was clamped, else 0.
     */
    static int recordLatency(final Histogram[] byPhase, final long now, final long due, final long windowStart,
        final long windowEnd)
    {
        final int phase = phaseOf(due, windowStart, windowEnd);
        long latency = now - due;
        int clamped = 0;
        if (latency > MAX_RECORDABLE_NANOS)
        {
            latency = MAX_RECORDABLE_NANOS;
            clamped = phase & 1;
        }
        byPhase[phase].recordValue(Math.max(0, latency));
        return clamped;
    }
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final double[] PERCENTILES = {50, 90, 99, 99.9, 99.99};
    private static final int FLOOR_RING_SIZE = 1024;

    private LatencyHarness()
    {
    }

    /**
     * @param args see the class comment.
     */
    public static void main(final String[] args)
    {
        final Options options;
        try
        {
            options = Options.parse(args);
        }
        catch (final IllegalArgumentException ex)
        {
            System.err.println("LatencyHarness: " + ex.getMessage());
            System.err.println(Options.USAGE);
            System.exit(2);
            return;
        }
        if (options.help)
        {
            System.out.println(Options.USAGE);
            return;
        }
        boolean passed;
        try
        {
            passed = run(options, System.out).passed();
        }
        catch (final Exception ex)
        {
            ex.printStackTrace();
            passed = false;
        }
        System.exit(passed ? 0 : 1);
    }

    /**
     * Runs the Ringflow job, then the floor, and prints the table and the checks.
     *
     * @param options the options.
     * @param out     where to print.
     * @return the results.
     * @throws InterruptedException when interrupted while waiting for the runs.
     */
    public static Report run(final Options options, final PrintStream out) throws InterruptedException
    {
        final int cores = Runtime.getRuntime().availableProcessors();
        final int taskThreads = options.chaining ? 2 : 3;
        final Placement placement = Placement.decide(options, taskThreads, cores);
        final long period = periodNanos(options.rate);

        out.println("Ringflow latency harness");
        out.printf(Locale.ROOT, "  job      page-view: generator -> keyBy(appId) -> count (ValueState) -> sink, " +
            "parallelism 1, chaining %s (%d task threads)%n", options.chaining ? "on" : "off", taskThreads);
        out.printf(Locale.ROOT, "  offered  %,d records/s (one every %d ns), %,d keys, source %s%n", options.rate,
            period, options.keys, options.bounded ? "bounded (runs to FINISHED)" : "unbounded (cancelled after the " +
            "window)");
        out.printf(Locale.ROOT, "  idle     %s for Ringflow tasks; the floor busy-spins%n", options.idle);
        out.printf(Locale.ROOT, "  cpus     %d available; %s%n", cores, placement.description);
        out.printf(Locale.ROOT, "  window   %.1f s warm-up, then %.1f s measured; latency = nanoTime() at the " +
            "sink - the record's due time%n", options.warmupNanos / 1e9, options.measureNanos / 1e9);
        out.printf(Locale.ROOT, "  jvm      %s, max heap %,d MB%n", Runtime.version(),
            Runtime.getRuntime().maxMemory() >> 20);
        out.printf(Locale.ROOT, "  state    %s backend; checkpoints %s%n", options.chronicle ? "Chronicle" : "heap",
            options.checkpoint == CheckpointKind.NONE ? "off" : options.checkpoint.text + " every " +
                options.checkpointIntervalMillis + " ms" + (options.checkpoint == CheckpointKind.ALIGNED_TIMEOUT ?
                " (unaligned after " + options.alignedTimeoutMillis + " ms)" : "") + ", " +
                (options.checkpointDir != null ? "to " + options.checkpointDir : "in memory"));
        out.printf(Locale.ROOT, "  pressure %s%n", options.stallNanos == 0 ? "none (the job keeps up)" :
            String.format(Locale.ROOT, "the sink pauses %d ms every %d ms of due time (ring of %d slots)",
                options.stallNanos / 1_000_000, options.stallEveryNanos / 1_000_000, JobConfig.defaults().ringSize()));
        out.printf(Locale.ROOT, "  label    %s%n", options.label());
        out.flush();

        final List<RunResult> results = new ArrayList<>();
        results.add(runRingflow(options, placement));
        if (options.floor)
        {
            results.add(runFloor(options, placement));
        }

        out.println();
        out.printf(Locale.ROOT, "%-20s %10s %12s %9s %9s %9s %9s %9s %9s  (us)%n",
            "run", "samples", "achieved/s", "p50", "p90", "p99", "p99.9", "p99.99", "max");
        for (final RunResult result : results)
        {
            final Histogram h = result.histogram;
            out.printf(Locale.ROOT, "%-20s %10d %12.1f", result.name, h.getTotalCount(), result.achievedRate);
            for (final double percentile : PERCENTILES)
            {
                out.printf(Locale.ROOT, " %9.2f", h.getValueAtPercentile(percentile) / 1e3);
            }
            out.printf(Locale.ROOT, " %9.2f%n", h.getMaxValue() / 1e3);
        }
        final CheckpointStats checkpoints = results.get(0).checkpoints;
        if (checkpoints != null)
        {
            out.println();
            out.printf(Locale.ROOT, "checkpoints completed after the window began: %d; us p50 / p99 / max: end to end %s, sync (slowest " +
                "task) %s, async %s%n", checkpoints.count(), triple(checkpoints.endToEnd()),
                triple(checkpoints.sync()), triple(checkpoints.async()));
        }
        final Allocated allocated = results.get(0).allocated;
        if (allocated != null)
        {
            out.printf(Locale.ROOT, "allocated by the job's threads in the window: %,d B%s%n", allocated.bytes(),
                allocated.checkpoints() == 0 ? "" : String.format(Locale.ROOT, ", %,.0f B a checkpoint (%d)",
                    allocated.perCheckpoint(), allocated.checkpoints()));
        }
        out.println();
        out.println("checks");
        boolean passed = true;
        for (final RunResult result : results)
        {
            for (final String line : result.checks)
            {
                out.println("  " + line);
            }
            passed &= result.passed;
        }
        for (final String warning : placement.warnings)
        {
            out.println("  [warn] " + warning);
        }
        out.println("result: " + (passed ? "PASSED" : "FAILED"));
        out.flush();
        if (options.csv != null)
        {
            appendCsv(options, results, passed);
        }
        return new Report(passed, results);
    }

    private static String triple(final Histogram h)
    {
        return String.format(Locale.ROOT, "%.1f / %.1f / %.1f", h.getValueAtPercentile(50) / 1e3,
            h.getValueAtPercentile(99) / 1e3, h.getMaxValue() / 1e3);
    }

    /** The CSV columns {@link #appendCsv} writes; latencies in microseconds. */
    static final String CSV_HEADER = "label,checkpoint,storage,stall,rate,idle,backend,samples,achieved," +
        "p50,p90,p99,p99.9,p99.99,max,floor_p50,floor_p99,floor_p99.9,checkpoints,ckpt_p50,ckpt_p99,ckpt_max," +
        "sync_p50,sync_p99,async_p50,async_p99,alloc_bytes,alloc_per_ckpt,passed";

    private static void appendCsv(final Options options, final List<RunResult> results, final boolean passed)
    {
        final RunResult run = results.get(0);
        final Histogram h = run.histogram;
        final RunResult floor = results.size() > 1 ? results.get(1) : null;
        final CheckpointStats c = run.checkpoints;
        final StringBuilder line = new StringBuilder();
        line.append(options.label()).append(',').append(options.checkpoint.text).append(',')
            .append(options.checkpoint == CheckpointKind.NONE ? "-" : options.checkpointDir != null ? "directory" :
                "memory").append(',')
            .append(options.stallNanos == 0 ? "-" : options.stallNanos / 1_000_000 + ":" +
                options.stallEveryNanos / 1_000_000).append(',')
            .append(options.rate).append(',').append(options.idle).append(',')
            .append(options.chronicle ? "chronicle" : "heap").append(',')
            .append(h.getTotalCount()).append(',').append(String.format(Locale.ROOT, "%.1f", run.achievedRate));
        for (final double percentile : PERCENTILES)
        {
            line.append(',').append(micros(h.getValueAtPercentile(percentile)));
        }
        line.append(',').append(micros(h.getMaxValue()));
        line.append(',').append(floor == null ? "" : micros(floor.histogram.getValueAtPercentile(50)))
            .append(',').append(floor == null ? "" : micros(floor.histogram.getValueAtPercentile(99)))
            .append(',').append(floor == null ? "" : micros(floor.histogram.getValueAtPercentile(99.9)));
        if (c == null)
        {
            line.append(",0,,,,,,,");
        }
        else
        {
            final Histogram e2e = c.endToEnd();
            final Histogram sync = c.sync();
            final Histogram async = c.async();
            line.append(',').append(c.count())
                .append(',').append(micros(e2e.getValueAtPercentile(50)))
                .append(',').append(micros(e2e.getValueAtPercentile(99)))
                .append(',').append(micros(e2e.getMaxValue()))
                .append(',').append(micros(sync.getValueAtPercentile(50)))
                .append(',').append(micros(sync.getValueAtPercentile(99)))
                .append(',').append(micros(async.getValueAtPercentile(50)))
                .append(',').append(micros(async.getValueAtPercentile(99)));
        }
        final Allocated allocated = run.allocated;
        line.append(',').append(allocated == null ? "" : Long.toString(allocated.bytes()))
            .append(',').append(allocated == null || allocated.checkpoints() == 0 ? "" :
                String.format(Locale.ROOT, "%.0f", allocated.perCheckpoint()));
        line.append(',').append(passed).append(System.lineSeparator());
        try
        {
            final boolean fresh = !Files.exists(options.csv);
            Files.writeString(options.csv, (fresh ? CSV_HEADER + System.lineSeparator() : "") + line,
                StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot append to " + options.csv, ex);
        }
    }

    private static String micros(final long nanos)
    {
        return String.format(Locale.ROOT, "%.2f", nanos / 1e3);
    }

    /**
     * The period of a fixed rate, as the generator computes it at parallelism 1.
     *
     * @param rate records per second.
     * @return nanoseconds between due times.
     */
    static long periodNanos(final long rate)
    {
        return Math.max(1, NANOS_PER_SECOND / rate);
    }

    /**
     * @return records in warm-up and measurement plus a 1% tail (at least one record), so that at least one record
     *     is due after the window.
     */
    static long boundedCount(final Options options)
    {
        final long period = periodNanos(options.rate);
        final long inWindow = (options.warmupNanos + options.measureNanos + period - 1) / period;
        return inWindow + Math.max(1, inWindow / 100);
    }

    // ---------------------------------------------------------------- the Ringflow job

    /** The name of the harness's job, which its threads carry. */
    private static final String JOB_NAME = "latency-harness";

    private static RunResult runRingflow(final Options options, final Placement placement)
        throws InterruptedException
    {
        final JobConfig.Builder builder = JobConfig.builder()
            // the figures of docs/benchmarks.md before 2026-12-02 were taken with the heap backend, the default here
            .stateBackend(options.chronicle ? new io.ringflow.state.chronicle.ChronicleStateBackend() :
                new io.ringflow.state.heap.HeapStateBackend())
            .defaultParallelism(1)
            .chaining(options.chaining)
            .idleStrategy(options.idle);
        if (placement.taskCpus != null)
        {
            builder.cpus(placement.taskCpus);
        }
        if (options.checkpoint != CheckpointKind.NONE)
        {
            final CheckpointConfig.Builder checkpoints =
                CheckpointConfig.every(Duration.ofMillis(options.checkpointIntervalMillis))
                    .unaligned(options.checkpoint == CheckpointKind.UNALIGNED);
            if (options.checkpoint == CheckpointKind.ALIGNED_TIMEOUT)
            {
                checkpoints.alignedTimeout(Duration.ofMillis(options.alignedTimeoutMillis));
            }
            if (options.checkpointDir != null)
            {
                checkpoints.directory(options.checkpointDir);
            }
            builder.checkpointing(checkpoints.build()).checkpointingMode(
                options.checkpoint == CheckpointKind.AT_LEAST_ONCE ? CheckpointingMode.AT_LEAST_ONCE :
                    CheckpointingMode.EXACTLY_ONCE);
        }
        final JobConfig config = builder.build();
        final CountingGenerator generator = new CountingGenerator(options.keys);
        final LatencySink sink = new LatencySink(options.keys, options.warmupNanos, options.measureNanos,
            options.stallNanos, options.stallEveryNanos);
        final CheckpointStats checkpointStats = new CheckpointStats(sink);
        final long bound = options.bounded ? boundedCount(options) : Long.MAX_VALUE;
        final GeneratorSource<PageView> source = (options.bounded ?
            GeneratorSource.bounded(bound, PageView.class, generator) :
            GeneratorSource.unbounded(PageView.class, generator)).withRate(options.rate);

        final JobEnvironment env = JobEnvironment.create(config);
        env.fromSource(source, "views")
            .keyBy(PageView::appId)
            .process(TimedCountPerApp::new).name("count")
            .sinkTo(sink).name("sink");

        final List<String> checks = new ArrayList<>();
        boolean passed = true;
        final long drainNanos = options.drainNanos();
        final long deadline = System.nanoTime() + options.warmupNanos + options.measureNanos + drainNanos;
        JobStatus status = null;
        Throwable failure = null;
        JobThreadAllocation windowAllocation = null;
        Allocated allocated = null;
        try (JobHandle job = env.execute(JOB_NAME))
        {
            job.onCheckpointCompleted(checkpointStats::record);
            final boolean checkpointing = options.checkpoint != CheckpointKind.NONE;
            // with checkpoints, the job also runs until one has completed since the window began
            while ((!sink.windowDelivered() || checkpointing && checkpointStats.count() == 0) &&
                !job.status().isTerminal() && System.nanoTime() < deadline)
            {
                if (windowAllocation == null && sink.windowStarted(System.nanoTime()))
                {
                    windowAllocation = JobThreadAllocation.start(JOB_NAME);
                }
                Thread.sleep(10);
            }
            if (windowAllocation != null)
            {
                // read while the job's threads are alive: from the window's start until its last record arrived
                allocated = new Allocated(windowAllocation.allocatedSinceStart(), checkpointStats.count());
            }
            if (!options.bounded)
            {
                job.cancel();
            }
            try
            {
                status = job.awaitTermination(Duration.ofNanos(Math.max(NANOS_PER_SECOND,
                    deadline - System.nanoTime())));
            }
            catch (final JobExecutionException ex)
            {
                failure = ex.getCause() != null ? ex.getCause() : ex;
            }
            catch (final TimeoutException ex)
            {
                failure = ex;
            }
        }
        // The job has stopped (close() waited for its threads): the writers' and the generator's plain fields are
        // visible here through the job's termination.

        final String name = "ringflow";
        final JobStatus expectedStatus = options.bounded ? JobStatus.FINISHED : JobStatus.CANCELED;
        if (failure != null || status != expectedStatus)
        {
            passed = false;
            checks.add(fail(name, "job ended " + status + (failure != null ? " (" + failure + ")" : "") +
                ", expected " + expectedStatus));
        }
        else
        {
            checks.add(ok(name, "job ended " + status + (options.bounded ? "" : " (cancelled after the window)")));
        }

        final Histogram histogram = new Histogram(1, MAX_RECORDABLE_NANOS, SIGNIFICANT_DIGITS);
        long received = 0;
        long anomalies = 0;
        long firstAnomalyAt = -1;
        long finalCountSum = 0;
        long receivedInWindow = 0;
        long clamped = 0;
        boolean delivered = true;
        for (final LatencyWriter writer : sink.writers)
        {
            histogram.add(writer.histogram);
            if (anomalies == 0 && writer.anomalies != 0)
            {
                firstAnomalyAt = received + writer.firstAnomalyAt;
            }
            received += writer.received;
            anomalies += writer.anomalies;
            finalCountSum += writer.finalCountSum();
            receivedInWindow += writer.receivedInWindow;
            clamped += writer.clamped;
            delivered &= writer.pastWindow;
        }
        if (sink.writers.isEmpty())
        {
            delivered = false;
        }

        if (delivered)
        {
            checks.add(ok(name, "every record due in the window reached the sink before the job stopped"));
        }
        else
        {
            passed = false;
            checks.add(fail(name, "the sink never saw a record due after the window: the window is incomplete " +
                "(job too slow, or stopped early)"));
        }
        if (anomalies == 0 && received > 0)
        {
            checks.add(ok(name, String.format(Locale.ROOT, "delivered %,d records = views 0..%,d in order: none " +
                "lost, duplicated or reordered, every per-app count exact", received, received - 1)));
        }
        else
        {
            passed = false;
            checks.add(fail(name, String.format(Locale.ROOT, "%,d of %,d delivered records out of sequence " +
                "(first at delivery #%,d)", anomalies, received, firstAnomalyAt)));
        }
        if (finalCountSum == received)
        {
            checks.add(ok(name, String.format(Locale.ROOT, "final per-app counts sum to %,d = records delivered",
                finalCountSum)));
        }
        else
        {
            passed = false;
            checks.add(fail(name, String.format(Locale.ROOT, "final per-app counts sum to %,d, but %,d records " +
                "were delivered", finalCountSum, received)));
        }

        final long generated = generator.generated;
        if (options.bounded)
        {
            if (generated == bound && received == bound)
            {
                checks.add(ok(name, String.format(Locale.ROOT, "bounded run: generated = delivered = %,d", bound)));
            }
            else
            {
                passed = false;
                checks.add(fail(name, String.format(Locale.ROOT, "bounded run: generated %,d, delivered %,d, " +
                    "expected %,d each", generated, received, bound)));
            }
        }
        else
        {
            final int rings = options.chaining ? 1 : 2;
            final long inFlightBound = (long)rings * config.ringSize() + config.readBatch();
            final long inFlight = generated - received;
            if (inFlight >= 0 && inFlight <= inFlightBound)
            {
                checks.add(ok(name, String.format(Locale.ROOT, "generated %,d up to the cancel; %,d of them were " +
                    "still in flight (at most %,d can be: %d ring(s) of %d + one read batch)", generated, inFlight,
                    inFlightBound, rings, config.ringSize())));
            }
            else
            {
                passed = false;
                checks.add(fail(name, String.format(Locale.ROOT, "generated %,d up to the cancel but delivered " +
                    "%,d: %,d missing, more than the %,d the rings can hold", generated, received, inFlight,
                    inFlightBound)));
            }
        }
        if (options.checkpoint != CheckpointKind.NONE)
        {
            if (checkpointStats.count() > 0)
            {
                checks.add(ok(name, checkpointStats.count() + " checkpoints completed after the window began"));
            }
            else
            {
                passed = false;
                checks.add(fail(name, "no checkpoint completed after the window began"));
            }
        }
        final RunResult result = new RunResult(name + " page-view", histogram,
            receivedInWindow * 1e9 / options.measureNanos, checks, passed,
            options.checkpoint == CheckpointKind.NONE ? null : checkpointStats,
            allocated == null || allocated.bytes() < 0 ? null : allocated);
        passed &= checkSamples(result, options, clamped);
        return result.withPassed(passed);
    }

    /**
     * Makes page view {@code i} and remembers how many it has made; called on the source's task thread only, read
     * by the main thread after the job has stopped.
     */
    static final class CountingGenerator implements RecordGenerator<PageView>
    {
        private static final long serialVersionUID = 1L;

        private final int keys;
        long generated;

        CountingGenerator(final int keys)
        {
            this.keys = keys;
        }

        @Override
        public PageView generate(final long index, final long creationNanos)
        {
            generated = index + 1;
            return new PageView(index % keys, creationNanos);
        }
    }

    /**
     * Records each output's latency into its writer's own histogram and checks the output's order.
     */
    static final class LatencySink implements Sink<TimedAppCount>
    {
        private final int keys;
        private final long warmupNanos;
        private final long measureNanos;
        private final long stallNanos;
        private final long stallEveryNanos;
        final List<LatencyWriter> writers = new CopyOnWriteArrayList<>();
        private volatile boolean windowDelivered;
        /** The measurement window's start in nanoTime, set by the first writer at its first record; MAX_VALUE before. */
        private volatile long windowStartNanos = Long.MAX_VALUE;

        LatencySink(final int keys, final long warmupNanos, final long measureNanos, final long stallNanos,
            final long stallEveryNanos)
        {
            this.keys = keys;
            this.warmupNanos = warmupNanos;
            this.measureNanos = measureNanos;
            this.stallNanos = stallNanos;
            this.stallEveryNanos = stallEveryNanos;
        }

        /** @return whether the measurement window has begun by {@code nanoTime}. */
        boolean windowStarted(final long nanoTime)
        {
            return nanoTime >= windowStartNanos;
        }

        /** Sets the window's start, once: the first writer's first record decides it. */
        void window(final long start)
        {
            if (windowStartNanos == Long.MAX_VALUE)
            {
                windowStartNanos = start;
            }
        }

        @Override
        public SinkWriter<TimedAppCount> createWriter(final SubtaskInfo subtask)
        {
            final LatencyWriter writer = new LatencyWriter(this, keys, warmupNanos, measureNanos, stallNanos,
                stallEveryNanos);
            writers.add(writer);
            return writer;
        }

        /** @return whether a record due after the measurement window has reached the sink. */
        boolean windowDelivered()
        {
            return windowDelivered;
        }

        void markWindowDelivered()
        {
            windowDelivered = true;
        }
    }

    /**
     * One sink subtask's recorder. Plain fields, written by the sink's task thread only; no allocation per record.
     */
    static final class LatencyWriter implements SinkWriter<TimedAppCount>
    {
        private final LatencySink sink;
        private final int keys;
        private final long warmupNanos;
        private final long measureNanos;
        private final long stallNanos;
        private final long stallEveryNanos;
        /** The due time past which the sink next pauses; MAX_VALUE without pauses. */
        private long nextStallDue = Long.MAX_VALUE;
        final Histogram histogram = new Histogram(1, MAX_RECORDABLE_NANOS, SIGNIFICANT_DIGITS);
        /** By {@link #phaseOf}: the warm-up's and the after-window's latencies are recorded too, and dropped. */
        private final Histogram[] byPhase = {new Histogram(1, MAX_RECORDABLE_NANOS, SIGNIFICANT_DIGITS), histogram,
            new Histogram(1, MAX_RECORDABLE_NANOS, SIGNIFICANT_DIGITS)};
        private final long[] lastCount;
        private long windowStart = Long.MAX_VALUE;
        private long windowEnd = Long.MAX_VALUE;
        private long expectedIndex;
        private long lastDue = Long.MIN_VALUE;
        long received;
        long anomalies;
        long firstAnomalyAt = -1;
        long receivedInWindow;
        long clamped;
        boolean pastWindow;

        LatencyWriter(final LatencySink sink, final int keys, final long warmupNanos, final long measureNanos,
            final long stallNanos, final long stallEveryNanos)
        {
            this.sink = sink;
            this.keys = keys;
            this.warmupNanos = warmupNanos;
            this.measureNanos = measureNanos;
            this.stallNanos = stallNanos;
            this.stallEveryNanos = stallEveryNanos;
            this.lastCount = new long[keys];
        }

        @Override
        public void write(final TimedAppCount record)
        {
            final long now = System.nanoTime();
            final long due = record.timestamp();
            if (received == 0)
            {
                windowStart = due + warmupNanos;
                windowEnd = windowStart + measureNanos;
                sink.window(windowStart);
                if (stallNanos > 0)
                {
                    nextStallDue = due + stallEveryNanos;
                }
            }
            if (due >= nextStallDue)
            {
                // simulated slow downstream: the task thread stops taking records, so the ring fills
                nextStallDue += stallEveryNanos;
                final long until = System.nanoTime() + stallNanos;
                for (long left = stallNanos; left > 0; left = until - System.nanoTime())
                {
                    LockSupport.parkNanos(left);
                }
            }
            final int app = (int)record.appId();
            final long count = record.count();
            final long index = (count - 1) * keys + app;
            if (index != expectedIndex || due < lastDue || count != lastCount[app] + 1)
            {
                if (anomalies++ == 0)
                {
                    firstAnomalyAt = received;
                }
            }
            expectedIndex = index + 1;
            lastDue = due;
            lastCount[app] = count;
            received++;

            // every record takes the same path, warm-up or window: no branch is first taken when the window opens
            // (C2 compiles a branch never taken as a trap, and this method, inlined into the task's loop, would run
            // deoptimized, interpreted and allocating, as the window began)
            clamped += recordLatency(byPhase, now, due, windowStart, windowEnd);
            if (!pastWindow && phaseOf(due, windowStart, windowEnd) == PAST)
            {
                pastWindow = true;
                sink.markWindowDelivered();
            }
            receivedInWindow += phaseOf(now, windowStart, windowEnd) & 1;
        }

        long finalCountSum()
        {
            long sum = 0;
            for (final long count : lastCount)
            {
                sum += count;
            }
            return sum;
        }
    }

    // ---------------------------------------------------------------- the floor

    private static RunResult runFloor(final Options options, final Placement placement)
        throws InterruptedException
    {
        final long period = periodNanos(options.rate);
        final long total = boundedCount(options);
        final OffHeapRing ring = new OffHeapRing(FLOOR_RING_SIZE);
        // Both threads get 20 ms to start before the first record is due.
        final long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
        final FloorConsumer consumer = new FloorConsumer(ring, total, start + options.warmupNanos,
            start + options.warmupNanos + options.measureNanos, placement.floorCpus == null ? -1 :
            placement.floorCpus[1]);
        final FloorProducer producer = new FloorProducer(ring, total, start, period,
            placement.floorCpus == null ? -1 : placement.floorCpus[0]);
        final Thread consumerThread = new Thread(consumer, "floor-consumer");
        final Thread producerThread = new Thread(producer, "floor-producer");
        consumerThread.setDaemon(true);
        producerThread.setDaemon(true);
        consumerThread.start();
        producerThread.start();

        final long timeoutMillis = TimeUnit.NANOSECONDS.toMillis(options.warmupNanos + options.measureNanos +
            options.drainNanos()) + 20;
        producerThread.join(timeoutMillis);
        consumerThread.join(Math.max(1, timeoutMillis - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)));
        final boolean stuck = producerThread.isAlive() || consumerThread.isAlive();
        if (stuck)
        {
            ring.halt();
            producerThread.join();
            consumerThread.join();
        }
        ring.free();

        final String name = "floor";
        final List<String> checks = new ArrayList<>();
        boolean passed = true;
        final Throwable failure = producer.failure != null ? producer.failure : consumer.failure;
        if (stuck || failure != null)
        {
            passed = false;
            checks.add(fail(name, stuck ? "did not finish in time" : "failed: " + failure));
        }
        if (producer.published == total && consumer.received == total && consumer.anomalies == 0)
        {
            checks.add(ok(name, String.format(Locale.ROOT, "published = received = %,d, in order", total)));
        }
        else
        {
            passed = false;
            checks.add(fail(name, String.format(Locale.ROOT, "published %,d, received %,d (%,d out of sequence), " +
                "expected %,d", producer.published, consumer.received, consumer.anomalies, total)));
        }
        for (final String warning : new String[] {producer.pinWarning, consumer.pinWarning})
        {
            if (warning != null)
            {
                checks.add("[warn] " + name + ": " + warning);
            }
        }
        final RunResult result = new RunResult("disruptor floor", consumer.histogram,
            consumer.receivedInWindow * 1e9 / options.measureNanos, checks, passed);
        passed &= checkSamples(result, options, consumer.clamped);
        return result.withPassed(passed);
    }

    /** Publishes record {@code i} on the ring when it is due, {@code (i, due)}; at once when late. */
    private static final class FloorProducer implements Runnable
    {
        private final OffHeapRing ring;
        private final long total;
        private final long start;
        private final long period;
        private final int cpu;
        long published;
        String pinWarning;
        volatile Throwable failure;

        FloorProducer(final OffHeapRing ring, final long total, final long start, final long period, final int cpu)
        {
            this.ring = ring;
            this.total = total;
            this.start = start;
            this.period = period;
            this.cpu = cpu;
        }

        @Override
        public void run()
        {
            try
            {
                if (cpu >= 0)
                {
                    pinWarning = Pinning.pinCurrentThread(cpu);
                }
                for (long i = 0; i < total; i++)
                {
                    final long due = start + i * period;
                    while (System.nanoTime() < due)
                    {
                        Thread.onSpinWait();
                    }
                    final long sequence = ring.claim(1);
                    ring.put(sequence, i, due);
                    ring.publish(sequence, sequence);
                    published = i + 1;
                }
            }
            catch (final Throwable ex)
            {
                failure = ex;
                ring.halt();
            }
        }
    }

    /** Busy-polls the ring and records {@code nanoTime() - due} of each record due in the window. */
    private static final class FloorConsumer implements Runnable
    {
        private final OffHeapRing ring;
        private final long total;
        private final long windowStart;
        private final long windowEnd;
        private final int cpu;
        final Histogram histogram = new Histogram(1, MAX_RECORDABLE_NANOS, SIGNIFICANT_DIGITS);
        /** By {@link #phaseOf}: the warm-up's and the after-window's latencies are recorded too, and dropped. */
        private final Histogram[] byPhase = {new Histogram(1, MAX_RECORDABLE_NANOS, SIGNIFICANT_DIGITS), histogram,
            new Histogram(1, MAX_RECORDABLE_NANOS, SIGNIFICANT_DIGITS)};
        long received;
        long anomalies;
        long receivedInWindow;
        long clamped;
        String pinWarning;
        volatile Throwable failure;

        FloorConsumer(
            final OffHeapRing ring, final long total, final long windowStart, final long windowEnd, final int cpu)
        {
            this.ring = ring;
            this.total = total;
            this.windowStart = windowStart;
            this.windowEnd = windowEnd;
            this.cpu = cpu;
        }

        @Override
        public void run()
        {
            try
            {
                if (cpu >= 0)
                {
                    pinWarning = Pinning.pinCurrentThread(cpu);
                }
                long next = 0;
                while (received < total)
                {
                    final long available = ring.cursor();
                    if (available < next)
                    {
                        ring.checkNotHalted();
                        Thread.onSpinWait();
                        continue;
                    }
                    for (long sequence = next; sequence <= available; sequence++)
                    {
                        final long now = System.nanoTime();
                        final long index = ring.first(sequence);
                        final long due = ring.second(sequence);
                        if (index != received)
                        {
                            anomalies++;
                        }
                        received++;
                        // the same path in every phase, as in the Ringflow sink's writer
                        clamped += recordLatency(byPhase, now, due, windowStart, windowEnd);
                        receivedInWindow += phaseOf(now, windowStart, windowEnd) & 1;
                    }
                    next = available + 1;
                    ring.release(available);
                }
            }
            catch (final Throwable ex)
            {
                failure = ex;
                ring.halt();
            }
        }
    }

    // ---------------------------------------------------------------- shared checks and results

    private static boolean checkSamples(final RunResult result, final Options options, final long clamped)
    {
        final double expected = (double)options.measureNanos / periodNanos(options.rate);
        final long samples = result.histogram.getTotalCount();
        final String name = result.name.startsWith("ringflow") ? "ringflow" : "floor";
        boolean passed = true;
        if (samples > 0 && Math.abs(samples - expected) <= 2 + expected / 100)
        {
            result.checks.add(ok(name, String.format(Locale.ROOT, "%,d samples in the window (rate x seconds = " +
                "%,.0f)", samples, expected)));
        }
        else
        {
            passed = false;
            result.checks.add(fail(name, String.format(Locale.ROOT, "%,d samples in the window, expected %,.0f " +
                "(rate x seconds) within 1%%", samples, expected)));
        }
        if (clamped > 0)
        {
            result.checks.add("[warn] " + name + ": " + clamped + " latencies above " +
                TimeUnit.NANOSECONDS.toSeconds(MAX_RECORDABLE_NANOS) + " s were recorded as that");
        }
        if (result.achievedRate < 0.99 * options.rate)
        {
            result.checks.add(String.format(Locale.ROOT, "[warn] %s: achieved %,.0f records/s, below 99%% of the " +
                "offered %,d: it did not keep up, latencies include the backlog", name, result.achievedRate,
                options.rate));
        }
        return passed;
    }

    private static String ok(final String run, final String message)
    {
        return "[ok]   " + run + ": " + message;
    }

    private static String fail(final String run, final String message)
    {
        return "[FAIL] " + run + ": " + message;
    }

    /**
     * The outcome of one harness run.
     */
    public static final class Report
    {
        private final boolean passed;
        private final List<RunResult> results;

        Report(final boolean passed, final List<RunResult> results)
        {
            this.passed = passed;
            this.results = List.copyOf(results);
        }

        /** @return whether every check passed. */
        public boolean passed()
        {
            return passed;
        }

        /** @return the Ringflow run, then the floor if it ran. */
        public List<RunResult> results()
        {
            return results;
        }
    }

    /**
     * One run's latency distribution (nanoseconds), achieved rate and checks.
     */
    public static final class RunResult
    {
        final String name;
        final Histogram histogram;
        final double achievedRate;
        final List<String> checks;
        final boolean passed;
        final CheckpointStats checkpoints;
        final Allocated allocated;

        RunResult(
            final String name, final Histogram histogram, final double achievedRate, final List<String> checks,
            final boolean passed)
        {
            this(name, histogram, achievedRate, checks, passed, null, null);
        }

        RunResult(
            final String name, final Histogram histogram, final double achievedRate, final List<String> checks,
            final boolean passed, final CheckpointStats checkpoints, final Allocated allocated)
        {
            this.name = name;
            this.histogram = histogram;
            this.achievedRate = achievedRate;
            this.checks = checks;
            this.passed = passed;
            this.checkpoints = checkpoints;
            this.allocated = allocated;
        }

        RunResult withPassed(final boolean value)
        {
            return new RunResult(name, histogram, achievedRate, checks, value, checkpoints, allocated);
        }

        /** @return what the job's threads allocated in the window; null when not measured (the floor). */
        public Allocated allocated()
        {
            return allocated;
        }

        /** @return the checkpoints completed inside the window, or null for a run without checkpoints. */
        public CheckpointStats checkpoints()
        {
            return checkpoints;
        }

        /** @return the run's name. */
        public String name()
        {
            return name;
        }

        /** @return the latencies of the records due in the measurement window, in nanoseconds. */
        public Histogram histogram()
        {
            return histogram;
        }

        /** @return records received during the measurement window, per second. */
        public double achievedRate()
        {
            return achievedRate;
        }

        /** @return whether every check of this run passed. */
        public boolean passed()
        {
            return passed;
        }
    }

    /**
     * Bytes the job's threads allocated from the start of the measurement window until its last record reached the
     * sink, and the checkpoints completed in that span ({@link JobThreadAllocation}).
     *
     * @param bytes       bytes allocated.
     * @param checkpoints checkpoints completed.
     */
    public record Allocated(long bytes, long checkpoints)
    {
        /** @return bytes per checkpoint; NaN without checkpoints. */
        public double perCheckpoint()
        {
            return checkpoints == 0 ? Double.NaN : (double)bytes / checkpoints;
        }
    }

    /**
     * The checkpoints that completed from the start of the measurement window until the job stopped (which, with
     * checkpoints, waits for at least one): end to end, and the slowest task's synchronous and asynchronous parts, in
     * nanoseconds. Recorded by whichever thread completes a checkpoint (once per
     * checkpoint, under this object's lock); read by the main thread after the job stopped.
     */
    public static final class CheckpointStats
    {
        private final LatencySink sink;
        private final Histogram endToEnd = new Histogram(1, MAX_RECORDABLE_NANOS, SIGNIFICANT_DIGITS);
        private final Histogram sync = new Histogram(1, MAX_RECORDABLE_NANOS, SIGNIFICANT_DIGITS);
        private final Histogram async = new Histogram(1, MAX_RECORDABLE_NANOS, SIGNIFICANT_DIGITS);

        CheckpointStats(final LatencySink sink)
        {
            this.sink = sink;
        }

        synchronized void record(final CompletedCheckpoint checkpoint)
        {
            if (sink.windowStarted(System.nanoTime()))
            {
                endToEnd.recordValue(clamp(checkpoint.durationNanos()));
                sync.recordValue(clamp(checkpoint.maxSyncNanos()));
                async.recordValue(clamp(checkpoint.maxAsyncNanos()));
            }
        }

        private static long clamp(final long nanos)
        {
            return Math.max(1, Math.min(MAX_RECORDABLE_NANOS, nanos));
        }

        /** @return checkpoints completed since the window began. */
        public synchronized long count()
        {
            return endToEnd.getTotalCount();
        }

        /** @return end to end, trigger to the last acknowledgement, ns. */
        public synchronized Histogram endToEnd()
        {
            return endToEnd.copy();
        }

        /** @return the slowest task's synchronous part, ns. */
        public synchronized Histogram sync()
        {
            return sync.copy();
        }

        /** @return the slowest task's asynchronous part, ns. */
        public synchronized Histogram async()
        {
            return async.copy();
        }
    }

    /**
     * Where the threads run.
     */
    static final class Placement
    {
        final int[] taskCpus;
        final int[] floorCpus;
        final String description;
        final List<String> warnings;

        private Placement(
            final int[] taskCpus, final int[] floorCpus, final String description, final List<String> warnings)
        {
            this.taskCpus = taskCpus;
            this.floorCpus = floorCpus;
            this.description = description;
            this.warnings = warnings;
        }

        static Placement decide(final Options options, final int taskThreads, final int cores)
        {
            if (options.pin)
            {
                final int[] cpus = options.pinCpus != null ? options.pinCpus : range(0, cores);
                for (final int cpu : cpus)
                {
                    if (cpu < 0 || cpu >= cores)
                    {
                        throw new IllegalArgumentException("--pin names cpu " + cpu + ", outside [0, " + cores + ")");
                    }
                }
                return new Placement(cpus, new int[] {cpus[0], cpus[1 % cpus.length]},
                    "task threads pinned round robin to " + Arrays.toString(cpus) + " (source first); floor " +
                    "producer on " + cpus[0] + ", consumer on " + cpus[1 % cpus.length], List.of());
            }
            if (options.spareCore)
            {
                if (cores >= taskThreads + 1)
                {
                    final int[] tasks = range(1, taskThreads + 1);
                    return new Placement(tasks, new int[] {1, 2}, "core 0 left free; task threads pinned one per " +
                        "core to " + Arrays.toString(tasks) + ", floor to [1, 2]", List.of());
                }
                final String why = "--spare-core: not possible, " + taskThreads + " task threads + 1 free core > " +
                    cores + " cores; running unpinned";
                return new Placement(null, null, why, List.of(why));
            }
            return new Placement(null, null, "unpinned", List.of());
        }

        private static int[] range(final int from, final int to)
        {
            final int[] values = new int[to - from];
            for (int i = 0; i < values.length; i++)
            {
                values[i] = from + i;
            }
            return values;
        }
    }

    /** How the Ringflow job checkpoints. */
    public enum CheckpointKind
    {
        /** No checkpoints. */
        NONE("none"),
        /** Exactly once, aligned barriers. */
        ALIGNED("aligned"),
        /** Exactly once, unaligned barriers (in-flight records stored as channel state). */
        UNALIGNED("unaligned"),
        /** Exactly once, aligned, switching to unaligned when alignment takes longer than the timeout. */
        ALIGNED_TIMEOUT("aligned-timeout"),
        /** At least once (barriers are not aligned; nothing is blocked). */
        AT_LEAST_ONCE("at-least-once");

        final String text;

        CheckpointKind(final String text)
        {
            this.text = text;
        }

        static CheckpointKind parse(final String text)
        {
            for (final CheckpointKind kind : values())
            {
                if (kind.text.equalsIgnoreCase(text))
                {
                    return kind;
                }
            }
            throw new IllegalArgumentException("--checkpoint must be none, aligned, unaligned, aligned-timeout or " +
                "at-least-once, was " + text);
        }
    }

    /**
     * The harness's options; see the class comment.
     */
    public static final class Options
    {
        static final String USAGE = String.join(System.lineSeparator(),
            "usage: LatencyHarness [--idle BUSY_SPIN|YIELD|BACKOFF|BLOCK] [--rate N] [--keys N]",
            "                      [--warmup-seconds S] [--seconds S] [--chaining true|false]",
            "                      [--pin [CPU,CPU,...]] [--spare-core] [--bounded] [--no-floor]",
            "                      [--drain-seconds S] [--checkpoint none|aligned|unaligned|aligned-timeout|" +
                "at-least-once]",
            "                      [--checkpoint-interval MS] [--aligned-timeout MS] [--checkpoint-dir DIR]",
            "                      [--backend heap|chronicle] [--stall MS:EVERY] [--label TEXT] [--csv FILE]",
            "defaults: --idle BUSY_SPIN --rate 1000000 --keys 1000 --warmup-seconds 10 --seconds 20 --chaining true");

        IdleStrategyKind idle = IdleStrategyKind.BUSY_SPIN;
        long rate = 1_000_000;
        int keys = 1000;
        long warmupNanos = 10 * NANOS_PER_SECOND;
        long measureNanos = 20 * NANOS_PER_SECOND;
        boolean chaining = true;
        boolean pin;
        int[] pinCpus;
        boolean spareCore;
        boolean bounded;
        boolean floor = true;
        /** How long past the window a run may take; negative for the default, max(5 s, measureNanos). */
        long drainNanos = -1;
        CheckpointKind checkpoint = CheckpointKind.NONE;
        long checkpointIntervalMillis = 100;
        long alignedTimeoutMillis = 1;
        Path checkpointDir;
        boolean chronicle;
        long stallNanos;
        long stallEveryNanos;
        String label;
        Path csv;
        boolean help;

        /** @return how long past its window a run may take before it is given up as stuck. */
        long drainNanos()
        {
            return drainNanos >= 0 ? drainNanos : Math.max(5 * NANOS_PER_SECOND, measureNanos);
        }

        /**
         * @param args command-line arguments.
         * @return the options.
         * @throws IllegalArgumentException naming the first bad argument.
         */
        public static Options parse(final String... args)
        {
            final Options o = new Options();
            for (int i = 0; i < args.length; i++)
            {
                final String arg = args[i];
                switch (arg)
                {
                    case "--idle":
                        o.idle = IdleStrategyKind.valueOf(value(args, ++i, arg).toUpperCase(Locale.ROOT));
                        break;
                    case "--rate":
                        o.rate = positiveLong(value(args, ++i, arg), arg);
                        break;
                    case "--keys":
                        o.keys = (int)Math.min(Integer.MAX_VALUE, positiveLong(value(args, ++i, arg), arg));
                        break;
                    case "--warmup-seconds":
                        o.warmupNanos = seconds(value(args, ++i, arg), arg, true);
                        break;
                    case "--seconds":
                        o.measureNanos = seconds(value(args, ++i, arg), arg, false);
                        break;
                    case "--chaining":
                        o.chaining = bool(value(args, ++i, arg), arg);
                        break;
                    case "--pin":
                        o.pin = true;
                        if (i + 1 < args.length && args[i + 1].matches("\\d+(,\\d+)*"))
                        {
                            o.pinCpus = Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
                        }
                        break;
                    case "--spare-core":
                        o.spareCore = true;
                        break;
                    case "--bounded":
                        o.bounded = true;
                        break;
                    case "--no-floor":
                        o.floor = false;
                        break;
                    case "--drain-seconds":
                        o.drainNanos = seconds(value(args, ++i, arg), arg, false);
                        break;
                    case "--checkpoint":
                        o.checkpoint = CheckpointKind.parse(value(args, ++i, arg));
                        break;
                    case "--checkpoint-interval":
                        o.checkpointIntervalMillis = positiveLong(value(args, ++i, arg), arg);
                        break;
                    case "--aligned-timeout":
                        o.alignedTimeoutMillis = positiveLong(value(args, ++i, arg), arg);
                        break;
                    case "--checkpoint-dir":
                        o.checkpointDir = Path.of(value(args, ++i, arg));
                        break;
                    case "--backend":
                        o.chronicle = backend(value(args, ++i, arg), arg);
                        break;
                    case "--stall":
                        stall(o, value(args, ++i, arg), arg);
                        break;
                    case "--label":
                        o.label = value(args, ++i, arg);
                        if (o.label.contains(",") || o.label.contains("\n"))
                        {
                            throw new IllegalArgumentException("--label must not contain a comma or a line break " +
                                "(it is a CSV field), was " + o.label);
                        }
                        break;
                    case "--csv":
                        o.csv = Path.of(value(args, ++i, arg));
                        break;
                    case "--help":
                    case "-h":
                        o.help = true;
                        break;
                    default:
                        throw new IllegalArgumentException("unknown option " + arg);
                }
            }
            if (o.pin && o.spareCore)
            {
                throw new IllegalArgumentException("--pin and --spare-core are exclusive");
            }
            if (o.checkpoint == CheckpointKind.NONE && o.checkpointDir != null)
            {
                throw new IllegalArgumentException("--checkpoint-dir needs --checkpoint other than none");
            }
            return o;
        }

        private static String value(final String[] args, final int index, final String option)
        {
            if (index >= args.length)
            {
                throw new IllegalArgumentException(option + " needs a value");
            }
            return args[index];
        }

        private static long positiveLong(final String text, final String option)
        {
            final long value;
            try
            {
                value = Long.parseLong(text);
            }
            catch (final NumberFormatException ex)
            {
                throw new IllegalArgumentException(option + ": not a number: " + text, ex);
            }
            if (value <= 0)
            {
                throw new IllegalArgumentException(option + " must be > 0, was " + value);
            }
            return value;
        }

        private static long seconds(final String text, final String option, final boolean zeroAllowed)
        {
            final double value;
            try
            {
                value = Double.parseDouble(text);
            }
            catch (final NumberFormatException ex)
            {
                throw new IllegalArgumentException(option + ": not a number: " + text, ex);
            }
            if (!(value > 0 || zeroAllowed && value == 0) || value > 86_400)
            {
                throw new IllegalArgumentException(option + " must be in " + (zeroAllowed ? "[0" : "(0") +
                    ", 86400], was " + text);
            }
            return (long)(value * NANOS_PER_SECOND);
        }

        private static boolean backend(final String text, final String option)
        {
            if ("heap".equalsIgnoreCase(text) || "chronicle".equalsIgnoreCase(text))
            {
                return "chronicle".equalsIgnoreCase(text);
            }
            throw new IllegalArgumentException(option + " must be heap or chronicle, was " + text);
        }

        private static void stall(final Options o, final String text, final String option)
        {
            final String[] parts = text.split(":", -1);
            if (parts.length != 2)
            {
                throw new IllegalArgumentException(option + " must be MS:EVERY (e.g. 10:50), was " + text);
            }
            final long pause = positiveLong(parts[0], option);
            final long every = positiveLong(parts[1], option);
            if (pause >= every)
            {
                throw new IllegalArgumentException(option + ": the pause (" + pause + " ms) must be shorter than " +
                    "its period (" + every + " ms)");
            }
            o.stallNanos = TimeUnit.MILLISECONDS.toNanos(pause);
            o.stallEveryNanos = TimeUnit.MILLISECONDS.toNanos(every);
        }

        /** @return the run's label: --label, or one made of the checkpoint mode, storage and pressure. */
        String label()
        {
            if (label != null)
            {
                return label;
            }
            return checkpoint.text + (checkpoint == CheckpointKind.NONE ? "" : checkpointDir != null ? "/dir" :
                "/mem") + (stallNanos > 0 ? "/stall" : "");
        }

        private static boolean bool(final String text, final String option)
        {
            if ("true".equalsIgnoreCase(text) || "false".equalsIgnoreCase(text))
            {
                return Boolean.parseBoolean(text);
            }
            throw new IllegalArgumentException(option + " must be true or false, was " + text);
        }
    }
}
