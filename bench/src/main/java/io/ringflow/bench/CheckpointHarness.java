package io.ringflow.bench;

import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CheckpointingMode;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.DataStream;
import io.ringflow.engine.api.IdleStrategyKind;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.SubtaskCheckpointStats;
import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.KeyedProcessFunction;
import io.ringflow.engine.api.functions.RuntimeContext;
import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.sink.DiscardSink;
import io.ringflow.engine.api.sink.Sink;
import io.ringflow.engine.api.sink.SinkWriter;
import io.ringflow.engine.api.source.GeneratorSource;
import io.ringflow.engine.runtime.JobRun;
import io.ringflow.engine.runtime.deploy.JobAttempt;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;
import org.HdrHistogram.Histogram;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Checkpoint measurements that JMH cannot express: the barrier's path per hop, and checkpoint duration against the
 * back-pressure backlog. A plain {@code main}; every figure comes from a job that ran for real and was checked (each
 * checkpoint completed with a recorded source position, the sink received records, the job was still RUNNING).
 *
 * <p><b>{@code backpressure}</b> (aligned vs unaligned, the comparison users come for): for each ring size, a job whose
 * sink takes {@code --sink-nanos} per record (busy-waiting, so the rings fill up) is run until every ring is full,
 * then {@code --checkpoints} checkpoints are taken one after another. Two topologies:
 * <pre>
 *   slow-sink:  source --ring--> slow sink                            (backlog = 1 full ring)
 *   skewed:     fast source --ring--+
 *                                   +--> count per key -> slow sink   (chained; the fast input's ring is full,
 *               slow source --ring--+                                  the slow one, 2,000 records/s, nearly empty)
 * </pre>
 * Two busy threads on the two cores of the reference machine (the slow source sleeps between its records).
 * Reported per (topology, mode, ring size): checkpoint duration p50/p90/max, alignment p50, persisted in-flight
 * bytes and records p50. Writes a CSV and a PNG chart of the p50 duration against the ring size.
 *
 * <p><b>{@code latency}</b>: trigger to "every sink passed the barrier" (its synchronous snapshot done), trigger to
 * completion, and per hop (the last task's start delay over the depth), for depth 1/3/5, fan-in 1/2/4 (parallel
 * source subtasks into the first map), aligned/unaligned/at-least-once, IDLE (1,000 records/s) and SATURATED.
 *
 * <pre>
 *   java -Xms2g -Xmx2g -XX:+AlwaysPreTouch $RINGFLOW_FLAGS -cp bench/target/benchmarks.jar \
 *       io.ringflow.bench.CheckpointHarness backpressure --chart docs/img/aligned-vs-unaligned.png
 * </pre>
 */
public final class CheckpointHarness
{
    /** How barriers are handled. */
    enum Barriers
    {
        ALIGNED, UNALIGNED, AT_LEAST_ONCE
    }

    private final PrintStream out;
    private int checkpoints = 30;
    private long sinkNanos = 1_000;
    private int[] ringSizes = {256, 1024, 4096, 16384};
    private Path csv = Path.of("bench/results/checkpoint-backpressure.csv");
    private Path chart;
    private int latencyCheckpoints = 200;
    private boolean quick;
    private int[] depths = {1, 3, 5};
    private int[] fanIns = {1, 2, 4};
    private String[] loads = {"IDLE", "SATURATED"};
    private Barriers[] barrierModes = Barriers.values();

    private CheckpointHarness(final PrintStream out)
    {
        this.out = out;
    }

    /**
     * @param args {@code backpressure|latency|all} then options: {@code --checkpoints N}, {@code --sink-nanos N},
     *             {@code --rings 64,256,...}, {@code --csv path}, {@code --chart path.png},
     *             {@code --latency-checkpoints N}, {@code --quick} (one small configuration of each, for the smoke
     *             test).
     * @throws Exception when a run fails its checks.
     */
    public static void main(final String[] args) throws Exception
    {
        run(args, System.out);
    }

    /**
     * @param args as for {@link #main}.
     * @param out  where the report goes.
     * @throws Exception when a run fails its checks.
     */
    public static void run(final String[] args, final PrintStream out) throws Exception
    {
        if (args.length == 0)
        {
            throw new IllegalArgumentException("usage: CheckpointHarness backpressure|latency|all [options]");
        }
        final CheckpointHarness harness = new CheckpointHarness(out);
        for (int i = 1; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--checkpoints" -> harness.checkpoints = Integer.parseInt(args[++i]);
                case "--sink-nanos" -> harness.sinkNanos = Long.parseLong(args[++i]);
                case "--rings" -> harness.ringSizes = Arrays.stream(args[++i].split(","))
                    .mapToInt(Integer::parseInt).toArray();
                case "--csv" -> harness.csv = Path.of(args[++i]);
                case "--chart" -> harness.chart = Path.of(args[++i]);
                case "--latency-checkpoints" -> harness.latencyCheckpoints = Integer.parseInt(args[++i]);
                case "--quick" -> harness.quick = true;
                case "--depths" -> harness.depths = Arrays.stream(args[++i].split(","))
                    .mapToInt(Integer::parseInt).toArray();
                case "--fan-ins" -> harness.fanIns = Arrays.stream(args[++i].split(","))
                    .mapToInt(Integer::parseInt).toArray();
                case "--loads" -> harness.loads = args[++i].split(",");
                case "--barriers" -> harness.barrierModes = Arrays.stream(args[++i].split(","))
                    .map(Barriers::valueOf).toArray(Barriers[]::new);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        switch (args[0])
        {
            case "backpressure" -> harness.backPressure();
            case "latency" -> harness.latency();
            case "chart" -> harness.chartFromCsv();
            case "all" ->
            {
                harness.backPressure();
                harness.latency();
            }
            default -> throw new IllegalArgumentException("unknown scenario " + args[0]);
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // back-pressure

    private void backPressure() throws Exception
    {
        final int[] rings = quick ? new int[] {64} : ringSizes;
        final List<String> rows = new ArrayList<>();
        rows.add("topology,barriers,ring_size,backlog_records,checkpoints,duration_p50_us,duration_p90_us," +
            "duration_max_us,alignment_p50_us,in_flight_bytes_p50,in_flight_records_p50");
        final XYSeriesCollection series = new XYSeriesCollection();
        out.printf(Locale.ROOT, "%nCheckpoint duration under back-pressure: sink %d ns/record, %d checkpoints each%n",
            sinkNanos, checkpoints);
        out.printf(Locale.ROOT, "%-9s %-9s %6s %8s %10s %10s %10s %10s %12s %10s%n", "topology", "barriers", "ring",
            "backlog", "p50 us", "p90 us", "max us", "align p50", "in-flight B", "records");
        for (final String topology : List.of("slow-sink", "skewed"))
        {
            for (final Barriers barriers : List.of(Barriers.ALIGNED, Barriers.UNALIGNED))
            {
                final XYSeries line = new XYSeries(topology + ", " + barriers.name().toLowerCase(Locale.ROOT));
                for (final int ring : rings)
                {
                    final long[] stats = backPressureRun(topology, barriers, ring);
                    out.printf(Locale.ROOT, "%-9s %-9s %6d %8d %10.1f %10.1f %10.1f %10.1f %12d %10d%n", topology,
                        barriers, ring, stats[0], stats[1] / 1e3, stats[2] / 1e3, stats[3] / 1e3, stats[4] / 1e3,
                        stats[5], stats[6]);
                    rows.add(String.format(Locale.ROOT, "%s,%s,%d,%d,%d,%.1f,%.1f,%.1f,%.1f,%d,%d", topology,
                        barriers, ring, stats[0], checkpoints, stats[1] / 1e3, stats[2] / 1e3, stats[3] / 1e3,
                        stats[4] / 1e3, stats[5], stats[6]));
                    line.add(ring, Math.max(1.0, stats[1] / 1e3));
                }
                series.addSeries(line);
            }
        }
        if (!quick)
        {
            Files.createDirectories(csv.toAbsolutePath().getParent());
            Files.write(csv, rows);
            out.println("wrote " + csv);
        }
        if (chart != null)
        {
            writeChart(series, chart);
            out.println("wrote " + chart);
        }
    }

    /** @return backlog, duration p50, p90, max, alignment p50 (ns), in-flight bytes p50, records p50. */
    private long[] backPressureRun(final String topology, final Barriers barriers, final int ring) throws Exception
    {
        final JobEnvironment env = JobEnvironment.create(config(barriers, ring, IdleStrategyKind.BACKOFF).build());
        final SlowSink sink = new SlowSink(sinkNanos);
        if ("slow-sink".equals(topology))
        {
            env.fromSource(GeneratorSource.unbounded(Long.class, (i, t) -> i), "numbers").uid("numbers")
                .rebalance().sinkTo(sink).name("slow-sink");
        }
        else
        {
            final DataStream<Long> fast = env.fromSource(GeneratorSource.unbounded(Long.class, (i, t) -> i),
                "fast").uid("fast");
            final DataStream<Long> slow = env.fromSource(
                GeneratorSource.unbounded(Long.class, (i, t) -> i).withRate(2_000), "slow").uid("slow");
            fast.union(slow).keyBy(n -> n % 1_000).process(CountPerKey::new).returns(Long.class).name("count")
                .sinkTo(sink).name("slow-sink");
        }
        final Histogram durations = new Histogram(3);
        final Histogram alignments = new Histogram(3);
        final Histogram inFlightBytes = new Histogram(3);
        final Histogram inFlightRecords = new Histogram(3);
        long backlog = 0;
        try (JobHandle job = env.execute("backpressure-" + topology + "-" + barriers + "-" + ring))
        {
            final JobAttempt attempt = ((JobRun)job).currentAttempt();
            backlog = awaitFullRing(job, attempt, ring);
            final int count = quick ? 2 : checkpoints;
            for (int i = 0; i < count; i++)
            {
                // every checkpoint starts with the ring in front of the slow sink full
                awaitFullRing(job, attempt, ring);
                final CompletedCheckpoint done = job.triggerCheckpoint().get(2, TimeUnit.MINUTES);
                checkPositions(done);
                durations.recordValue(done.durationNanos());
                alignments.recordValue(Math.max(0, done.maxAlignmentNanos()));
                inFlightBytes.recordValue(done.inFlightBytes());
                inFlightRecords.recordValue(done.subtasks().stream()
                    .mapToLong(SubtaskCheckpointStats::inFlightRecords).sum());
            }
            if (job.status() != JobStatus.RUNNING || sink.records.get() == 0)
            {
                throw new IllegalStateException("job " + job.status() + ", sink received " + sink.records.get());
            }
        }
        return new long[] {backlog, durations.getValueAtPercentile(50), durations.getValueAtPercentile(90),
            durations.getMaxValue(), alignments.getValueAtPercentile(50), inFlightBytes.getValueAtPercentile(50),
            inFlightRecords.getValueAtPercentile(50)};
    }

    /** Redraws the chart from the CSV of an earlier run. */
    private void chartFromCsv() throws IOException
    {
        final java.util.Map<String, XYSeries> lines = new java.util.LinkedHashMap<>();
        for (final String row : Files.readAllLines(csv).subList(1, Files.readAllLines(csv).size()))
        {
            final String[] cells = row.split(",");
            final String name = cells[0] + ", " + cells[1].toLowerCase(Locale.ROOT);
            lines.computeIfAbsent(name, XYSeries::new).add(Double.parseDouble(cells[2]),
                Math.max(1.0, Double.parseDouble(cells[5])));
        }
        final XYSeriesCollection series = new XYSeriesCollection();
        lines.values().forEach(series::addSeries);
        writeChart(series, chart);
        out.println("wrote " + chart);
    }

    /** Waits until a ring is full; @return the total backlog then. */
    private static long awaitFullRing(final JobHandle job, final JobAttempt attempt, final int ring)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true)
        {
            final List<Long> backlogs = attempt.channelBacklogs();
            if (backlogs.stream().anyMatch(b -> b >= ring))
            {
                return backlogs.stream().mapToLong(Long::longValue).sum();
            }
            if (System.nanoTime() > deadline || job.status() != JobStatus.RUNNING)
            {
                throw new IllegalStateException("the rings never filled: " + backlogs + ", job " + job.status());
            }
            LockSupport.parkNanos(100_000);
        }
    }

    private static void writeChart(final XYSeriesCollection series, final Path file) throws IOException
    {
        final JFreeChart figure = ChartFactory.createXYLineChart(
            "Checkpoint duration under back-pressure (sink 1 us/record, p50)", "ring size (slots per channel)",
            "checkpoint duration p50 (us, log scale)", series, PlotOrientation.VERTICAL, true, false, false);
        final XYPlot plot = figure.getXYPlot();
        final LogAxis x = new LogAxis("ring size (slots per channel)");
        x.setBase(2);
        x.setSmallestValue(16);
        x.setNumberFormatOverride(new java.text.DecimalFormat("#,##0"));
        final LogAxis y = new LogAxis("checkpoint duration p50 (us, log scale)");
        y.setBase(10);
        y.setSmallestValue(1);
        y.setNumberFormatOverride(new java.text.DecimalFormat("#,##0"));
        plot.setDomainAxis(x);
        plot.setRangeAxis(y);
        final XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        plot.setRenderer(renderer);
        plot.setBackgroundPaint(java.awt.Color.WHITE);
        plot.setDomainGridlinePaint(java.awt.Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(java.awt.Color.LIGHT_GRAY);
        for (int i = 0; i < series.getSeriesCount(); i++)
        {
            renderer.setSeriesStroke(i, new java.awt.BasicStroke(2.0f));
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        ChartUtils.saveChartAsPNG(file.toFile(), figure, 900, 520);
    }

    // ------------------------------------------------------------------------------------------------------------
    // barrier latency

    private void latency() throws Exception
    {
        out.printf(Locale.ROOT, "%nBarrier latency: %d checkpoints per configuration%n", latencyCheckpoints);
        out.printf(Locale.ROOT, "%-13s %5s %6s %-9s %12s %12s %12s %12s %12s%n", "barriers", "depth", "fan-in",
            "load", "sinks p50", "sinks p99", "done p50", "done p99", "per hop p50");
        final int[] depthList = quick ? new int[] {1} : depths;
        final int[] fanInList = quick ? new int[] {2} : fanIns;
        final String[] loadList = quick ? new String[] {"IDLE"} : loads;
        for (final String load : loadList)
        {
            for (final Barriers barriers : barrierModes)
            {
                for (final int depth : depthList)
                {
                    for (final int fanIn : fanInList)
                    {
                        latencyRun(barriers, depth, fanIn, load);
                    }
                }
            }
        }
    }

    private void latencyRun(final Barriers barriers, final int depth, final int fanIn, final String load)
        throws Exception
    {
        final JobEnvironment env = JobEnvironment.create(config(barriers, 1024, IdleStrategyKind.BLOCK).build());
        final GeneratorSource<Long> numbers = GeneratorSource.unbounded(Long.class, (i, t) -> i);
        DataStream<Long> stream = env.fromSource("IDLE".equals(load) ? numbers.withRate(1_000 / fanIn) : numbers,
            "numbers").uid("numbers").setParallelism(fanIn);
        for (int hop = 1; hop <= depth; hop++)
        {
            stream = stream.rebalance().map(n -> n + 1).returns(Long.class).name("map-" + hop).setParallelism(1);
        }
        stream.sinkTo(new DiscardSink<>()).name("sink");
        final Histogram sinks = new Histogram(3);
        final Histogram done = new Histogram(3);
        final Histogram perHop = new Histogram(3);
        try (JobHandle job = env.execute("barrier-latency"))
        {
            final int warmup = quick ? 2 : latencyCheckpoints / 4;
            final int count = quick ? 5 : latencyCheckpoints;
            for (int i = -warmup; i < count; i++)
            {
                // parks until done: a spinning caller would take one of the two cores from the tasks it measures
                final CompletedCheckpoint completed = job.triggerCheckpoint().get(2, TimeUnit.MINUTES);
                checkPositions(completed);
                if (i < 0)
                {
                    continue;
                }
                done.recordValue(completed.durationNanos());
                long lastDelay = 0;
                long sourceDelay = 0;
                long atSinks = 0;
                for (final SubtaskCheckpointStats task : completed.subtasks())
                {
                    if (task.task().startsWith("map-" + depth))
                    {
                        // the last task (the sink is chained to it): its snapshot done and acknowledged
                        lastDelay = Math.max(lastDelay, task.startDelayNanos());
                        atSinks = Math.max(atSinks, task.acknowledgedAfterNanos());
                    }
                    else if (task.task().startsWith("numbers"))
                    {
                        sourceDelay = Math.max(sourceDelay, task.startDelayNanos());
                    }
                }
                // the barrier's own travel: from the (last) source's injection to the last map
                perHop.recordValue(Math.max(0, lastDelay - sourceDelay) / depth);
                sinks.recordValue(atSinks);
            }
            if (job.status() != JobStatus.RUNNING)
            {
                throw new IllegalStateException("job " + job.status());
            }
        }
        out.printf(Locale.ROOT, "%-13s %5d %6d %-9s %12.1f %12.1f %12.1f %12.1f %12.1f%n", barriers, depth, fanIn,
            load, sinks.getValueAtPercentile(50) / 1e3, sinks.getValueAtPercentile(99) / 1e3,
            done.getValueAtPercentile(50) / 1e3, done.getValueAtPercentile(99) / 1e3,
            perHop.getValueAtPercentile(50) / 1e3);
    }

    // ------------------------------------------------------------------------------------------------------------

    private static JobConfig.Builder config(final Barriers barriers, final int ring, final IdleStrategyKind idle)
    {
        final CheckpointConfig.Builder checkpoints = CheckpointConfig.every(Duration.ofDays(1));
        if (barriers == Barriers.UNALIGNED)
        {
            checkpoints.unaligned(true);
        }
        return JobConfig.builder()
            // the figures of docs/benchmarks.md were taken with the heap backend; the backend is not the subject here
            .stateBackend(new io.ringflow.state.heap.HeapStateBackend())
            .ringSize(ring)
            .idleStrategy(idle)
            .checkpointingMode(barriers == Barriers.AT_LEAST_ONCE ? CheckpointingMode.AT_LEAST_ONCE :
                CheckpointingMode.EXACTLY_ONCE)
            .checkpointing(checkpoints.build());
    }

    private static void checkPositions(final CompletedCheckpoint done)
    {
        if (done.sourcePositions().isEmpty() || done.sourcePositions().values().stream()
            .anyMatch(positions -> positions.stream().anyMatch(position -> position < 0)))
        {
            throw new IllegalStateException("checkpoint " + done.checkpointId() + " recorded no source position: " +
                done.sourcePositions());
        }
    }

    /** Counts per key: the keyed state the skewed job snapshots. */
    static final class CountPerKey extends KeyedProcessFunction<Long, Long, Long>
    {
        private ValueState<Long> count;

        @Override
        public void open(final RuntimeContext context)
        {
            count = context.getState(new ValueStateDescriptor<>("count", Long.class, 0L));
        }

        @Override
        public void processElement(final Long value, final Context<Long> ctx, final Collector<Long> out)
        {
            final long next = count.value() + 1;
            count.update(next);
            out.collect(next);
        }
    }

    /** Takes {@code nanos} per record, busy-waiting: a sink as slow as a remote call, without a sleep's jitter. */
    static final class SlowSink implements Sink<Long>
    {
        final AtomicLong records = new AtomicLong();
        private final long nanos;

        SlowSink(final long nanos)
        {
            this.nanos = nanos;
        }

        @Override
        public SinkWriter<Long> createWriter(final SubtaskInfo subtask)
        {
            return record ->
            {
                final long until = System.nanoTime() + nanos;
                while (System.nanoTime() < until)
                {
                    Thread.onSpinWait();
                }
                records.lazySet(records.get() + 1);
            };
        }
    }
}
