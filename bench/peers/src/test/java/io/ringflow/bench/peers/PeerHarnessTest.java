package io.ringflow.bench.peers;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The harness's own pieces: options, result lines, flags, pacing, medians. */
class PeerHarnessTest
{
    @Test
    void countsAreParsedAsTheRingflowCommandLineDoes()
    {
        assertThat(RunOptions.parseCount("--events", "20M")).isEqualTo(20_000_000L);
        assertThat(RunOptions.parseCount("--events", "500k")).isEqualTo(500_000L);
        assertThat(RunOptions.parseCount("--events", "2_000_000")).isEqualTo(2_000_000L);
        assertThat(RunOptions.parseCount("--events", "1G")).isEqualTo(1_000_000_000L);
        assertThatThrownBy(() -> RunOptions.parseCount("--events", "2x")).hasMessageContaining("--events");
    }

    @Test
    void optionsSurviveTheTripToAFork()
    {
        final RunOptions options = new RunOptions(3_000_000, 17, 250_000, 2, 50, RunOptions.FlinkState.ROCKSDB, 0, 90);
        final List<String> args = options.toArgs();
        final Map<String, String> parsed = PeerRun.parseOptions(args.toArray(String[]::new));

        assertThat(RunOptions.from(RunOptions.defaults(), parsed)).isEqualTo(options);
        assertThat(parsed).isEmpty();

        final RunOptions inDirectory = new RunOptions(1_000, 1_000_000, 0, 1, 100, RunOptions.FlinkState.HEAP, -1, 90,
            "/dev/shm/flink-checkpoints");
        final Map<String, String> parsedAgain = PeerRun.parseOptions(inDirectory.toArgs().toArray(String[]::new));
        assertThat(RunOptions.from(RunOptions.defaults(), parsedAgain)).isEqualTo(inDirectory);
        assertThat(RunOptions.defaults().flinkCheckpointDir()).as("the JobManager's memory by default").isEmpty();
    }

    @Test
    void invalidOptionsAreRefused()
    {
        final Map<String, String> zeroEvents = new HashMap<>(Map.of("events", "0"));
        assertThatThrownBy(() -> RunOptions.from(RunOptions.defaults(), zeroEvents)).hasMessageContaining("--events");
        final Map<String, String> badState = new HashMap<>(Map.of("flink-state", "memory"));
        assertThatThrownBy(() -> RunOptions.from(RunOptions.defaults(), badState))
            .hasMessageContaining("--flink-state");
        assertThatThrownBy(() -> PeerRun.parseOptions(new String[] {"--runs"})).hasMessageContaining("needs a value");
    }

    @Test
    void resultLinesRoundTrip()
    {
        final RunResult result = new RunResult("flink", 2, 1_000_000, 1000, 1, 100, 0, true, 1.5, 0.25, 1.25,
            Double.NaN, Double.NaN, 666_667, 12.5, 100.5, 1000.5, 2000.5, Double.NaN, Double.NaN, Double.NaN,
            Double.NaN, 1_000_000, 12, 1_000_000, 1_000_000, 0);

        final String line = result.toLine();

        assertThat(line).startsWith("PEER-RESULT engine=flink run=2 ").contains(" steady_rps=- ");
        assertThat(RunResult.parse(line)).isEqualTo(result);
    }

    @Test
    void everyEngineHasItsJvmFlags()
    {
        assertThat(PeerJvmFlags.forEngine("ringflow")).contains("-Dchronicle.analytics.disable=true",
            "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED");
        assertThat(PeerJvmFlags.forEngine("flink")).contains("--add-opens=java.base/java.util=ALL-UNNAMED");
        assertThat(PeerJvmFlags.forEngine("jet")).contains("--add-opens=java.base/java.lang=ALL-UNNAMED");
    }

    @Test
    void pacedViewsCarryTheTimeTheyWereDue()
    {
        final ViewPacer pacer = new ViewPacer(1_000, 2);
        final long start = 1_000_000_000L;

        assertThat(pacer.nanosUntilDue(0, start)).isZero();
        assertThat(pacer.stamp(0)).isEqualTo(start);
        // 1,000 views/s over 2 subtasks: each subtask's views are 2 ms apart.
        assertThat(pacer.nanosUntilDue(1, start + 500_000)).isEqualTo(1_500_000);
        assertThat(pacer.stamp(3)).isEqualTo(start + 6_000_000);
        assertThat(new ViewPacer(0, 1).nanosUntilDue(5, start)).isZero();
    }

    @Test
    void theTallyVerifiesOnlyCompleteCorrectTotals()
    {
        final RunTally tally = RunTally.create("harness-test", 3);
        try
        {
            final RunTally.Writer first = tally.writer(0, 2);
            final RunTally.Writer second = tally.writer(1, 2);
            // Views 0..5 over 3 apps: two each. App 0 and 1 at subtask 0, app 2 at subtask 1.
            for (long count = 1; count <= 2; count++)
            {
                first.write(0, count, System.nanoTime());
                first.write(1, count, System.nanoTime());
            }
            second.write(2, 1, System.nanoTime());
            tally.addGenerated(6);
            first.close();

            assertThat(tally.verify(6)).singleElement().asString().contains("1 of 2 sink subtasks closed");

            second.close();
            assertThat(tally.verify(6)).containsExactly(
                "app 2: generated 2, final count 1, updates received 1",
                "the sink received 5 updates, expected 6");
            assertThat(tally.recordsReceived()).isEqualTo(5);
        }
        finally
        {
            tally.remove();
        }
    }

    @Test
    void checkpointsAreCountedOncePerNewerId()
    {
        final RunTally tally = RunTally.create("checkpoint-test", 1);
        try
        {
            tally.checkpointCompleted(0);
            tally.checkpointCompleted(1);
            tally.checkpointCompleted(1);
            tally.checkpointCompleted(3);
            tally.checkpointCompleted(2);

            assertThat(tally.checkpointsCompleted()).isEqualTo(3);
        }
        finally
        {
            tally.remove();
        }
    }

    @Test
    void theCommandLineIsPrintedReadyToPaste()
    {
        assertThat(PeerComparison.shellQuote("--events")).isEqualTo("--events");
        assertThat(PeerComparison.shellQuote("a.jar:lib/*")).isEqualTo("'a.jar:lib/*'");
        assertThat(PeerComparison.shellQuote("-Xms4g -Xmx4g")).isEqualTo("'-Xms4g -Xmx4g'");
        assertThat(PeerComparison.shellQuote("it's")).isEqualTo("'it'\\''s'");
        assertThat(PeerComparison.shellQuote("")).isEqualTo("''");
        assertThat(PeerComparison.commandLine(new String[] {"--runs", "1"})).contains("java");
    }

    @Test
    void mediansOfOddAndEvenCounts()
    {
        assertThat(PeerComparison.median(new double[] {1, 2, 9})).isEqualTo(2);
        assertThat(PeerComparison.median(new double[] {1, 2, 4, 9})).isEqualTo(3);
    }
}
