package io.ringflow.bench;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Smoke mode: runs every benchmark for a few milliseconds, in-process (forks 0, no warm-up, one measurement
 * iteration of 20 ms, 20,000 records per invocation), and the latency harness for under a second at 20,000
 * records/s. It proves that each one runs, verifies its output, and produces a result; the figures are meaningless.
 * JMH's own output goes to {@code target/jmh-smoke/}.
 */
class BenchmarksSmokeTest
{
    private static final int SMOKE_RECORDS = 20_000;
    private static final Path LOGS = Path.of("target", "jmh-smoke");

    /**
     * JMH refuses to start while another JMH run holds its machine-wide lock file. These runs are in-process and
     * their figures are thrown away, so a benchmark someone runs on the same machine must not fail the build.
     */
    @BeforeAll
    static void ignoreOtherJmhRuns()
    {
        System.setProperty("jmh.ignoreLock", "true");
    }

    @Test
    void pageViewThroughputBenchmarkRunsEveryParameterCombination() throws Exception
    {
        final Collection<RunResult> results = run(PageViewThroughputBenchmark.class, "pageViewJob", true, "page-view");

        // keys {1000, 1000000} x chaining {true, false} x idleStrategy {BUSY_SPIN, YIELD, BACKOFF}
        assertThat(results).hasSize(12);
        assertProducedScores(results);
    }

    @Test
    void ringHopThroughputBenchmarksRun() throws Exception
    {
        final Collection<RunResult> results = run(
            RingHopBenchmark.class, "(ringflowOneHop|disruptorOneHop)", true, "ring-hop");

        // ringflowOneHop x idleStrategy {BUSY_SPIN, YIELD, BACKOFF}, and disruptorOneHop
        assertThat(results).hasSize(4);
        assertProducedScores(results);
    }

    @Test
    void slotBufferBenchmarksRun() throws Exception
    {
        final Collection<RunResult> results =
            run(SlotBufferBenchmark.class, "(codecBuffer|unsafeBuffer)", false, "slot-buffer");

        assertThat(results).hasSize(2);
        assertProducedScores(results);
    }

    @Test
    void recordCodecBenchmarksRun() throws Exception
    {
        final Collection<RunResult> results = run(RecordCodecBenchmark.class, "encodeDecode", false, "record-codec");

        // codec {SPUN, GENERAL}
        assertThat(results).hasSize(2);
        assertProducedScores(results);
    }

    @Test
    void ringHopPingPongBenchmarkRuns() throws Exception
    {
        final Collection<RunResult> results = run(RingHopBenchmark.class, "disruptorPingPong", false, "ping-pong");

        // AverageTime and SampleTime
        assertThat(results).hasSize(2);
        assertProducedScores(results);
    }

    @Test
    void checkpointLatencyBenchmarkRuns() throws Exception
    {
        final ChainedOptionsBuilder options =
            smokeOptions(CheckpointLatencyBenchmark.class, "checkpoint", "checkpoint-latency")
                .param("depth", "1").param("idleStrategy", "BLOCK");
        final Collection<RunResult> results = new Runner(options.build()).run();

        // IDLE and SATURATED
        assertThat(results).hasSize(2);
        assertProducedScores(results);
    }

    @Test
    void aRecordCountThatDisagreesWithOperationsPerInvocationIsRefused()
    {
        // -p records=20000 without -opi 20000: JMH would count 10,000,000 operations per invocation.
        final ChainedOptionsBuilder options = smokeOptions(PageViewThroughputBenchmark.class, "pageViewJob", "refused")
            .param("records", String.valueOf(SMOKE_RECORDS))
            .param("keys", "1000")
            .param("chaining", "true")
            .param("idleStrategy", "BACKOFF");

        assertThatThrownBy(() -> new Runner(options.build()).run()).isInstanceOf(RunnerException.class);
    }

    @Test
    void latencyHarnessRunsAndItsChecksPass() throws Exception
    {
        final LatencyHarness.Report report = harness(
            "--rate", "20000", "--keys", "100", "--warmup-seconds", "0.2", "--seconds", "0.3",
            "--drain-seconds", "120");

        assertThat(report.passed()).isTrue();
        assertThat(report.results()).extracting(LatencyHarness.RunResult::name)
            .containsExactly("ringflow page-view", "disruptor floor");
        for (final LatencyHarness.RunResult result : report.results())
        {
            assertThat(result.histogram().getTotalCount()).as(result.name()).isPositive();
        }
    }

    @Test
    void latencyHarnessBoundedUnchainedRunVerifiesExactCounts() throws Exception
    {
        final LatencyHarness.Report report = harness(
            "--rate", "20000", "--keys", "100", "--warmup-seconds", "0.1", "--seconds", "0.2", "--bounded",
            "--chaining", "false", "--idle", "BLOCK", "--no-floor", "--drain-seconds", "120");

        assertThat(report.passed()).isTrue();
        assertThat(report.results()).hasSize(1);
        assertThat(report.results().get(0).histogram().getTotalCount()).isPositive();
    }

    @Test
    void latencyHarnessWithCheckpointsAndBackPressureReportsTheCheckpointsOfItsWindow() throws Exception
    {
        final LatencyHarness.Report report = harness(
            "--rate", "20000", "--keys", "100", "--warmup-seconds", "0.2", "--seconds", "0.6",
            "--checkpoint", "unaligned", "--checkpoint-interval", "20", "--backend", "chronicle",
            "--stall", "5:100", "--no-floor", "--drain-seconds", "120");

        assertThat(report.passed()).isTrue();
        final LatencyHarness.CheckpointStats checkpoints = report.results().get(0).checkpoints();
        // the run waits for a checkpoint after the window began, however slow the machine
        assertThat(checkpoints.count()).isPositive();
        assertThat(checkpoints.endToEnd().getMaxValue()).isPositive();
        assertThat(checkpoints.sync().getMaxValue()).isPositive();
        assertThat(checkpoints.async().getMaxValue()).isPositive();
        // the job's threads were counted over the window, in which its checkpoints allocated their statistics
        assertThat(report.results().get(0).allocated().checkpoints()).isPositive();
        assertThat(report.results().get(0).allocated().bytes()).isPositive();
        // every record due during a 5 ms pause of the sink waits for its end: the back-pressure happened
        assertThat(report.results().get(0).histogram().getMaxValue()).isGreaterThan(1_000_000L);
    }

    @Test
    void latencyHarnessCountsOnlyTheCheckpointsThatCompleteOnceTheWindowBegan()
    {
        final LatencyHarness.LatencySink sink = new LatencyHarness.LatencySink(10, 0, 1, 0, 0);
        final LatencyHarness.CheckpointStats stats = new LatencyHarness.CheckpointStats(sink);
        final io.ringflow.engine.api.CompletedCheckpoint checkpoint =
            new io.ringflow.engine.api.CompletedCheckpoint(1, 0, 2_000, java.util.Map.of(), List.of(), false);

        stats.record(checkpoint);
        assertThat(stats.count()).as("before the first record: no window yet").isZero();
        sink.window(System.nanoTime() + 3_600_000_000_000L);
        stats.record(checkpoint);
        assertThat(stats.count()).as("the window begins in an hour").isZero();
        final LatencyHarness.LatencySink begun = new LatencyHarness.LatencySink(10, 0, 1, 0, 0);
        begun.window(System.nanoTime() - 1_000_000_000L);
        begun.window(System.nanoTime() + 3_600_000_000_000L);
        final LatencyHarness.CheckpointStats counted = new LatencyHarness.CheckpointStats(begun);
        counted.record(checkpoint);
        assertThat(counted.count()).as("the window is set once, by the first record").isOne();
        assertThat(counted.endToEnd().getMaxValue()).isBetween(1_990L, 2_010L);
    }

    @Test
    void latencyOverheadHarnessRunsEachModeInItsOwnJvmAndTabulatesThem(@TempDir final Path out) throws Exception
    {
        final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        final LatencyOverheadHarness.Summary summary;
        try (PrintStream print = new PrintStream(buffer, true, StandardCharsets.UTF_8))
        {
            summary = LatencyOverheadHarness.run(LatencyOverheadHarness.Options.parse("--rate", "20000",
                "--warmup-seconds", "0.2", "--seconds", "0.5", "--checkpoint-interval", "20", "--modes",
                "none,aligned", "--storage", "memory,directory", "--pressure", "idle", "--drain-seconds", "120",
                "--out", out.toString()), print);
        }
        System.out.println(buffer.toString(StandardCharsets.UTF_8));

        assertThat(summary.passed()).isTrue();
        assertThat(summary.rows().keySet()).containsExactly("none", "aligned/mem", "aligned/dir");
        assertThat(summary.rows().get("none").floorP99()).isPositive();
        assertThat(summary.rows().get("none").checkpoints()).isZero();
        assertThat(summary.rows().get("aligned/mem").checkpoints()).isPositive();
        assertThat(summary.rows().get("aligned/dir").checkpoints()).isPositive();
        assertThat(summary.rows().get("aligned/mem").allocatedPerCheckpoint()).isPositive();
        assertThat(summary.rows().get("none").allocatedPerCheckpoint()).as("no checkpoints, no such figure").isNaN();
        assertThat(summary.rows().get("aligned/dir").p99()).isPositive();
        assertThat(Files.readString(out.resolve("latency-overhead.md"))).contains("| aligned/dir |");
        assertThat(out.resolve("latency-overhead-idle.png")).isNotEmptyFile();
    }

    @Test
    void forkedJvmFlagsEqualTheRootPomFlags() throws IOException
    {
        final String pom = Files.readString(Path.of("..", "pom.xml"), StandardCharsets.UTF_8);
        final Matcher property = Pattern.compile("<ringflow.jvm.flags>(.*?)</ringflow.jvm.flags>", Pattern.DOTALL)
            .matcher(pom);

        assertThat(property.find()).as("ringflow.jvm.flags in the root pom").isTrue();
        final List<String> rootFlags = Arrays.asList(property.group(1).trim().split("\\s+"));
        assertThat(JvmFlags.RINGFLOW).containsExactlyElementsOf(rootFlags);
    }

    @Test
    void pageViewWithCheckpointsInBothStateBackendsRuns() throws Exception
    {
        final int records = 200_000;
        final ChainedOptionsBuilder options =
            smokeOptions(PageViewThroughputBenchmark.class, "pageViewJob", "page-view-checkpoints")
                .param("keys", "1000").param("chaining", "true").param("idleStrategy", "BACKOFF")
                .param("checkpointIntervalMs", "1").param("unaligned", "true")
                .param("stateBackend", "HEAP", "CHRONICLE").param("incremental", "true")
                .param("records", String.valueOf(records)).operationsPerInvocation(records);
        final Collection<RunResult> results = new Runner(options.build()).run();

        // each invocation must complete a checkpoint and verify every count, or it fails
        assertThat(results).hasSize(2);
        assertProducedScores(results);
    }

    @Test
    void valueStateBenchmarksRun() throws Exception
    {
        final ChainedOptionsBuilder options =
            smokeOptions(io.ringflow.bench.state.ValueStateBenchmark.class, ".*", "value-state")
                .param("keys", "1000").param("entries", "1000");
        final Collection<RunResult> results = new Runner(options.build()).run();

        // heap, Chronicle and raw Chronicle increments; a snapshot, and a snapshot written, in each backend
        assertThat(results).hasSize(7);
        assertProducedScores(results);
    }

    @Test
    void stateFlushHarnessRunsAndChecksTheSnapshotItWrote() throws Exception
    {
        final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.PrintStream out = new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8))
        {
            io.ringflow.bench.state.StateFlushHarness.run(new int[] {1_000}, 0.05, out);
        }
        assertThat(bytes.toString(java.nio.charset.StandardCharsets.UTF_8)).contains("HEAP").contains("CHRONICLE");
    }

    @Test
    void incrementalCheckpointHarnessRunsAndChecksItsChains() throws Exception
    {
        final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.PrintStream out = new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8))
        {
            IncrementalCheckpointHarness.run(new String[] {"all", "--entries", "2000", "--rounds", "1",
                "--fractions", "0.01,1", "--keys", "1000", "--rate", "20000", "--seconds", "0.7", "--interval", "10"},
                out);
        }
        assertThat(bytes.toString(java.nio.charset.StandardCharsets.UTF_8)).contains("delta size")
            .contains("incremental").contains("full");
    }

    @Test
    void stateHeapHarnessRunsAndChecksEveryKey() throws Exception
    {
        final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.PrintStream out = new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8))
        {
            io.ringflow.bench.state.StateHeapHarness.run(new int[] {2_000}, new String[] {"HEAP", "CHRONICLE"}, out);
        }
        assertThat(bytes.toString(java.nio.charset.StandardCharsets.UTF_8)).contains("HEAP").contains("CHRONICLE");
    }

    @Test
    void checkpointHarnessQuickRunPassesItsChecks() throws Exception
    {
        final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.PrintStream out = new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8))
        {
            CheckpointHarness.run(new String[] {"all", "--quick"}, out);
        }
        assertThat(bytes.toString(java.nio.charset.StandardCharsets.UTF_8))
            .contains("Checkpoint duration under back-pressure")
            .contains("slow-sink UNALIGNED")
            .contains("Barrier latency");
    }

    @Test
    void eventTimeBenchmarkRunsEveryJobAndChecksItsWindows() throws Exception
    {
        final int records = 200_000;
        final ChainedOptionsBuilder options =
            smokeOptions(EventTimeBenchmark.class, "eventTimeJob", "event-time")
                .param("keys", "1000").param("stateBackend", "HEAP", "CHRONICLE").param("checkpointIntervalMs", "1")
                .param("records", String.valueOf(records)).operationsPerInvocation(records);
        final Collection<RunResult> results = new Runner(options.build()).run();

        // three jobs in two backends: each invocation verified its counts and, windowed, every window
        assertThat(results).hasSize(6);
        assertProducedScores(results);
    }

    @Test
    void timerBarrierHarnessFiresEveryTimerInEveryMode() throws Exception
    {
        final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.PrintStream out = new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8))
        {
            TimerBarrierHarness.run(20_000, 1, out);
        }
        assertThat(bytes.toString(java.nio.charset.StandardCharsets.UTF_8)).contains("| ALIGNED | 1,024 |")
            .contains("| UNALIGNED |").contains("| ALIGNED_WITH_TIMEOUT |").contains("| AT_LEAST_ONCE |");
    }

    private static Collection<RunResult> run(
        final Class<?> benchmark, final String methodRegex, final boolean overrideRecords, final String logName)
        throws RunnerException
    {
        final ChainedOptionsBuilder options = smokeOptions(benchmark, methodRegex, logName);
        if (overrideRecords)
        {
            options.param("records", String.valueOf(SMOKE_RECORDS)).operationsPerInvocation(SMOKE_RECORDS);
        }
        return new Runner(options.build()).run();
    }

    private static ChainedOptionsBuilder smokeOptions(
        final Class<?> benchmark, final String methodRegex, final String logName)
    {
        try
        {
            Files.createDirectories(LOGS);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
        return new OptionsBuilder()
            .include("^" + Pattern.quote(benchmark.getName()) + "\\." + methodRegex + "$")
            .forks(0)
            .warmupIterations(0)
            .measurementIterations(1)
            .measurementTime(TimeValue.milliseconds(20))
            .timeout(TimeValue.seconds(60))
            .shouldFailOnError(true)
            .output(LOGS.resolve(logName + ".txt").toString());
    }

    private static void assertProducedScores(final Collection<RunResult> results)
    {
        for (final RunResult result : results)
        {
            final String label = result.getParams().getBenchmark() + " " + result.getParams().getMode();
            assertThat(result.getPrimaryResult().getSampleCount()).as(label).isPositive();
            assertThat(result.getPrimaryResult().getScore()).as(label).isPositive();
        }
    }

    private static LatencyHarness.Report harness(final String... args) throws Exception
    {
        final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        final LatencyHarness.Report report;
        try (PrintStream out = new PrintStream(buffer, true, StandardCharsets.UTF_8))
        {
            report = LatencyHarness.run(LatencyHarness.Options.parse(args), out);
        }
        final String printed = buffer.toString(StandardCharsets.UTF_8);
        System.out.println(printed);
        assertThat(printed).contains("p99.99", "checks", "result: ");
        return report;
    }
}
