package io.ringflow.bench.peers;

import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs the page-view job once on one engine and measures it; the main class of each fork of
 * {@link PeerComparison}:
 *
 * <pre>{@code
 * java <heap> <engine's JVM flags> -cp ... io.ringflow.bench.peers.PeerRun --engine flink --run 1 \
 *     --events 20M --apps 1000 --checkpoint-interval 100 [--rate R] [--parallelism P] [--flink-state heap|rocksdb]
 * }</pre>
 *
 * <p>It prints one {@link RunResult} line on standard output (and nothing else there), problems on standard error,
 * and exits 0 when the totals verified, 3 when they did not, 1 when the job failed, 2 for a bad command line.
 *
 * <p>How it measures (the same for every engine): the calling thread starts the engine ({@code t0} just before),
 * then polls the job about every millisecond: the sink's record counter (first record = end of start-up; all N =
 * last record), the engine's checkpoints ({@link PeerJob#observe}), termination. One second after the first record
 * it drains the latencies recorded so far (start-up and first second) and starts the steady part; from then on it
 * drains them once a second, as {@code ringflow page-view} does. The poller sleeps between polls
 * ({@code parkNanos}), so it costs the job little CPU.
 */
public final class PeerRun
{
    static final int VERIFY_FAILED = 3;
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private PeerRun()
    {
    }

    /**
     * @param args {@code --engine E --run N} and the {@link RunOptions} options.
     */
    public static void main(final String[] args)
    {
        final String engine;
        final int run;
        final RunOptions options;
        try
        {
            final Map<String, String> parsed = parseOptions(args);
            engine = parsed.remove("engine");
            final String runText = parsed.remove("run");
            run = runText == null ? 1 : Integer.parseInt(runText);
            options = RunOptions.from(RunOptions.defaults(), parsed);
            if (engine == null || !parsed.isEmpty())
            {
                throw new IllegalArgumentException(engine == null ? "--engine is required" :
                    "unknown options: " + parsed.keySet());
            }
        }
        catch (final IllegalArgumentException ex)
        {
            System.err.println("peer-run: " + ex.getMessage());
            System.exit(2);
            return;
        }
        int status;
        try
        {
            final RunResult result = run(create(engine, options), options, run, System.err);
            System.out.println(result.toLine());
            status = result.verified() ? 0 : VERIFY_FAILED;
        }
        catch (final Throwable ex)
        {
            System.err.println("peer-run: " + engine + " run " + run + " failed:");
            ex.printStackTrace(System.err);
            status = 1;
        }
        System.out.flush();
        System.err.flush();
        // Engines may leave non-daemon threads behind (Flink's and Hazelcast's executors): end the fork explicitly.
        System.exit(status);
    }

    /**
     * @param engine  ringflow, flink or jet.
     * @param options what to run.
     * @return the engine's job, not started.
     * @throws IllegalArgumentException for an unknown engine.
     */
    public static PeerJob create(final String engine, final RunOptions options)
    {
        return switch (engine.toLowerCase(Locale.ROOT))
        {
            case "ringflow" -> new RingflowPageView(options);
            case "flink" -> new FlinkPageView(options);
            case "jet" -> new JetPageView(options);
            default -> throw new IllegalArgumentException("unknown engine '" + engine + "' (ringflow, flink, jet)");
        };
    }

    /**
     * Starts {@code job}, watches it to the end, verifies it and closes it.
     *
     * @param job     a job not started yet; closed on return.
     * @param options what it runs.
     * @param run     the run number, for the result.
     * @param log     where problems are printed.
     * @return the measurements; {@link RunResult#verified()} says whether the totals checked out.
     * @throws Exception when the job failed, or did not finish within {@link RunOptions#timeoutSeconds()}.
     */
    public static RunResult run(final PeerJob job, final RunOptions options, final int run, final PrintStream log)
        throws Exception
    {
        final Histogram warmup = new Histogram(3);
        final Histogram steady = new Histogram(3);
        try (job)
        {
            final long t0 = System.nanoTime();
            final long deadline = t0 + TimeUnit.SECONDS.toNanos(options.timeoutSeconds());
            job.start();
            final Future<?> termination = job.termination();
            // System.nanoTime() values may be negative: explicit flags, and differences only.
            boolean seenFirst = false;
            boolean inSteady = false;
            boolean seenLast = false;
            long firstRecord = 0;
            long steadyStart = 0;
            long receivedAtSteadyStart = 0;
            long lastRecord = 0;
            long nextDrain = 0;
            while (!termination.isDone())
            {
                final long now = System.nanoTime();
                final long received = job.recordsReceived();
                job.observe(now);
                if (!seenFirst && received > 0)
                {
                    seenFirst = true;
                    firstRecord = now;
                }
                if (seenFirst && !inSteady && now - firstRecord >= SECOND)
                {
                    job.takeIntervalLatencies(warmup);
                    inSteady = true;
                    steadyStart = now;
                    receivedAtSteadyStart = received;
                    nextDrain = now + SECOND;
                }
                else if (inSteady && now - nextDrain >= 0)
                {
                    job.takeIntervalLatencies(steady);
                    nextDrain += SECOND;
                }
                if (!seenLast && received >= options.events())
                {
                    seenLast = true;
                    lastRecord = now;
                }
                if (now - deadline > 0)
                {
                    throw new TimeoutException(job.engine() + " did not finish within " + options.timeoutSeconds() +
                        " s: " + received + " of " + options.events() + " records received");
                }
                LockSupport.parkNanos(POLL_NANOS);
            }
            final long end = System.nanoTime();
            job.observe(end);
            try
            {
                termination.get();
            }
            catch (final ExecutionException ex)
            {
                throw new IllegalStateException(job.engine() + " job failed: " + ex.getCause(), ex.getCause());
            }
            job.takeIntervalLatencies(inSteady ? steady : warmup);
            final long received = job.recordsReceived();
            // A job that ended between two polls: its first or last record is bounded by its end.
            firstRecord = seenFirst ? firstRecord : end;
            lastRecord = seenLast ? lastRecord : end;

            final List<String> problems = job.verify();
            if (!problems.isEmpty())
            {
                log.printf(Locale.ROOT, "%s run %d: verification FAILED, %d problem(s):%n", job.engine(), run,
                    problems.size());
                problems.forEach(problem -> log.println("  " + problem));
            }
            final Histogram all = warmup.copy();
            all.add(steady);
            final boolean hasSteady = inSteady && lastRecord - steadyStart > 0 && received > receivedAtSteadyStart;
            final double steadySeconds = hasSteady ? (lastRecord - steadyStart) / 1e9 : Double.NaN;
            return new RunResult(
                job.engine(), run, options.events(), options.apps(), options.parallelism(),
                options.checkpointIntervalMs(), options.rate(),
                problems.isEmpty(),
                (end - t0) / 1e9,
                (firstRecord - t0) / 1e9,
                (lastRecord - t0) / 1e9,
                steadySeconds,
                hasSteady ? (received - receivedAtSteadyStart) / steadySeconds : Double.NaN,
                options.events() / ((end - t0) / 1e9),
                micros(all, 50.0), micros(all, 99.0), micros(all, 99.9), max(all),
                hasSteady ? micros(steady, 50.0) : Double.NaN,
                hasSteady ? micros(steady, 99.0) : Double.NaN,
                hasSteady ? micros(steady, 99.9) : Double.NaN,
                hasSteady ? max(steady) : Double.NaN,
                all.getTotalCount(),
                job.checkpointsCompleted(),
                job.generated(),
                received,
                problems.size());
        }
    }

    /**
     * Parses {@code --name value} and {@code --name=value} pairs.
     *
     * @param args the command line.
     * @return values by name (without the dashes), in order.
     * @throws IllegalArgumentException for anything else.
     */
    static Map<String, String> parseOptions(final String[] args)
    {
        final Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++)
        {
            final String arg = args[i];
            if (!arg.startsWith("--") || arg.length() == 2)
            {
                throw new IllegalArgumentException("expected --option, found '" + arg + "'");
            }
            final int eq = arg.indexOf('=');
            if (eq > 0)
            {
                options.put(arg.substring(2, eq), arg.substring(eq + 1));
            }
            else if (i + 1 < args.length)
            {
                options.put(arg.substring(2), args[++i]);
            }
            else
            {
                throw new IllegalArgumentException(arg + " needs a value");
            }
        }
        return options;
    }

    private static double micros(final Histogram histogram, final double percentile)
    {
        return histogram.getTotalCount() == 0 ? Double.NaN : histogram.getValueAtPercentile(percentile) / 1e3;
    }

    private static double max(final Histogram histogram)
    {
        return histogram.getTotalCount() == 0 ? Double.NaN : histogram.getMaxValue() / 1e3;
    }
}
