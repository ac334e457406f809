package io.ringflow.samples.cli;

import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.SubtaskCheckpointStats;
import io.ringflow.engine.api.IdleStrategyKind;
import io.ringflow.engine.api.InvalidJobException;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobExecutionException;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.TaskFailureException;
import io.ringflow.engine.metrics.JobThreadAllocation;
import io.ringflow.state.chronicle.ChronicleStateConfig;
import io.ringflow.samples.pageview.FaultPlan;
import io.ringflow.samples.pageview.LongColumn;
import io.ringflow.samples.pageview.OutputManifest;
import io.ringflow.samples.pageview.OutputVerifier;
import io.ringflow.samples.pageview.PageViewCount;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.time.Duration;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * {@code ringflow page-view}: runs {@link PageViewCount}, prints throughput and end-to-end latency once a second,
 * then a summary and the per-app totals, and verifies the totals against the views generated per app.
 *
 * <p>Ctrl-C (or {@code --seconds}) ends the sources gracefully: the views already generated are still counted, so
 * the totals are still verified. After Ctrl-C the JVM exits with the signal's status once the summary is printed.
 */
@Command(
    name = "page-view",
    header = "Counts page views per app, reports throughput and latency, verifies the totals.",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    usageHelpAutoWidth = true,
    showDefaultValues = true,
    description = {
        "Counts page views per app, as in the job of Flink's fault-tolerance article:",
        "  generator (view i is of app i mod apps) -> keyBy(appId)",
        "    -> count in ValueState<Long> -> sink",
        "Source, count and sink each run --parallelism subtasks; count and sink",
        "share a thread.",
        "",
        "Once a second it prints the time elapsed, the records the sink received in",
        "the last second and in all, and percentiles of their end-to-end latency:",
        "from when a view was generated (or was due, at a fixed --rate) to when the",
        "sink received its count. At the end it prints a summary and the per-app",
        "totals, and checks that every app's total equals the views generated for it.",
        ""
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        "0:the totals verified",
        "1:the job failed or was cancelled",
        "2:invalid command line",
        "3:the totals differ from the views generated"
    })
public final class PageViewCommand implements Callable<Integer>
{
    /**
     * Upper bound of --apps. The sink keeps two tables of this length per subtask, memory-mapped beyond
     * {@link LongColumn#ON_HEAP_UP_TO} apps, so the bound is the state's, not the heap's.
     */
    static final int MAX_APPS = 100_000_000;

    private static final int VERIFY_FAILED = 3;
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
    private static final int ALL_TOTALS_UP_TO = 20;
    private static final int QUIET_TOTALS_SHOWN = 10;
    private static final int TOTALS_PER_LINE = 5;
    private static final int MISMATCHES_SHOWN = 20;
    private static final long DRAIN_AFTER_CTRL_C_SECONDS = 10;

    @Spec
    private CommandSpec spec;

    @Option(names = "--events", paramLabel = "N", defaultValue = "50M", converter = CountConverter.class,
        description = "Page views to generate; 0 = unbounded, until Ctrl-C or --seconds. " +
            "Accepts 2_000_000, 2M, 500k.")
    private long events;

    @Option(names = "--apps", paramLabel = "N", defaultValue = "1000", converter = CountConverter.class,
        description = "Number of apps (distinct keys), 1 to 100M. Beyond 1M the sink's per-app tables are " +
            "memory-mapped (in --state-dir if given, else the temporary directory) and the Chronicle maps are sized " +
            "for the apps of a subtask.")
    private long apps;

    @Option(names = "--rate", paramLabel = "RECORDS_PER_S", defaultValue = "0", converter = CountConverter.class,
        description = "Views per second of all source subtasks together; 0 = as fast as possible. At a fixed rate " +
            "latency is measured from when each view was due (no coordinated omission).")
    private long rate;

    @Option(names = {"-p", "--parallelism"}, paramLabel = "N", defaultValue = "1",
        description = "Subtasks of the source, of the count and of the sink (2 threads per unit).")
    private int parallelism;

    @Option(names = "--idle", paramLabel = "STRATEGY", defaultValue = "BACKOFF",
        description = "How idle task threads wait: ${COMPLETION-CANDIDATES}. BUSY_SPIN and YIELD burn a core per " +
            "thread; use them with fewer threads than cores.")
    private IdleStrategyKind idle;

    @Option(names = "--key-prefetch", paramLabel = "N", defaultValue = "" + JobConfig.DEFAULT_KEY_PREFETCH,
        description = "Ring slots whose keys the count task passes to its state as one burst of hints before " +
            "processing them, so that their cache misses overlap; used once a count subtask holds more than 16,384 " +
            "apps (0 turns it off; default ${DEFAULT-VALUE}).")
    private int keyPrefetch;

    @Option(names = "--seconds", paramLabel = "S", defaultValue = "0",
        description = "Stop the sources after this many seconds (for unbounded runs; also caps a bounded one); " +
            "0 = no limit. The views generated until then are still counted and verified.")
    private long seconds;

    @Option(names = "--warmup", paramLabel = "S", defaultValue = "0",
        description = "Also report throughput and latency of the run after its first S seconds (the steady state, " +
            "without JIT warm-up and start-up); 0 = whole run only.")
    private long warmupSeconds;

    @Option(names = "--checkpoint-interval", paramLabel = "MS", defaultValue = "0",
        description = "Take a checkpoint every MS milliseconds (in memory unless --checkpoint-dir) and print a line " +
            "for the newest one each second; 0 = no checkpoints.")
    private long checkpointIntervalMs;

    @Option(names = "--checkpoint-mode", paramLabel = "MODE", defaultValue = "aligned",
        description = "How barriers are handled: aligned (exactly-once, channels block until every barrier is in), " +
            "unaligned (exactly-once, barriers overtake queued records, which are stored as channel state) or " +
            "at-least-once (nothing blocks; replays may duplicate).")
    private String checkpointMode;

    @Option(names = "--aligned-timeout", paramLabel = "MS", defaultValue = "0",
        description = "With --checkpoint-mode aligned: switch a checkpoint to unaligned when its alignment takes " +
            "longer than MS milliseconds; 0 = never.")
    private long alignedTimeoutMs;

    @Option(names = "--checkpoint-dir", paramLabel = "DIR",
        description = "Commit checkpoints durably to DIR (chk-<n>/_metadata and state files, fsynced) instead of " +
            "memory; they are kept when the job is cancelled, to restart from with -s.")
    private java.nio.file.Path checkpointDir;

    @Option(names = "--incremental", defaultValue = "false",
        description = "Incremental checkpoints: with --state-backend chronicle, write only the counts changed since " +
            "the last completed checkpoint and a tenth of the rest (deltas in shared/, a chain of at most 10 files); " +
            "the heap backend keeps writing full snapshots.")
    private boolean incremental;

    @Option(names = "--full-snapshot-every", paramLabel = "N", defaultValue = "10",
        description = "With --incremental: the most files in a subtask's chain (default ${DEFAULT-VALUE}): each delta " +
            "also rewrites one of N slices of the state, and the chain drops its files older than a round of N. " +
            "With --slices never: write a full snapshot once the chain holds N files. Raise it for state much larger " +
            "than what changes between checkpoints.")
    private int fullSnapshotEvery;

    @Option(names = "--slices", paramLabel = "WHEN", defaultValue = "auto",
        description = "With --incremental: when deltas also rewrite the state slice by slice (so no checkpoint writes " +
            "all of it, and the chain drops its files older than a round of --full-snapshot-every): auto (the " +
            "default: from 2,000,000 entries a subtask), always, or never (a full snapshot of the whole state every " +
            "--full-snapshot-every checkpoints: at 10 million keys one of seconds).")
    private String slices;

    @Option(names = {"-s", "--from-checkpoint"}, paramLabel = "PATH",
        description = "Start from a checkpoint or savepoint: its folder (DIR/chk-<n>), its metadata file " +
            "(DIR/chk-<n>/_metadata) or a checkpoint directory (its newest intact checkpoint); the source resumes " +
            "at its position and the counts continue from its state.")
    private java.nio.file.Path fromCheckpoint;

    @Option(names = "--resume", defaultValue = "false",
        description = "Start from the newest intact checkpoint in --checkpoint-dir (skipping incomplete or damaged " +
            "newer ones), or from scratch when it has none: the same command restarts the job after a crash.")
    private boolean resume;

    @Option(names = "--output", paramLabel = "DIR",
        description = "Also write every (app, count) update, exactly once, to DIR with the transactional file sink: " +
            "visible when the checkpoint holding it completes. Check it with verify-output DIR.")
    private java.nio.file.Path output;

    @Option(names = "--fail-at", paramLabel = "N", defaultValue = "0", converter = CountConverter.class,
        description = "Inject a failure when the N-th view (counted in this JVM, replays included) reaches the count.")
    private long failAt;

    @Option(names = "--fail-every", paramLabel = "N", defaultValue = "0", converter = CountConverter.class,
        description = "Inject a failure about every N views (each gap drawn from --fail-seed in [N/2, 3N/2]).")
    private long failEvery;

    @Option(names = "--fail-seed", paramLabel = "S", defaultValue = "1",
        description = "Seed of the --fail-every gaps; the same seed fails at the same views.")
    private long failSeed;

    @Option(names = "--allow-non-restored-state", defaultValue = "false",
        description = "With -s: start even if the checkpoint holds state of operators this job does not have.")
    private boolean allowNonRestoredState;

    @Option(names = "--state-backend", paramLabel = "BACKEND", defaultValue = "chronicle",
        description = "Where the per-app counts live: chronicle (off-heap Chronicle Map with an on-heap front for hot " +
            "keys; the default) or heap (on-heap maps, the reference; fastest when the state fits in the heap).")
    private String stateBackend;

    @Option(names = "--state-dir", paramLabel = "DIR",
        description = "With --state-backend chronicle: keep the counts in memory-mapped Chronicle files under DIR " +
            "(one subdirectory per store, removed when the store closes), for state larger than the heap or than free " +
            "memory; the sink's per-app tables of more than 1M apps are mapped there too. Default: off-heap memory.")
    private java.nio.file.Path stateDir;

    @Option(names = "--restarts", paramLabel = "N", defaultValue = "0",
        description = "Restart a failed job up to N times, from its latest checkpoint, 100 ms after each failure.")
    private int restarts;

    @Option(names = "--quiet-totals", defaultValue = "false",
        description = "With more than " + ALL_TOTALS_UP_TO + " apps, print the first " + QUIET_TOTALS_SHOWN +
            " totals and a summary instead of every app's total.")
    private boolean quietTotals;

    /** Durations of the checkpoints completed during the run (after the warm-up, if any); null without checkpoints. */
    private CheckpointDurations checkpointDurations;

    /**
     * Runs the job and reports on it.
     *
     * @return 0 when the totals verified, 1 when the job failed or was cancelled, 3 when the totals differ.
     * @throws ParameterException for invalid options (exit code 2).
     */
    @Override
    public Integer call()
    {
        final PageViewCount.Options options = validatedOptions();
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();

        if (checkpointIntervalMs < 0)
        {
            throw new ParameterException(spec.commandLine(),
                "--checkpoint-interval must be 0 (off) or a positive number of milliseconds, was " +
                    checkpointIntervalMs);
        }
        if (keyPrefetch < 0 || keyPrefetch > JobConfig.MAX_KEY_PREFETCH)
        {
            throw new ParameterException(spec.commandLine(), "--key-prefetch must be in [0, " +
                JobConfig.MAX_KEY_PREFETCH + "] (0 turns it off), was " + keyPrefetch);
        }
        final JobConfig config = faultToleranceConfig(PageViewCount.jobConfig(options).toBuilder()
            .keyPrefetch(keyPrefetch));
        final JobEnvironment env = JobEnvironment.create(config);
        if (output != null)
        {
            try
            {
                new OutputManifest(events, (int)apps, parallelism).writeOrCheck(output);
            }
            catch (final java.io.IOException | IllegalArgumentException ex)
            {
                throw invalid("--output " + output + ": " + ex.getMessage());
            }
        }
        final PageViewCount job;
        try
        {
            job = PageViewCount.build(env, options, output, new FaultPlan(failAt, failEvery, failSeed));
        }
        catch (final InvalidJobException ex)
        {
            throw invalid(ex.getMessage());
        }
        printHeader(out, options);
        final JobHandle handle;
        try
        {
            handle = env.execute(PageViewCount.JOB_NAME);
        }
        catch (final InvalidJobException ex)
        {
            err.println("ringflow: invalid job: " + ex.getMessage());
            err.flush();
            return 1;
        }

        if (checkpointIntervalMs > 0)
        {
            checkpointDurations = new CheckpointDurations(System.currentTimeMillis() + warmupSeconds * 1_000);
            handle.onCheckpointCompleted(checkpointDurations::record);
        }
        final CountDownLatch reported = new CountDownLatch(1);
        final Thread ctrlC = new Thread(() -> stopOnShutdown(job, handle, reported, err), "ringflow-shutdown");
        Runtime.getRuntime().addShutdownHook(ctrlC);
        try (handle)
        {
            return monitor(job, handle, out, err);
        }
        finally
        {
            out.flush();
            err.flush();
            reported.countDown();
            try
            {
                Runtime.getRuntime().removeShutdownHook(ctrlC);
            }
            catch (final IllegalStateException shuttingDown)
            {
                // The hook is running: it waits for `reported`, then lets the JVM exit.
            }
        }
    }

    /** Applies the checkpoint, restore, state and restart options; any invalid one is a usage error. */
    private JobConfig faultToleranceConfig(final JobConfig.Builder config)
    {
        final String mode = checkpointMode.toLowerCase(Locale.ROOT);
        if (!java.util.List.of("aligned", "unaligned", "at-least-once").contains(mode))
        {
            throw invalid("--checkpoint-mode must be aligned, unaligned or at-least-once, was " + checkpointMode);
        }
        if (alignedTimeoutMs < 0 || (alignedTimeoutMs > 0 && !"aligned".equals(mode)))
        {
            throw invalid("--aligned-timeout must be 0 or a positive number of milliseconds, and only goes with " +
                "--checkpoint-mode aligned; was " + alignedTimeoutMs + " with " + mode);
        }
        final boolean checkpointOptions = !"aligned".equals(mode) || alignedTimeoutMs > 0 || checkpointDir != null ||
            incremental;
        if (fullSnapshotEvery < 1 || (fullSnapshotEvery != CheckpointConfig.DEFAULT_FULL_SNAPSHOT_EVERY && !incremental))
        {
            throw invalid("--full-snapshot-every must be at least 1 and only goes with --incremental; was " +
                fullSnapshotEvery + (incremental ? "" : " without --incremental"));
        }
        if (!List.of("auto", "always", "never").contains(slices))
        {
            throw invalid("--slices must be auto, always or never; was '" + slices + "'");
        }
        if (!"auto".equals(slices) && !incremental)
        {
            throw invalid("--slices only goes with --incremental");
        }
        if (checkpointIntervalMs == 0 && checkpointOptions)
        {
            throw invalid("--checkpoint-mode, --aligned-timeout, --checkpoint-dir and --incremental need " +
                "--checkpoint-interval");
        }
        if (allowNonRestoredState && fromCheckpoint == null && !resume)
        {
            throw invalid("--allow-non-restored-state only goes with -s/--from-checkpoint or --resume");
        }
        if (resume && (checkpointDir == null || fromCheckpoint != null))
        {
            throw invalid("--resume needs --checkpoint-dir (where it looks for checkpoints) and no -s");
        }
        if (failAt < 0 || failEvery < 0)
        {
            throw invalid("--fail-at and --fail-every must be >= 0, were " + failAt + " and " + failEvery);
        }
        if ((failAt > 0 || failEvery > 0) && restarts == 0)
        {
            throw invalid("--fail-at and --fail-every need --restarts N (N >= 1): an injected failure otherwise " +
                "ends the job");
        }
        if (output != null && events == 0)
        {
            throw invalid("--output needs a bounded run (--events N) so that verify-output knows what to expect");
        }
        if (restarts < 0)
        {
            throw invalid("--restarts must be >= 0, was " + restarts);
        }
        final String backend = stateBackend.toLowerCase(Locale.ROOT);
        if (!"heap".equals(backend) && !"chronicle".equals(backend))
        {
            throw invalid("--state-backend must be heap or chronicle, was " + stateBackend);
        }
        if (stateDir != null && !"chronicle".equals(backend))
        {
            throw invalid("--state-dir only goes with --state-backend chronicle (the heap backend keeps its state on " +
                "the heap)");
        }
        if (checkpointIntervalMs > 0)
        {
            final CheckpointConfig.Builder checkpoints = CheckpointConfig.every(Duration.ofMillis(checkpointIntervalMs))
                .unaligned("unaligned".equals(mode)).incremental(incremental).fullSnapshotEvery(fullSnapshotEvery)
                .slices(CheckpointConfig.Slices.valueOf(slices.toUpperCase(java.util.Locale.ROOT)));
            if (alignedTimeoutMs > 0)
            {
                checkpoints.alignedTimeout(Duration.ofMillis(alignedTimeoutMs));
            }
            if (checkpointDir != null)
            {
                try
                {
                    checkpoints.storage(new io.ringflow.state.checkpoint.DirectoryCheckpointStorage(checkpointDir))
                        .retainOnCancel(true);
                }
                catch (final java.io.IOException ex)
                {
                    throw invalid("--checkpoint-dir " + checkpointDir + " cannot be used: " + ex.getMessage());
                }
            }
            config.checkpointing(checkpoints.build()).checkpointingMode("at-least-once".equals(mode) ?
                io.ringflow.engine.api.CheckpointingMode.AT_LEAST_ONCE :
                io.ringflow.engine.api.CheckpointingMode.EXACTLY_ONCE);
        }
        return config
            .restoreFrom(fromCheckpoint)
            .resumeFrom(resume ? checkpointDir : null)
            .allowNonRestoredState(allowNonRestoredState)
            .stateBackend("chronicle".equals(backend) ? chronicleBackend() : new io.ringflow.state.heap.HeapStateBackend())
            .restartStrategy(restarts == 0 ? io.ringflow.engine.api.RestartStrategy.none() :
                io.ringflow.engine.api.RestartStrategy.fixedDelay(restarts, Duration.ofMillis(100)))
            .build();
    }

    /**
     * The default Chronicle backend, in {@code --state-dir} if given, with maps sized for the apps of one count subtask
     * (a fifth more, for uneven key groups) once that is more than the default sizing.
     */
    private io.ringflow.state.chronicle.ChronicleStateBackend chronicleBackend()
    {
        ChronicleStateConfig config = ChronicleStateConfig.defaults();
        final long appsPerSubtask = (apps + parallelism - 1) / parallelism;
        if (appsPerSubtask > ChronicleStateConfig.DEFAULT_EXPECTED_ENTRIES)
        {
            config = config.withExpectedEntriesPerState(appsPerSubtask + appsPerSubtask / 5);
        }
        if (stateDir != null)
        {
            try
            {
                java.nio.file.Files.createDirectories(stateDir);
            }
            catch (final java.io.IOException ex)
            {
                throw invalid("--state-dir " + stateDir + " cannot be created: " + ex);
            }
            config = config.withDirectory(stateDir);
        }
        try
        {
            return new io.ringflow.state.chronicle.ChronicleStateBackend(config);
        }
        catch (final IllegalArgumentException ex)
        {
            throw invalid("--apps " + apps + ": " + ex.getMessage());
        }
    }

    private PageViewCount.Options validatedOptions()
    {
        if (events < 0)
        {
            throw invalid("--events must be >= 0 (0 = unbounded), was " + events);
        }
        if (apps < 1 || apps > MAX_APPS)
        {
            throw invalid(String.format(Locale.ROOT, "--apps must be in [1, %,d], was %d", MAX_APPS, apps));
        }
        if (rate < 0)
        {
            throw invalid("--rate must be >= 0 (0 = as fast as possible), was " + rate);
        }
        final int maxParallelism = JobConfig.defaults().maxParallelism();
        if (parallelism < 1 || parallelism > maxParallelism)
        {
            throw invalid("--parallelism must be in [1, " + maxParallelism + "], was " + parallelism);
        }
        if (seconds < 0)
        {
            throw invalid("--seconds must be >= 0 (0 = no limit), was " + seconds);
        }
        if (warmupSeconds < 0)
        {
            throw invalid("--warmup must be >= 0 (0 = whole run only), was " + warmupSeconds);
        }
        return new PageViewCount.Options(events, (int)apps, rate, parallelism, idle, stateDir);
    }

    private ParameterException invalid(final String message)
    {
        return new ParameterException(spec.commandLine(), message);
    }

    /** Runs on Ctrl-C: ends the sources and holds the JVM until the summary is printed, or cancels the job. */
    private static void stopOnShutdown(
        final PageViewCount job, final JobHandle handle, final CountDownLatch reported, final PrintWriter err)
    {
        if (!handle.status().isTerminal())
        {
            err.println();
            err.println("interrupted: stopping the sources; the views generated so far are still counted");
            err.flush();
            job.requestStop();
        }
        try
        {
            if (!reported.await(DRAIN_AFTER_CTRL_C_SECONDS, TimeUnit.SECONDS))
            {
                err.println("the job did not finish within " + DRAIN_AFTER_CTRL_C_SECONDS + " s: cancelling it");
                err.flush();
                handle.cancel();
            }
        }
        catch (final InterruptedException ex)
        {
            handle.cancel();
            Thread.currentThread().interrupt();
        }
    }

    private int monitor(final PageViewCount job, final JobHandle handle, final PrintWriter out, final PrintWriter err)
    {
        final String us = microsLabel();
        out.printf(Locale.ROOT, "%10s %14s %16s %10s %10s %10s%n", "elapsed", "records/s", "total records",
            "p50 " + us, "p99 " + us, "p99.9 " + us);
        out.flush();

        final ReportLine line = new ReportLine();
        final Histogram interval = new Histogram(3);
        final Histogram overall = new Histogram(3);
        final Histogram steady = new Histogram(3);
        final long start = System.nanoTime();
        final long steadyFrom = start + TimeUnit.SECONDS.toNanos(warmupSeconds);
        long steadyStartTotal = -1;
        long steadyStartNanos = 0;
        JobThreadAllocation allocation = null;
        Allocated allocated = null;
        long lastTick = start;
        long lastTotal = 0;
        long lastCheckpointShown = -1;
        long nextTick = start + SECOND;
        boolean interrupted = false;
        boolean firstReported = false;
        final Thread monitorThread = Thread.currentThread();
        handle.termination().whenComplete((status, failure) -> LockSupport.unpark(monitorThread));
        while (true)
        {
            if (!firstReported && job.recordsReceived() > 0)
            {
                // how long a (re)started JVM takes to do useful work: start-up, restore and the first view
                firstReported = true;
                out.printf(Locale.ROOT, "first update reached the sink %,d ms after the JVM started%n",
                    System.currentTimeMillis() - java.lang.management.ManagementFactory.getRuntimeMXBean()
                        .getStartTime());
                out.flush();
            }
            // until the first update, look every millisecond so its time is exact; then once a second. A park, woken
            // by the job's end, rather than a timed get: that would build a TimeoutException (and its stack) a second
            final long wait = firstReported ? nextTick - System.nanoTime() :
                Math.min(nextTick - System.nanoTime(), TimeUnit.MILLISECONDS.toNanos(1));
            if (wait > 0 && !handle.termination().isDone())
            {
                LockSupport.parkNanos(wait);
            }
            if (handle.termination().isDone())
            {
                break;
            }
            if (Thread.interrupted())
            {
                interrupted = true;
                job.requestStop();
                continue;
            }
            if (System.nanoTime() < nextTick)
            {
                // a millisecond look for the first update, a spurious wake-up, not a second's report
                continue;
            }
            final long now = System.nanoTime();
            final long total = job.recordsReceived();
            interval.reset();
            job.takeIntervalLatencies(interval);
            overall.add(interval);
            if (warmupSeconds > 0 && lastTick >= steadyFrom)
            {
                // this interval began after the warm-up: it belongs to the steady state
                steady.add(interval);
            }
            if (warmupSeconds > 0 && steadyStartTotal < 0 && now >= steadyFrom)
            {
                steadyStartTotal = total;
                steadyStartNanos = now;
                allocation = JobThreadAllocation.start(PageViewCount.JOB_NAME);
            }
            else if (allocation != null)
            {
                // the last reading while every thread of the job is alive covers the steady state
                final long bytes = allocation.allocatedSinceStart();
                if (bytes >= 0)
                {
                    allocated = new Allocated(allocation.threadCount(), bytes, total - steadyStartTotal,
                        checkpointDurations == null ? 0 : checkpointDurations.completed());
                }
            }
            appendSecond(line.start(), now - start,
                Math.round((total - lastTotal) * 1e9 / Math.max(1, now - lastTick)), total, interval);
            line.printTo(out);
            final CompletedCheckpoint newest = newestCheckpoint(handle);
            if (newest != null && newest.checkpointId() != lastCheckpointShown)
            {
                newest.appendSummary(line.start().append("           "));
                line.printTo(out);
                lastCheckpointShown = newest.checkpointId();
            }
            out.flush();
            lastTick = now;
            lastTotal = total;
            nextTick = Math.max(nextTick + SECOND, now + SECOND / 2);
            if (seconds > 0 && now - start >= TimeUnit.SECONDS.toNanos(seconds) && !job.stopRequested())
            {
                out.printf("time limit of %d s reached: stopping the sources%n", seconds);
                job.requestStop();
            }
        }
        final long end = System.nanoTime();
        final long elapsed = end - start;
        interval.reset();
        job.takeIntervalLatencies(interval);
        overall.add(interval);
        if (warmupSeconds > 0 && lastTick >= steadyFrom)
        {
            steady.add(interval);
        }
        final Steady steadyPart = warmupSeconds == 0 ? null : new Steady(warmupSeconds, steady,
            steadyStartTotal < 0 ? 0 : job.recordsReceived() - steadyStartTotal,
            steadyStartTotal < 0 ? 0 : end - steadyStartNanos, allocated);
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
        return report(job, handle, elapsed, overall, steadyPart, out, err);
    }

    private int report(
        final PageViewCount job,
        final JobHandle handle,
        final long elapsedNanos,
        final Histogram latencies,
        final Steady steady,
        final PrintWriter out,
        final PrintWriter err)
    {
        final JobStatus status = handle.status();
        if (status == JobStatus.FAILED)
        {
            printFailure(handle, err);
            return 1;
        }
        if (status != JobStatus.FINISHED)
        {
            err.printf("ringflow: job '%s' ended %s before its sources ended; its totals cannot be verified%n",
                handle.jobName(), status);
            return 1;
        }

        final boolean restored = fromCheckpoint != null || resume;
        final PageViewCount.Result result = job.result(restored, restarts > 0);
        final double elapsedSeconds = elapsedNanos / 1e9;
        final String us = microsLabel();
        out.println();
        out.printf(Locale.ROOT, "events:     %,d generated, %,d counts received by the sink%n",
            result.generated(), result.received());
        out.printf(Locale.ROOT, "elapsed:    %.2f s%n", elapsedSeconds);
        out.printf(Locale.ROOT, "throughput: %,d records/s on average%n",
            Math.round(result.received() / Math.max(elapsedSeconds, 1e-9)));
        out.printf(Locale.ROOT, "latency %s: p50 %s  p90 %s  p99 %s  p99.9 %s  p99.99 %s  max %s  (%,d samples)%n",
            us, micros(latencies, 50.0).strip(), micros(latencies, 90.0).strip(), micros(latencies, 99.0).strip(),
            micros(latencies, 99.9).strip(), micros(latencies, 99.99).strip(),
            latencies.getTotalCount() == 0 ? "-" : String.format(Locale.ROOT, "%.1f", latencies.getMaxValue() / 1e3),
            latencies.getTotalCount());
        if (steady != null)
        {
            if (steady.latencies().getTotalCount() == 0)
            {
                out.printf(Locale.ROOT, "after the %d s warm-up: no records (the run ended within it)%n",
                    steady.warmupSeconds());
            }
            else
            {
                out.printf(Locale.ROOT, "after the %d s warm-up: %,d records/s; latency %s: p50 %s  p90 %s  p99 %s  " +
                        "p99.9 %s  max %s  (%,d samples)%n", steady.warmupSeconds(),
                    Math.round(steady.records() * 1e9 / Math.max(1, steady.nanos())), us,
                    micros(steady.latencies(), 50.0).strip(), micros(steady.latencies(), 90.0).strip(),
                    micros(steady.latencies(), 99.0).strip(), micros(steady.latencies(), 99.9).strip(),
                    String.format(Locale.ROOT, "%.1f", steady.latencies().getMaxValue() / 1e3),
                    steady.latencies().getTotalCount());
            }
            final Allocated allocated = steady.allocated();
            if (allocated != null && allocated.records() > 0)
            {
                out.printf(Locale.ROOT, "after the %d s warm-up the job's %d threads allocated %,d B: %.3f B a record%s%n",
                    steady.warmupSeconds(), allocated.threads(), allocated.bytes(),
                    (double)allocated.bytes() / allocated.records(), allocated.checkpoints() == 0 ? "" :
                        String.format(Locale.ROOT, ", %,d B a checkpoint (%,d checkpoints)",
                            allocated.bytes() / allocated.checkpoints(), allocated.checkpoints()));
            }
        }
        if (checkpointDurations != null)
        {
            checkpointDurations.print(warmupSeconds, out);
        }
        printTotals(result.counts(), out);

        if (result.verified())
        {
            out.println("verified: totals equal generated events per app" + (restarts > 0 ?
                " (restarts: " + handle.mxBean().getRestartCount() + "; updates seen by the in-memory sink may repeat)" :
                ""));
            return output == null ? 0 : reportOutput(out, err);
        }
        final List<String> mismatches = result.mismatches();
        err.printf(Locale.ROOT, "ringflow: verification FAILED: %s problem(s); totals differ from the events " +
            "generated per app:%n", mismatches.size() < PageViewCount.MAX_MISMATCHES ? mismatches.size() :
            mismatches.size() + " or more");
        mismatches.stream().limit(MISMATCHES_SHOWN).forEach(line -> err.println("  " + line));
        if (mismatches.size() > MISMATCHES_SHOWN)
        {
            err.printf("  ... and %d more%n", mismatches.size() - MISMATCHES_SHOWN);
        }
        return VERIFY_FAILED;
    }

    /** Verifies the exactly-once output directory and prints the outcome; 0 when exact, else VERIFY_FAILED. */
    private int reportOutput(final PrintWriter out, final PrintWriter err)
    {
        final OutputVerifier.Report report;
        try
        {
            report = OutputVerifier.verify(output, OutputManifest.read(output));
        }
        catch (final java.io.IOException ex)
        {
            err.println("ringflow: cannot read the output in " + output + ": " + ex);
            return VERIFY_FAILED;
        }
        return VerifyOutputCommand.print(report, output, false, out, err) ? 0 : VERIFY_FAILED;
    }

    /**
     * Prints why a failed job failed: the job and the failing operator and subtask on one line, then the stack trace
     * of the original exception.
     *
     * @param handle a job whose status is FAILED.
     * @param err    where to print.
     */
    static void printFailure(final JobHandle handle, final PrintWriter err)
    {
        try
        {
            handle.awaitTermination(Duration.ofSeconds(1));
            err.printf("ringflow: job '%s' failed: %s%n", handle.jobName(),
                handle.failureCause().map(Throwable::toString).orElse("no cause reported"));
        }
        catch (final JobExecutionException ex)
        {
            err.println("ringflow: " + ex.getMessage());
            final Throwable cause =
                ex.getCause() instanceof TaskFailureException failure && failure.getCause() != null ?
                    failure.getCause() : ex.getCause();
            if (cause != null)
            {
                err.println("cause:");
                cause.printStackTrace(err);
            }
        }
        catch (final TimeoutException | InterruptedException ex)
        {
            err.printf("ringflow: job '%s' failed: %s%n", handle.jobName(), handle.failureCause().orElse(ex));
        }
    }

    private void printTotals(final LongColumn counts, final PrintWriter out)
    {
        final int apps = counts.length();
        final int shown = quietTotals && apps > ALL_TOTALS_UP_TO ? QUIET_TOTALS_SHOWN : apps;
        final int idWidth = Integer.toString(apps - 1).length();
        long max = 0;
        long min = Long.MAX_VALUE;
        long sum = 0;
        for (int app = 0; app < apps; app++)
        {
            final long count = counts.get(app);
            max = Math.max(max, count);
            min = Math.min(min, count);
            sum += count;
        }
        final int countWidth = String.format(Locale.ROOT, "%,d", max).length();
        out.printf(Locale.ROOT, "per-app totals (%,d apps):%n", apps);
        final StringBuilder line = new StringBuilder();
        for (int app = 0; app < shown; app++)
        {
            line.append(String.format(Locale.ROOT, "  app %" + idWidth + "d: %," + countWidth + "d", app,
                counts.get(app)));
            if ((app + 1) % TOTALS_PER_LINE == 0 || app == shown - 1)
            {
                out.println(line);
                line.setLength(0);
            }
        }
        if (shown < apps)
        {
            out.printf(Locale.ROOT, "  ... %,d more apps; over all %,d apps: min %,d, max %,d, sum %,d%n",
                apps - shown, apps, min, max, sum);
        }
    }

    private static void printHeader(final PrintWriter out, final PageViewCount.Options options)
    {
        out.printf(Locale.ROOT, "ringflow page-view: %s over %,d apps, %s, parallelism %d, idle %s%n",
            options.unbounded() ? "unbounded views" : String.format(Locale.ROOT, "%,d views", options.events()),
            options.apps(),
            options.rate() == 0 ? "as fast as possible" : String.format(Locale.ROOT, "%,d views/s", options.rate()),
            options.parallelism(), options.idleStrategy());
        out.flush();
    }

    /**
     * @return the newest completed checkpoint, or null: from the sample's listener once it has seen one (no copy of
     *     the job's list each second), else from the job, since checkpoints completed before the listener was
     *     registered reached only the job's list.
     */
    private CompletedCheckpoint newestCheckpoint(final JobHandle handle)
    {
        final CompletedCheckpoint heard = checkpointDurations == null ? null : checkpointDurations.newest();
        if (heard != null)
        {
            return heard;
        }
        final List<CompletedCheckpoint> completed = handle.completedCheckpoints();
        return completed.isEmpty() ? null : completed.get(completed.size() - 1);
    }

    /**
     * Appends one second's report line, as {@code "%8.1f s %,14d %,16d %10.1f %10.1f %10.1f"} of the elapsed seconds,
     * the rate, the total and the interval's p50, p99 and p99.9 in microseconds would print it ({@code "-"} for an
     * empty interval), without the formatter's garbage.
     */
    static StringBuilder appendSecond(final StringBuilder line, final long elapsedNanos, final long perSecond,
        final long total, final Histogram interval)
    {
        ReportLine.appendTenths(line, 8, elapsedNanos, SECOND).append(" s ");
        ReportLine.appendGrouped(line, 14, perSecond);
        ReportLine.appendGrouped(line.append(' '), 16, total);
        appendMicros(line.append(' '), interval, 50.0);
        appendMicros(line.append(' '), interval, 99.0);
        appendMicros(line.append(' '), interval, 99.9);
        return line;
    }

    /** Appends {@link #micros}' text without a format. */
    private static void appendMicros(final StringBuilder line, final Histogram histogram, final double percentile)
    {
        if (histogram.getTotalCount() == 0)
        {
            ReportLine.appendDash(line, 10);
            return;
        }
        ReportLine.appendTenths(line, 10, histogram.getValueAtPercentile(percentile), 1_000);
    }

    private static String micros(final Histogram histogram, final double percentile)
    {
        if (histogram.getTotalCount() == 0)
        {
            return String.format(Locale.ROOT, "%10s", "-");
        }
        return String.format(Locale.ROOT, "%10.1f", histogram.getValueAtPercentile(percentile) / 1e3);
    }

    /** @return "µs" when standard output can encode it, else "us". */
    private static String microsLabel()
    {
        final String encoding = System.getProperty("sun.stdout.encoding");
        final Charset charset = encoding != null && Charset.isSupported(encoding) ? Charset.forName(encoding) :
            Charset.defaultCharset();
        return charset.newEncoder().canEncode("\u00b5s") ? "\u00b5s" : "us";
    }

    /**
     * The distribution of checkpoint durations over a run: end to end, the slowest task's synchronous and
     * asynchronous parts, and per task when the barrier reached it and when it acknowledged (both after the trigger),
     * so that the summary shows where a checkpoint's time goes. Recorded on the threads that complete checkpoints, a
     * few times a second; read once at the end.
     */
    static final class CheckpointDurations
    {
        private final long fromMillis;
        /** Durations up to an hour, in ns, are recorded without the histograms growing (an allocation) on the way. */
        private static final long HIGHEST_NANOS = TimeUnit.HOURS.toNanos(1);
        private static final Function<String, Histogram[]> NEW_PHASES =
            task -> new Histogram[] {new Histogram(HIGHEST_NANOS, 3), new Histogram(HIGHEST_NANOS, 3)};

        private final Histogram endToEnd = new Histogram(HIGHEST_NANOS, 3);
        private final Histogram sync = new Histogram(HIGHEST_NANOS, 3);
        private final Histogram async = new Histogram(HIGHEST_NANOS, 3);

        /** @param fromMillis checkpoints triggered before this time (the warm-up) are not recorded. */
        CheckpointDurations(final long fromMillis)
        {
            this.fromMillis = fromMillis;
        }

        /** Per task, first seen first: when the barrier reached it and when it acknowledged, after the trigger. */
        private final Map<String, Histogram[]> phases = new LinkedHashMap<>();

        /** The newest checkpoint completed, warm-up or not; null before the first. */
        private volatile CompletedCheckpoint newest;

        synchronized void record(final CompletedCheckpoint checkpoint)
        {
            final CompletedCheckpoint shown = newest;
            if (shown == null || checkpoint.checkpointId() > shown.checkpointId())
            {
                newest = checkpoint;
            }
            // indexed: this listener runs on a task thread at every checkpoint, and an iterator would be garbage
            final List<SubtaskCheckpointStats> tasks = checkpoint.subtasks();
            for (int i = 0; i < tasks.size(); i++)
            {
                // a task's histograms (about 270 KB each) made at its first checkpoint, warm-up or not: made at the
                // first steady one, they counted as that window's garbage (a megabyte over a few hundred checkpoints)
                phases.computeIfAbsent(tasks.get(i).task(), NEW_PHASES);
            }
            if (checkpoint.triggerMillis() < fromMillis)
            {
                return;
            }
            endToEnd.recordValue(Math.min(HIGHEST_NANOS, Math.max(0, checkpoint.durationNanos())));
            sync.recordValue(Math.min(HIGHEST_NANOS, Math.max(0, checkpoint.maxSyncNanos())));
            async.recordValue(Math.min(HIGHEST_NANOS, Math.max(0, checkpoint.maxAsyncNanos())));
            for (int i = 0; i < tasks.size(); i++)
            {
                final SubtaskCheckpointStats task = tasks.get(i);
                if (task.startDelayNanos() < 0)
                {
                    continue;
                }
                final Histogram[] histograms = phases.get(task.task());
                histograms[0].recordValue(Math.min(HIGHEST_NANOS, task.startDelayNanos()));
                histograms[1].recordValue(Math.min(HIGHEST_NANOS, Math.max(0, task.acknowledgedAfterNanos())));
            }
        }

        /** @return the newest checkpoint completed so far, warm-up or not; null before the first. */
        CompletedCheckpoint newest()
        {
            return newest;
        }

        /** @return the checkpoints recorded so far. */
        synchronized long completed()
        {
            return endToEnd.getTotalCount();
        }

        synchronized void print(final long warmupSeconds, final PrintWriter out)
        {
            final String us = microsLabel();
            out.printf(Locale.ROOT, "checkpoints: %,d completed%s; %s p50 / p99 / max: end to end %s / %s / %s, " +
                    "sync (slowest task) %s / %s / %s, async %s / %s / %s%n", endToEnd.getTotalCount(),
                warmupSeconds > 0 ? " after the " + warmupSeconds + " s warm-up" : "", us,
                micros(endToEnd, 50.0).strip(), micros(endToEnd, 99.0).strip(), max(endToEnd),
                micros(sync, 50.0).strip(), micros(sync, 99.0).strip(), max(sync),
                micros(async, 50.0).strip(), micros(async, 99.0).strip(), max(async));
            // a task with no steady checkpoint (finished, or only seen in the warm-up) is left out; no task, no line
            if (phases.values().stream().anyMatch(histograms -> histograms[0].getTotalCount() > 0))
            {
                final StringBuilder line = new StringBuilder("checkpoint phases, " + us + " after the trigger, p50:");
                phases.forEach((task, histograms) ->
                {
                    if (histograms[0].getTotalCount() > 0)
                    {
                        line.append(" '").append(task).append("' barrier ")
                            .append(micros(histograms[0], 50.0).strip()).append(", acknowledged ")
                            .append(micros(histograms[1], 50.0).strip()).append(';');
                    }
                });
                line.append(" completed ").append(micros(endToEnd, 50.0).strip());
                out.println(line);
            }
        }

        private static String max(final Histogram histogram)
        {
            return histogram.getTotalCount() == 0 ? "-" :
                String.format(Locale.ROOT, "%.1f", histogram.getMaxValue() / 1e3);
        }
    }

    /**
     * The part of the run after the warm-up.
     *
     * @param warmupSeconds the warm-up left out.
     * @param latencies     latencies of the records received in whole report intervals after it.
     * @param records       records received after it.
     * @param nanos         time from the end of the warm-up to the end of the run.
     * @param allocated     what the job's threads allocated after it; null when not measured.
     */
    private record Steady(long warmupSeconds, Histogram latencies, long records, long nanos, Allocated allocated)
    {
    }

    /**
     * Bytes the job's threads allocated from the end of the warm-up to the last report second at which all of them
     * were alive, with the records received and the checkpoints completed in the same span.
     */
    private record Allocated(int threads, long bytes, long records, long checkpoints)
    {
    }
}
