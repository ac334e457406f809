package io.ringflow.bench;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.data.category.DefaultCategoryDataset;

import java.awt.Color;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The latency overhead of checkpointing, mode by mode: the {@link LatencyHarness} page-view job at one fixed rate with
 * no checkpoints, aligned, unaligned, aligned with a timeout and at least once, in memory and to a directory, with the
 * job keeping up ("idle") and under back-pressure (the sink pausing so that the ring fills and the source waits). Each
 * run is a fresh JVM with this JVM's options and class path (so one run's JIT profile and garbage do not colour the
 * next); the run without checkpoints also measures the bare Disruptor floor in the same JVM. With several rounds the
 * configurations run in turn, round after round, and the table shows each one's median over the rounds.
 *
 * <p>Writes into {@code --out}: {@code runs.csv} (one line per run, {@link LatencyHarness#CSV_HEADER}),
 * {@code run-<n>-<label>.log} (each run's whole output), {@code latency-overhead.md} (the table) and one chart per
 * pressure, {@code latency-overhead-<pressure>.png} (p50, p99, p99.9 against the mode, log scale).
 *
 * <p>Options (all optional): {@code --rate N} (500000), {@code --warmup-seconds S} (10), {@code --seconds S} (60),
 * {@code --checkpoint-interval MS} (100), {@code --aligned-timeout MS} (1), {@code --modes} (all five, comma-separated),
 * {@code --storage memory,directory}, {@code --pressure idle,stall}, {@code --stall MS:EVERY} (10:50),
 * {@code --idle KIND} (BACKOFF, the default), {@code --backend chronicle|heap} (chronicle, the default), {@code --rounds N}
 * (1), {@code --out DIR} (bench/results/latency-overhead-TIMESTAMP), {@code --report-only} (no runs: the table and charts
 * again from {@code DIR/runs.csv}, with the options given for the header).
 *
 * <p>Run from the repository root, with a fixed pre-touched heap; every run checks its output as LatencyHarness does:
 * <pre>
 *   java -Xms1g -Xmx1g -XX:+AlwaysPreTouch -cp bench/target/benchmarks.jar io.ringflow.bench.LatencyOverheadHarness
 * </pre>
 * (plus the Ringflow JVM flags, see README.md; they are passed on to every run).
 */
public final class LatencyOverheadHarness
{
    private static final List<String> ALL_MODES =
        List.of("none", "aligned", "unaligned", "aligned-timeout", "at-least-once");

    private LatencyOverheadHarness()
    {
    }

    /** @param args see the class comment. */
    public static void main(final String[] args)
    {
        final Options options;
        try
        {
            options = Options.parse(args);
        }
        catch (final IllegalArgumentException ex)
        {
            System.err.println("LatencyOverheadHarness: " + ex.getMessage());
            System.exit(2);
            return;
        }
        boolean passed;
        try
        {
            passed = run(options, System.out).passed;
        }
        catch (final Exception ex)
        {
            ex.printStackTrace();
            passed = false;
        }
        System.exit(passed ? 0 : 1);
    }

    /**
     * Runs every configuration in every round, then writes the table and the charts.
     *
     * @param options the options.
     * @param out     where to print progress and the table.
     * @return the medians per configuration, and whether every run passed its checks.
     * @throws IOException          when the output directory cannot be written.
     * @throws InterruptedException when interrupted while a run goes on.
     */
    public static Summary run(final Options options, final PrintStream out) throws IOException, InterruptedException
    {
        Files.createDirectories(options.out);
        final Path csv = options.out.resolve("runs.csv");
        if (options.reportOnly)
        {
            return report(options, csv, true, out);
        }
        Files.deleteIfExists(csv);
        final List<List<String>> configurations = configurations(options);
        out.printf(Locale.ROOT, "latency overhead: %d configurations x %d rounds, %,d records/s, %.1f s warm-up + " +
            "%.1f s measured each, results in %s%n", configurations.size(), options.rounds, options.rate,
            options.warmupSeconds, options.seconds, options.out);
        boolean passed = true;
        int index = 0;
        for (int round = 0; round < options.rounds; round++)
        {
            for (final List<String> configuration : configurations)
            {
                index++;
                final Path checkpointDir = configuration.contains("--checkpoint-dir") ?
                    Files.createTempDirectory("ringflow-latency-overhead-") : null;
                final List<String> command = command(options, configuration, csv, checkpointDir);
                final String label = configuration.get(configuration.indexOf("--label") + 1);
                final Path log = options.out.resolve(String.format(Locale.ROOT, "run-%02d-%s.log", index,
                    label.replace('/', '-')));
                out.printf(Locale.ROOT, "  round %d/%d  %-24s ", round + 1, options.rounds, label);
                out.flush();
                // the job's window and drain, then (without checkpoints) the floor's, plus JVM start-up
                final double oneRun = options.warmupSeconds + options.seconds +
                    (options.drainSeconds > 0 ? options.drainSeconds : Math.max(5, options.seconds));
                final long limitSeconds = (long)((command.contains("--no-floor") ? 1 : 2) * oneRun) + 120;
                final Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start();
                boolean ended = false;
                try
                {
                    ended = process.waitFor(limitSeconds, TimeUnit.SECONDS);
                }
                finally
                {
                    if (!ended)
                    {
                        process.destroyForcibly().waitFor();
                    }
                    if (checkpointDir != null)
                    {
                        deleteTree(checkpointDir);
                    }
                }
                final boolean ok = process.exitValue() == 0;
                passed &= ok;
                out.println(ok ? "passed" : ended ? "FAILED (see " + log.getFileName() + ")" :
                    "FAILED: did not end within " + limitSeconds + " s");
            }
        }
        return report(options, csv, passed, out);
    }

    private static Summary report(final Options options, final Path csv, final boolean passed, final PrintStream out)
        throws IOException
    {
        final Map<String, Row> medians = medians(csv);
        final String table = table(options, medians);
        Files.writeString(options.out.resolve("latency-overhead.md"), table, StandardCharsets.UTF_8);
        out.println();
        out.print(table);
        for (final String pressure : options.pressures)
        {
            chart(options, medians, pressure);
        }
        out.println(passed ? "result: PASSED" : "result: FAILED");
        return new Summary(passed, medians);
    }

    /** @return each configuration's LatencyHarness arguments, in the order they run within a round. */
    static List<List<String>> configurations(final Options options)
    {
        final List<List<String>> configurations = new ArrayList<>();
        for (final String pressure : options.pressures)
        {
            final boolean stall = "stall".equals(pressure);
            for (final String mode : options.modes)
            {
                final List<String> storages = "none".equals(mode) ? List.of("-") : options.storages;
                for (final String storage : storages)
                {
                    final List<String> args = new ArrayList<>(List.of("--checkpoint", mode));
                    if ("directory".equals(storage))
                    {
                        args.add("--checkpoint-dir");
                    }
                    if (stall)
                    {
                        args.addAll(List.of("--stall", options.stall));
                    }
                    final String label = mode + ("-".equals(storage) ? "" : "directory".equals(storage) ? "/dir" :
                        "/mem") + (stall ? "/stall" : "");
                    args.addAll(List.of("--label", label));
                    configurations.add(args);
                }
            }
        }
        return configurations;
    }

    private static List<String> command(
        final Options options, final List<String> configuration, final Path csv, final Path checkpointDir)
    {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        for (final String argument : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (!argument.startsWith("-agentlib") && !argument.startsWith("-javaagent") &&
                !argument.startsWith("-agentpath"))
            {
                command.add(argument);
            }
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), LatencyHarness.class.getName(),
            "--rate", Long.toString(options.rate), "--idle", options.idle, "--backend", options.backend,
            "--warmup-seconds", Double.toString(options.warmupSeconds), "--seconds", Double.toString(options.seconds),
            "--checkpoint-interval", Long.toString(options.checkpointIntervalMillis),
            "--aligned-timeout", Long.toString(options.alignedTimeoutMillis), "--csv", csv.toString()));
        for (final String argument : configuration)
        {
            command.add(argument);
            if ("--checkpoint-dir".equals(argument))
            {
                command.add(checkpointDir.toString());
            }
        }
        if (!"none".equals(configuration.get(1)))
        {
            command.add("--no-floor");
        }
        if (options.drainSeconds > 0)
        {
            command.addAll(List.of("--drain-seconds", Double.toString(options.drainSeconds)));
        }
        return command;
    }

    /**
     * One configuration's medians over its rounds; latencies in µs, {@code allocatedPerCheckpoint} the bytes the job's
     * threads allocated in the window per checkpoint completed (NaN without checkpoints).
     */
    public record Row(String label, int runs, double p50, double p99, double p999, double max, double floorP50,
        double floorP99, double floorP999, double checkpoints, double checkpointP50, double checkpointP99,
        double syncP50, double asyncP50, double allocatedPerCheckpoint, boolean passed)
    {
    }

    /** What a whole run found. */
    public static final class Summary
    {
        final boolean passed;
        final Map<String, Row> rows;

        Summary(final boolean passed, final Map<String, Row> rows)
        {
            this.passed = passed;
            this.rows = rows;
        }

        /** @return whether every run passed its checks. */
        public boolean passed()
        {
            return passed;
        }

        /** @return each configuration's medians, by label, in run order. */
        public Map<String, Row> rows()
        {
            return rows;
        }
    }

    static Map<String, Row> medians(final Path csv) throws IOException
    {
        final Map<String, List<String[]>> byLabel = new LinkedHashMap<>();
        if (Files.exists(csv))
        {
            final List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
            for (final String line : lines.subList(1, lines.size()))
            {
                final String[] fields = line.split(",", -1);
                byLabel.computeIfAbsent(fields[0], label -> new ArrayList<>()).add(fields);
            }
        }
        final List<String> header = Arrays.asList(LatencyHarness.CSV_HEADER.split(","));
        final Map<String, Row> rows = new LinkedHashMap<>();
        for (final Map.Entry<String, List<String[]>> entry : byLabel.entrySet())
        {
            final List<String[]> runs = entry.getValue();
            rows.put(entry.getKey(), new Row(entry.getKey(), runs.size(),
                median(runs, header.indexOf("p50")), median(runs, header.indexOf("p99")),
                median(runs, header.indexOf("p99.9")), median(runs, header.indexOf("max")),
                median(runs, header.indexOf("floor_p50")), median(runs, header.indexOf("floor_p99")),
                median(runs, header.indexOf("floor_p99.9")), median(runs, header.indexOf("checkpoints")),
                median(runs, header.indexOf("ckpt_p50")), median(runs, header.indexOf("ckpt_p99")),
                median(runs, header.indexOf("sync_p50")), median(runs, header.indexOf("async_p50")),
                median(runs, header.indexOf("alloc_per_ckpt")),
                runs.stream().allMatch(fields -> Boolean.parseBoolean(fields[fields.length - 1]))));
        }
        return rows;
    }

    /** @return the median of one column over the runs that have a value there; NaN when none has. */
    private static double median(final List<String[]> runs, final int column)
    {
        // runs.csv files written before a column was added have fewer fields: no value there
        final double[] values = runs.stream().filter(fields -> column < fields.length - 1)
            .map(fields -> fields[column]).filter(text -> !text.isEmpty())
            .mapToDouble(Double::parseDouble).sorted().toArray();
        if (values.length == 0)
        {
            return Double.NaN;
        }
        return values.length % 2 == 1 ? values[values.length / 2] :
            (values[values.length / 2 - 1] + values[values.length / 2]) / 2;
    }

    static String table(final Options options, final Map<String, Row> rows)
    {
        final StringBuilder table = new StringBuilder();
        table.append(String.format(Locale.ROOT, "%,d records/s, %.1f s after a %.1f s warm-up, checkpoints every " +
            "%d ms, %s backend, idle %s%s; medians of %d round(s); latencies in µs%n%n", options.rate,
            options.seconds, options.warmupSeconds, options.checkpointIntervalMillis, options.backend, options.idle,
            options.pressures.contains("stall") ? ", back-pressure (/stall): the sink pauses " +
                options.stall.replace(":", " ms every ") + " ms" : "", options.rounds));
        table.append("| Run | p50 | p99 | p99.9 | max | p99 / no checkpoints | checkpoints | checkpoint p50 | " +
            "checkpoint p99 | sync p50 | async p50 | allocated / checkpoint |\n");
        table.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (final Row row : rows.values())
        {
            final Row base = rows.get("none" + (row.label().endsWith("/stall") ? "/stall" : ""));
            table.append(String.format(Locale.ROOT, "| %s%s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n",
                row.label(), row.passed() ? "" : " (checks FAILED)", us(row.p50()), us(row.p99()), us(row.p999()),
                us(row.max()), base == null ? "-" : row == base ? "1" : String.format(Locale.ROOT, "%.2f",
                    row.p99() / base.p99()), Double.isNaN(row.checkpoints()) || row.checkpoints() == 0 ? "-" :
                    String.format(Locale.ROOT, "%.0f", row.checkpoints()), us(row.checkpointP50()),
                us(row.checkpointP99()), us(row.syncP50()), us(row.asyncP50()),
                Double.isNaN(row.allocatedPerCheckpoint()) ? "-" :
                    String.format(Locale.ROOT, "%,.0f B", row.allocatedPerCheckpoint())));
            if (!Double.isNaN(row.floorP50()))
            {
                table.append(String.format(Locale.ROOT, "| floor (bare Disruptor hop, same JVM as %s) | %s | %s | " +
                    "%s | | | | | | | | |%n", row.label(), us(row.floorP50()), us(row.floorP99()),
                    us(row.floorP999())));
            }
        }
        return table.toString();
    }

    private static String us(final double micros)
    {
        if (Double.isNaN(micros))
        {
            return "-";
        }
        return micros >= 100 ? String.format(Locale.ROOT, "%,.0f", micros) :
            String.format(Locale.ROOT, "%.1f", micros);
    }

    private static void chart(final Options options, final Map<String, Row> rows, final String pressure)
        throws IOException
    {
        final DefaultCategoryDataset data = new DefaultCategoryDataset();
        final boolean stall = "stall".equals(pressure);
        for (final Row row : rows.values())
        {
            if (row.label().endsWith("/stall") != stall)
            {
                continue;
            }
            final String category = stall ? row.label().substring(0, row.label().length() - "/stall".length()) :
                row.label();
            data.addValue(Math.max(0.1, row.p50()), "p50", category);
            data.addValue(Math.max(0.1, row.p99()), "p99", category);
            data.addValue(Math.max(0.1, row.p999()), "p99.9", category);
        }
        if (data.getColumnCount() == 0)
        {
            return;
        }
        final JFreeChart figure = ChartFactory.createBarChart(String.format(Locale.ROOT, "Record latency by " +
            "checkpoint mode, %,d records/s, checkpoints every %d ms, %s", options.rate,
            options.checkpointIntervalMillis, stall ? "back-pressure (sink pauses " + options.stall + ")" :
            "job keeping up"), "checkpoint mode / storage", "latency (µs, log scale)", data,
            PlotOrientation.VERTICAL, true, false, false);
        final CategoryPlot plot = figure.getCategoryPlot();
        final LogAxis y = new LogAxis("latency (µs, log scale)");
        y.setBase(10);
        y.setSmallestValue(0.1);
        y.setTickUnit(new NumberTickUnit(1));
        y.setNumberFormatOverride(new DecimalFormat("#,##0.#"));
        plot.setRangeAxis(y);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        plot.getDomainAxis().setCategoryLabelPositions(CategoryLabelPositions.UP_45);
        ChartUtils.saveChartAsPNG(options.out.resolve("latency-overhead-" + pressure + ".png").toFile(), figure,
            1000, 560);
    }

    private static void deleteTree(final Path root) throws IOException
    {
        try (Stream<Path> paths = Files.walk(root))
        {
            for (final Path path : paths.sorted(Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(path);
            }
        }
    }

    /** The options; see the class comment. */
    public static final class Options
    {
        long rate = 500_000;
        double warmupSeconds = 10;
        double seconds = 60;
        double drainSeconds;
        long checkpointIntervalMillis = 100;
        long alignedTimeoutMillis = 1;
        List<String> modes = ALL_MODES;
        List<String> storages = List.of("memory", "directory");
        List<String> pressures = List.of("idle", "stall");
        String stall = "10:50";
        String idle = "BACKOFF";
        String backend = "chronicle";
        int rounds = 1;
        boolean reportOnly;
        Path out = Path.of("bench", "results", "latency-overhead-" +
            LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));

        /**
         * @param args the command line.
         * @return the options.
         * @throws IllegalArgumentException naming the first bad argument.
         */
        public static Options parse(final String... args)
        {
            final Options o = new Options();
            for (int i = 0; i < args.length; i++)
            {
                final String arg = args[i];
                if ("--report-only".equals(arg))
                {
                    o.reportOnly = true;
                    continue;
                }
                if (i + 1 >= args.length)
                {
                    throw new IllegalArgumentException(arg + " needs a value");
                }
                final String value = args[++i];
                switch (arg)
                {
                    case "--rate" -> o.rate = Long.parseLong(value);
                    case "--warmup-seconds" -> o.warmupSeconds = Double.parseDouble(value);
                    case "--seconds" -> o.seconds = Double.parseDouble(value);
                    case "--drain-seconds" -> o.drainSeconds = Double.parseDouble(value);
                    case "--checkpoint-interval" -> o.checkpointIntervalMillis = Long.parseLong(value);
                    case "--aligned-timeout" -> o.alignedTimeoutMillis = Long.parseLong(value);
                    case "--modes" -> o.modes = list(value, ALL_MODES, arg);
                    case "--storage" -> o.storages = list(value, List.of("memory", "directory"), arg);
                    case "--pressure" -> o.pressures = list(value, List.of("idle", "stall"), arg);
                    case "--stall" -> o.stall = value;
                    case "--idle" -> o.idle = value;
                    case "--backend" -> o.backend = value;
                    case "--rounds" -> o.rounds = Integer.parseInt(value);
                    case "--out" -> o.out = Path.of(value);
                    default -> throw new IllegalArgumentException("unknown option " + arg);
                }
            }
            if (o.rate <= 0 || o.seconds <= 0 || o.warmupSeconds < 0 || o.rounds <= 0)
            {
                throw new IllegalArgumentException("--rate, --seconds and --rounds must be > 0, --warmup-seconds >= 0");
            }
            if (o.reportOnly && !java.util.Arrays.asList(args).contains("--out"))
            {
                throw new IllegalArgumentException("--report-only needs --out DIR (the directory of a finished run)");
            }
            // the same checks as each run makes, before the first one starts
            LatencyHarness.Options.parse("--idle", o.idle, "--backend", o.backend, "--stall", o.stall);
            return o;
        }

        private static List<String> list(final String value, final List<String> allowed, final String option)
        {
            final List<String> values = List.of(value.split(","));
            for (final String v : values)
            {
                if (!allowed.contains(v))
                {
                    throw new IllegalArgumentException(option + " takes " + String.join(",", allowed) + ", was " + v);
                }
            }
            return values;
        }
    }
}
