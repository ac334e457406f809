package io.ringflow.bench.peers;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Runs the page-view job on Ringflow and its peers side by side and prints one table of medians and ratios, so that
 * ratios quoted in Ringflow's docs come from one run of one harness on one machine:
 *
 * <pre>{@code
 * java -cp "bench/peers/target/ringflow-bench-peers.jar:bench/peers/target/lib/*" \
 *     io.ringflow.bench.peers.PeerComparison --engines ringflow,flink,jet --events 20M --apps 1000 \
 *     --checkpoint-interval 100 --runs 3 [--parallelism 1] [--rate R] [--flink-state heap|rocksdb] \
 *     [--flink-buffer-timeout MS] [--flink-checkpoint-dir DIR] [--jvm "-Xms4g -Xmx4g -XX:+AlwaysPreTouch"] \
 *     [--timeout S]
 * }</pre>
 *
 * <p>Each (engine, run) runs in its own JVM ({@link PeerRun}), forked from the same {@code java} binary with the
 * same class path, the same fixed pre-touched heap ({@code --jvm}) and the flags its engine needs
 * ({@link PeerJvmFlags}). Engines alternate run by run (ringflow, flink, jet, ringflow, flink, jet, ...), so that a
 * noisy machine affects all of them alike. One fork at a time.
 *
 * <p>Output: the command line, each fork's result line as it comes ({@link RunResult}), then per metric the median
 * and range of each engine's verified runs, and the ratio of Ringflow's median to each peer's. Exit status 0 only if
 * every run finished and verified its totals; 1 otherwise (failed runs are left out of the medians and named); 2 for
 * a bad command line.
 */
public final class PeerComparison
{
    private static final List<String> ENGINES = List.of("ringflow", "flink", "jet");
    private static final long FORK_GRACE_SECONDS = 120;

    private PeerComparison()
    {
    }

    /**
     * @param args see the class comment; {@code --help} prints the usage.
     * @throws Exception if a fork cannot be started or waited for.
     */
    public static void main(final String[] args) throws Exception
    {
        final PrintStream out = System.out;
        final List<String> engines;
        final int runs;
        final List<String> heap;
        final RunOptions options;
        try
        {
            if (Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h"))
            {
                usage(out);
                return;
            }
            final Map<String, String> parsed = PeerRun.parseOptions(args);
            engines = engines(parsed.getOrDefault("engines", String.join(",", ENGINES)));
            parsed.remove("engines");
            runs = Math.toIntExact(RunOptions.parseCount("--runs", parsed.getOrDefault("runs", "3")));
            parsed.remove("runs");
            if (runs < 1)
            {
                throw new IllegalArgumentException("--runs must be >= 1, was " + runs);
            }
            heap = PeerJvmFlags.split(parsed.getOrDefault("jvm", PeerJvmFlags.DEFAULT_HEAP));
            parsed.remove("jvm");
            options = RunOptions.from(RunOptions.defaults(), parsed);
            if (!parsed.isEmpty())
            {
                throw new IllegalArgumentException("unknown options: " + parsed.keySet());
            }
        }
        catch (final IllegalArgumentException ex)
        {
            System.err.println("peer-comparison: " + ex.getMessage());
            usage(System.err);
            System.exit(2);
            return;
        }
        System.exit(compare(engines, runs, heap, options, args, out));
    }

    /**
     * Runs every (engine, run) in its own fork, engines alternating, and prints the table.
     *
     * @param engines the engines, in the order they alternate.
     * @param runs    runs per engine.
     * @param heap    the heap flags of every fork.
     * @param options what every run does.
     * @param args    this command's arguments, to print.
     * @param out     where to print.
     * @return 0 when every run verified, else 1.
     * @throws IOException          if a fork cannot be started.
     * @throws InterruptedException if interrupted while waiting for a fork.
     */
    static int compare(
        final List<String> engines,
        final int runs,
        final List<String> heap,
        final RunOptions options,
        final String[] args,
        final PrintStream out) throws IOException, InterruptedException
    {
        final String command = commandLine(args);
        out.println("command: " + command);
        out.printf(Locale.ROOT, "job: %,d views over %,d apps, %s, parallelism %d, %s; Flink state %s%s%s%n",
            options.events(), options.apps(),
            options.rate() == 0 ? "as fast as possible" : String.format(Locale.ROOT, "%,d views/s", options.rate()),
            options.parallelism(),
            options.checkpointIntervalMs() == 0 ? "no checkpoints" :
                "aligned exactly-once checkpoints every " + options.checkpointIntervalMs() + " ms",
            options.flinkState().name().toLowerCase(Locale.ROOT),
            options.flinkBufferTimeoutMs() < 0 ? "" : ", Flink buffer timeout " + options.flinkBufferTimeoutMs() + " ms",
            options.flinkCheckpointDir().isEmpty() ? ", Flink checkpoints in the JobManager's memory" :
                ", Flink checkpoints in " + options.flinkCheckpointDir());
        out.println("forks: " + String.join(" ", heap) + " + each engine's flags; engines alternate run by run");
        out.flush();

        final Map<String, List<RunResult>> results = new LinkedHashMap<>();
        engines.forEach(engine -> results.put(engine, new ArrayList<>()));
        final List<String> failures = new ArrayList<>();
        for (int run = 1; run <= runs; run++)
        {
            for (final String engine : engines)
            {
                final RunResult result = fork(engine, run, runs, heap, options, out);
                if (result == null || !result.verified())
                {
                    failures.add(engine + " run " + run);
                }
                else
                {
                    results.get(engine).add(result);
                }
            }
        }
        printTable(results, runs, out);
        if (!failures.isEmpty())
        {
            out.println("FAILED (left out of the table): " + String.join(", ", failures));
        }
        out.println("command: " + command);
        out.flush();
        return failures.isEmpty() ? 0 : 1;
    }

    /** Runs one fork; returns its result, or null (and says why) when it printed none or exited non-zero. */
    private static RunResult fork(
        final String engine,
        final int run,
        final int runs,
        final List<String> heap,
        final RunOptions options,
        final PrintStream out) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>();
        command.add(javaBinary());
        command.addAll(heap);
        final List<String> engineFlags = PeerJvmFlags.forEngine(engine);
        PeerJvmFlags.COMMON.stream().filter(flag -> !engineFlags.contains(flag)).forEach(command::add);
        command.addAll(engineFlags);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(PeerRun.class.getName());
        command.addAll(List.of("--engine", engine, "--run", Integer.toString(run)));
        command.addAll(options.toArgs());
        if (run == 1)
        {
            final List<String> shown = new ArrayList<>(command);
            shown.set(shown.indexOf("-cp") + 1, "<class path>");
            out.println("fork (" + engine + "): " + String.join(" ", shown));
        }
        out.printf(Locale.ROOT, "[run %d/%d] %s ...%n", run, runs, engine);
        out.flush();

        final Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        final List<String> resultLines = new ArrayList<>();
        final Thread reader = new Thread(() ->
        {
            try (BufferedReader lines = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
            {
                String line;
                while ((line = lines.readLine()) != null)
                {
                    synchronized (resultLines)
                    {
                        if (line.startsWith(RunResult.PREFIX))
                        {
                            resultLines.add(line);
                        }
                    }
                    synchronized (out)
                    {
                        out.println(line.startsWith(RunResult.PREFIX) ? line : "  " + engine + "> " + line);
                        out.flush();
                    }
                }
            }
            catch (final IOException ex)
            {
                synchronized (out)
                {
                    out.println("  " + engine + "> (output lost: " + ex + ")");
                }
            }
        }, "fork-output-" + engine + "-" + run);
        reader.setDaemon(true);
        reader.start();

        final long timeout = options.timeoutSeconds() + FORK_GRACE_SECONDS;
        if (!process.waitFor(timeout, TimeUnit.SECONDS))
        {
            process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            out.printf(Locale.ROOT, "[run %d/%d] %s: no result within %d s, fork killed%n", run, runs, engine, timeout);
            return null;
        }
        reader.join(TimeUnit.SECONDS.toMillis(30));
        final int exit = process.exitValue();
        final String line;
        synchronized (resultLines)
        {
            line = resultLines.isEmpty() ? null : resultLines.get(resultLines.size() - 1);
        }
        if (line == null || exit != 0)
        {
            out.printf(Locale.ROOT, "[run %d/%d] %s: FAILED (exit %d%s)%n", run, runs, engine, exit,
                line == null ? ", no result line" : exit == PeerRun.VERIFY_FAILED ? ", totals did not verify" : "");
            return line == null ? null : RunResult.parse(line);
        }
        return RunResult.parse(line);
    }

    /** A metric of the table. */
    private record Metric(String label, ToDoubleFunction<RunResult> value, int decimals)
    {
    }

    private static final List<Metric> METRICS = List.of(
        new Metric("records/s, whole run", RunResult::wholeRps, 0),
        new Metric("records/s, steady", RunResult::steadyRps, 0),
        new Metric("start-up s (to 1st record)", RunResult::startupS, 3),
        new Metric("wall s (to job end)", RunResult::wallS, 3),
        new Metric("latency p50 us, all", RunResult::p50Us, 1),
        new Metric("latency p99 us, all", RunResult::p99Us, 1),
        new Metric("latency p99.9 us, all", RunResult::p999Us, 1),
        new Metric("latency max us, all", RunResult::maxUs, 1),
        new Metric("latency p50 us, steady", RunResult::steadyP50Us, 1),
        new Metric("latency p99 us, steady", RunResult::steadyP99Us, 1),
        new Metric("latency p99.9 us, steady", RunResult::steadyP999Us, 1),
        new Metric("latency max us, steady", RunResult::steadyMaxUs, 1),
        new Metric("checkpoints completed", result -> result.checkpoints(), 0));

    private static void printTable(final Map<String, List<RunResult>> results, final int runs, final PrintStream out)
    {
        final List<String> engines = new ArrayList<>(results.keySet());
        final List<List<String>> table = new ArrayList<>();
        final List<String> header = new ArrayList<>(List.of("metric"));
        engines.forEach(engine -> header.add(engine + " (" + results.get(engine).size() + " verified)"));
        table.add(header);
        for (final Metric metric : METRICS)
        {
            final List<String> row = new ArrayList<>(List.of(metric.label()));
            for (final String engine : engines)
            {
                final double[] values = values(results.get(engine), metric);
                final int verified = results.get(engine).size();
                // A run shorter than start-up plus one second has no steady part: say over how many runs.
                row.add(values.length == 0 ? "-" : String.format(Locale.ROOT, "%s [%s .. %s]%s",
                    format(median(values), metric.decimals()), format(values[0], metric.decimals()),
                    format(values[values.length - 1], metric.decimals()),
                    values.length < verified ? " (" + values.length + " of " + verified + " runs)" : ""));
            }
            table.add(row);
        }
        out.println();
        out.printf(Locale.ROOT, "median [min .. max] of the verified runs (of %d per engine)%n", runs);
        printColumns(table, out);

        final List<String> peers = engines.stream().filter(engine -> !"ringflow".equals(engine)).toList();
        if (!engines.contains("ringflow") || peers.isEmpty())
        {
            return;
        }
        final List<List<String>> ratios = new ArrayList<>();
        final List<String> ratioHeader = new ArrayList<>(List.of("metric"));
        peers.forEach(peer -> ratioHeader.add("ringflow / " + peer));
        ratios.add(ratioHeader);
        for (final Metric metric : METRICS)
        {
            if (metric.label().startsWith("checkpoints"))
            {
                continue;
            }
            final double[] own = values(results.get("ringflow"), metric);
            final List<String> row = new ArrayList<>(List.of(metric.label()));
            for (final String peer : peers)
            {
                final double[] theirs = values(results.get(peer), metric);
                final double ratio = own.length == 0 || theirs.length == 0 ? Double.NaN :
                    median(own) / median(theirs);
                row.add(Double.isNaN(ratio) || Double.isInfinite(ratio) ? "-" :
                    String.format(Locale.ROOT, "%.2fx", ratio));
            }
            ratios.add(row);
        }
        out.println();
        out.println("ratio of medians, ringflow / peer (records/s: > 1 = Ringflow faster; times and latencies: " +
            "< 1 = Ringflow lower)");
        printColumns(ratios, out);
    }

    /** Prints rows of cells in columns as wide as their widest cell, two spaces apart. */
    private static void printColumns(final List<List<String>> rows, final PrintStream out)
    {
        final int[] widths = new int[rows.get(0).size()];
        for (final List<String> row : rows)
        {
            for (int column = 0; column < row.size(); column++)
            {
                widths[column] = Math.max(widths[column], row.get(column).length());
            }
        }
        for (final List<String> row : rows)
        {
            final StringBuilder line = new StringBuilder();
            for (int column = 0; column < row.size(); column++)
            {
                line.append(String.format(Locale.ROOT, "%-" + (widths[column] + 2) + "s", row.get(column)));
            }
            out.println(line.toString().stripTrailing());
        }
    }

    /** @return the metric's values over the runs, NaN left out, sorted. */
    private static double[] values(final List<RunResult> results, final Metric metric)
    {
        return results.stream().mapToDouble(metric.value()).filter(value -> !Double.isNaN(value)).sorted().toArray();
    }

    /** @param sorted at least one value, sorted. @return the median (mean of the middle two for an even count). */
    static double median(final double[] sorted)
    {
        final int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static String format(final double value, final int decimals)
    {
        return decimals == 0 ? String.format(Locale.ROOT, "%,d", Math.round(value)) :
            String.format(Locale.ROOT, "%,." + decimals + "f", value);
    }

    private static List<String> engines(final String list)
    {
        final List<String> engines = new ArrayList<>();
        for (final String name : list.split(","))
        {
            final String engine = name.strip().toLowerCase(Locale.ROOT);
            if (!ENGINES.contains(engine))
            {
                throw new IllegalArgumentException("unknown engine '" + name + "'; engines are " + ENGINES);
            }
            if (!engines.contains(engine))
            {
                engines.add(engine);
            }
        }
        return engines;
    }

    /**
     * @param args this command's arguments.
     * @return this JVM's command line, each word quoted for a POSIX shell where needed, so that it can be pasted
     *     back; {@code java ... PeerComparison <args>} where the JVM does not tell its command.
     */
    static String commandLine(final String[] args)
    {
        final ProcessHandle.Info info = ProcessHandle.current().info();
        final List<String> words = new ArrayList<>();
        if (info.command().isPresent() && info.arguments().isPresent())
        {
            words.add(info.command().get());
            words.addAll(Arrays.asList(info.arguments().get()));
        }
        else
        {
            words.addAll(List.of("java", "...", PeerComparison.class.getName()));
            words.addAll(Arrays.asList(args));
        }
        return String.join(" ", words.stream().map(PeerComparison::shellQuote).toList());
    }

    /** @return {@code word}, single-quoted unless it holds only characters a shell leaves alone. */
    static String shellQuote(final String word)
    {
        return !word.isEmpty() && word.matches("[A-Za-z0-9_./:=,+@%-]+") ? word :
            "'" + word.replace("'", "'\\''") + "'";
    }

    private static String javaBinary()
    {
        return System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
    }

    private static void usage(final PrintStream out)
    {
        out.println("""
            usage: java -cp <jar>:<lib>/* io.ringflow.bench.peers.PeerComparison [options]
              --engines LIST               ringflow,flink,jet (default; the order they alternate in)
              --runs N                     runs per engine (default 3)
              --events N                   views per run (default 20M; 2_000_000, 2M, 500k accepted)
              --apps N                     applications / keys (default 1000)
              --checkpoint-interval MS     aligned exactly-once checkpoints every MS ms; 0 = off (default 100)
              --rate R                     views/s of all source subtasks; 0 = as fast as possible (default 0)
              --parallelism P              subtasks per operator (default 1)
              --flink-state heap|rocksdb   Flink's state backend (default heap)
              --flink-buffer-timeout MS    Flink's execution.buffer-timeout.interval (default: Flink's, 100 ms)
              --flink-checkpoint-dir DIR   Flink's checkpoints in DIR (e.g. under /dev/shm), not the JobManager's
                                           memory, which refuses state above 5 MB (about 200,000 keys)
              --jvm "FLAGS"                heap flags of every fork (default "%s")
              --timeout S                  a run not finished after S s fails (default 600)""".formatted(
            PeerJvmFlags.DEFAULT_HEAP));
    }
}
