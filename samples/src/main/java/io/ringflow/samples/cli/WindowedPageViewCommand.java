package io.ringflow.samples.cli;

import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.RestartStrategy;
import io.ringflow.engine.api.functions.MapFunction;
import io.ringflow.samples.windowed.BruteForceWindows;
import io.ringflow.samples.windowed.TimedView;
import io.ringflow.samples.windowed.WindowCount;
import io.ringflow.samples.windowed.WindowResults;
import io.ringflow.samples.windowed.WindowedPageViews;
import io.ringflow.state.heap.HeapStateBackend;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code ringflow windowed-page-view}: the seeds' first example of state, "the sum or average of the last minute":
 * page views per app per minute and the average view duration per app over the last five minutes, every minute, in
 * event time with out-of-order timestamps; every window is checked against a brute-force count of the same input.
 */
@Command(
    name = "windowed-page-view",
    header = "Views per app per minute and a sliding average, in event time, verified by brute force.",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpAutoWidth = true,
    description = {
        "Generates --events page views of --apps apps, --rate views per second of event",
        "time, each up to --out-of-orderness out of order; gives them timestamps and",
        "bounded-out-of-orderness watermarks; counts views per app in tumbling --window",
        "windows and averages view durations per app in sliding --sliding-size windows",
        "every --slide. Then recomputes every window from the generated input, without",
        "the engine, and checks that each was emitted with exactly that result.",
        "--fail-at makes the job fail once (it restarts from its newest checkpoint).",
        ""
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        "0:every window's result is right",
        "1:a window is missing, extra or wrong, or the job failed",
        "2:invalid command line"
    })
public final class WindowedPageViewCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Option(names = "--events", defaultValue = "2000000", converter = CountConverter.class,
        description = "Page views to generate (default: ${DEFAULT-VALUE}; 2M and 500k work).")
    private long events;

    @Option(names = "--apps", defaultValue = "1000", description = "Distinct apps (default: ${DEFAULT-VALUE}).")
    private int apps;

    @Option(names = "--rate", defaultValue = "1000", paramLabel = "VIEWS_PER_SECOND",
        description = "Views per second of event time (default: ${DEFAULT-VALUE}: 2M views span 33 minutes).")
    private long rate;

    @Option(names = "--out-of-orderness", defaultValue = "5s", converter = DurationConverter.class,
        description = "How far out of order views arrive, and what the watermarks allow for (default: 5s).")
    private Duration outOfOrderness;

    @Option(names = "--window", defaultValue = "1m", converter = DurationConverter.class,
        description = "Tumbling window size (default: 1m).")
    private Duration window;

    @Option(names = "--sliding-size", defaultValue = "5m", converter = DurationConverter.class,
        description = "Sliding window size (default: 5m).")
    private Duration slidingSize;

    @Option(names = "--slide", defaultValue = "1m", converter = DurationConverter.class,
        description = "Sliding window slide (default: 1m).")
    private Duration slide;

    @Option(names = {"-p", "--parallelism"}, defaultValue = "2",
        description = "Parallelism of the windows (default: ${DEFAULT-VALUE}).")
    private int parallelism;

    @Option(names = "--state-backend", defaultValue = "chronicle",
        description = "chronicle (off-heap, the default) or heap.")
    private String stateBackend;

    @Option(names = "--checkpoint-interval", defaultValue = "100", paramLabel = "MS",
        description = "Checkpoint interval in ms; 0 for none (default: ${DEFAULT-VALUE}).")
    private long checkpointInterval;

    @Option(names = "--fail-at", paramLabel = "N", converter = CountConverter.class, defaultValue = "0",
        description = "Fail once at the N-th window result of a subtask; the job restarts from its newest checkpoint.")
    private long failAt;

    @Override
    public Integer call() throws Exception
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        if (events <= 0 || apps <= 0 || rate <= 0 || parallelism <= 0 || checkpointInterval < 0 || failAt < 0)
        {
            err.println("ringflow windowed-page-view: --events, --apps, --rate and --parallelism must be > 0, " +
                "--checkpoint-interval and --fail-at >= 0");
            return 2;
        }
        if (!stateBackend.equals("chronicle") && !stateBackend.equals("heap"))
        {
            err.println("ringflow windowed-page-view: --state-backend is chronicle or heap, was " + stateBackend);
            return 2;
        }
        final JobConfig.Builder config = JobConfig.builder();
        if (stateBackend.equals("heap"))
        {
            config.stateBackend(new HeapStateBackend());
        }
        if (checkpointInterval > 0)
        {
            config.checkpointing(CheckpointConfig.every(Duration.ofMillis(checkpointInterval)).build());
        }
        if (failAt > 0)
        {
            if (checkpointInterval == 0)
            {
                err.println("ringflow windowed-page-view: --fail-at needs checkpoints (--checkpoint-interval > 0)");
                return 2;
            }
            config.restartStrategy(RestartStrategy.fixedDelay(3, Duration.ofMillis(100)));
        }
        final JobEnvironment env;
        final WindowedPageViews.Streams streams;
        try
        {
            env = JobEnvironment.create(config.build());
            streams = WindowedPageViews.build(env, events, apps, rate, outOfOrderness, window, slidingSize, slide,
                parallelism);
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("ringflow windowed-page-view: " + ex.getMessage());
            return 2;
        }
        final WindowResults perMinute = new WindowResults();
        final WindowResults sliding = new WindowResults();
        final java.util.concurrent.atomic.AtomicBoolean failed = new java.util.concurrent.atomic.AtomicBoolean();
        (failAt > 0 ? streams.perMinute().map(() -> new FailOnce(failAt, failed)).returns(WindowCount.class)
            .uid("faults").setParallelism(parallelism) : streams.perMinute())
            .sinkTo(perMinute).uid("per-minute-results").setParallelism(parallelism);
        streams.slidingAverage().sinkTo(sliding).uid("sliding-results").setParallelism(parallelism);

        final long start = System.nanoTime();
        final JobStatus status;
        final AtomicInteger checkpoints = new AtomicInteger();
        final int restarts;
        try (JobHandle job = env.execute("windowed-page-view"))
        {
            job.onCheckpointCompleted(c -> checkpoints.incrementAndGet());
            status = job.awaitTermination(Duration.ofHours(1));
            restarts = job.restartCount();
        }
        final double seconds = (System.nanoTime() - start) / 1e9;
        out.printf("job %s in %.1f s (%,.0f views/s) after %d restart(s), %d checkpoints completed%n", status,
            seconds, events / seconds, restarts, checkpoints.get());
        if (status != JobStatus.FINISHED)
        {
            return 1;
        }
        final boolean tumblingOk = verify(out, "views per app per " + window.toMinutes() + " min", perMinute,
            BruteForceWindows.compute(events, apps, rate, outOfOrderness.toMillis(), window.toMillis(),
                window.toMillis()));
        final boolean slidingOk = verify(out, "average duration per app, " + slidingSize.toMinutes() + " min every " +
            slide.toMinutes() + " min", sliding, BruteForceWindows.compute(events, apps, rate,
            outOfOrderness.toMillis(), slidingSize.toMillis(), slide.toMillis()));
        sample(out, perMinute, sliding);
        return tumblingOk && slidingOk ? 0 : 1;
    }

    private static boolean verify(final PrintWriter out, final String what, final WindowResults results,
        final Map<String, WindowCount> expected)
    {
        int wrong = 0;
        int missing = 0;
        for (final Map.Entry<String, WindowCount> entry : expected.entrySet())
        {
            final WindowCount actual = results.latest().get(entry.getKey());
            if (actual == null)
            {
                missing++;
            }
            else if (!actual.equals(entry.getValue()))
            {
                if (wrong++ < 3)
                {
                    out.printf("  WRONG %s: got %s, brute force says %s%n", entry.getKey(), actual, entry.getValue());
                }
            }
        }
        final long extra = results.latest().keySet().stream().filter(k -> !expected.containsKey(k)).count();
        final boolean ok = wrong == 0 && missing == 0 && extra == 0;
        out.printf("%s: %,d windows, %,d results received; %s%n", what, expected.size(), results.received(),
            ok ? "every window matches the brute-force count" :
                wrong + " wrong, " + missing + " missing, " + extra + " unexpected");
        return ok;
    }

    private static void sample(final PrintWriter out, final WindowResults perMinute, final WindowResults sliding)
    {
        final WindowCount first = perMinute.latest().values().stream()
            .filter(c -> c.app() == 0).min((a, b) -> Long.compare(a.windowStart(), b.windowStart())).orElse(null);
        if (first != null)
        {
            out.printf("app 0, first minute from %s: %d views, average duration %.0f ms%n",
                java.time.Instant.ofEpochMilli(first.windowStart()), first.views(), first.averageDuration());
        }
    }

    /** Fails the job once, at the N-th window result of a subtask. */
    static final class FailOnce implements MapFunction<WindowCount, WindowCount>
    {
        private final long at;
        private final java.util.concurrent.atomic.AtomicBoolean failed;
        private long seen;

        FailOnce(final long at, final java.util.concurrent.atomic.AtomicBoolean failed)
        {
            this.at = at;
            this.failed = failed;
        }

        @Override
        public WindowCount map(final WindowCount value)
        {
            if (++seen == at && failed.compareAndSet(false, true))
            {
                throw new IllegalStateException("injected failure at result " + at + " (--fail-at)");
            }
            return value;
        }
    }
}
