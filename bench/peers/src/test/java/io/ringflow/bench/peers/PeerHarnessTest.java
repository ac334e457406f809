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
    void mediansOfOddAndEvenCounts()
    {
        assertThat(PeerComparison.median(new double[] {1, 2, 9})).isEqualTo(2);
        assertThat(PeerComparison.median(new double[] {1, 2, 4, 9})).isEqualTo(3);
    }
}
