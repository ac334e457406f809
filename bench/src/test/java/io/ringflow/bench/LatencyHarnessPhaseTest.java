package io.ringflow.bench;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The sinks' branch-free phase of a time against the measured window, wherever {@code nanoTime()} starts. */
class LatencyHarnessPhaseTest
{
    @Test
    void aTimeIsInTheWarmUpTheWindowOrPastItAtExactlyTheWindowsBounds()
    {
        final SplittableRandom random = new SplittableRandom(20261206L);
        for (int i = 0; i < 10_000; i++)
        {
            // nanoTime() may be any value, negative too; windows of up to an hour
            final long start = random.nextLong(-(1L << 60), 1L << 60);
            final long end = start + random.nextLong(1, 3_600_000_000_000L);
            final long time = start + random.nextLong(-7_200_000_000_000L, 7_200_000_000_000L);

            final int expected = time < start ? LatencyHarness.WARM_UP : time < end ? LatencyHarness.WINDOW :
                LatencyHarness.PAST;
            assertThat(LatencyHarness.phaseOf(time, start, end)).as("time %d, window [%d, %d)", time, start, end)
                .isEqualTo(expected);
            assertThat(LatencyHarness.phaseOf(start - 1, start, end)).isEqualTo(LatencyHarness.WARM_UP);
            assertThat(LatencyHarness.phaseOf(start, start, end)).isEqualTo(LatencyHarness.WINDOW);
            assertThat(LatencyHarness.phaseOf(end - 1, start, end)).isEqualTo(LatencyHarness.WINDOW);
            assertThat(LatencyHarness.phaseOf(end, start, end)).isEqualTo(LatencyHarness.PAST);
        }
    }
    @Test
    void eachLatencyGoesToItsPhasesHistogramAndOnlyTheWindowsClampsCount()
    {
        final org.HdrHistogram.Histogram[] byPhase = new org.HdrHistogram.Histogram[3];
        for (int phase = 0; phase < byPhase.length; phase++)
        {
            byPhase[phase] = new org.HdrHistogram.Histogram(1, LatencyHarness.MAX_RECORDABLE_NANOS, 3);
        }
        final long start = -5_000;
        final long end = 5_000;
        assertThat(LatencyHarness.recordLatency(byPhase, -4_000, -6_000, start, end)).isZero();
        assertThat(LatencyHarness.recordLatency(byPhase, 1_000, 0, start, end)).isZero();
        assertThat(LatencyHarness.recordLatency(byPhase, 4_999 + LatencyHarness.MAX_RECORDABLE_NANOS + 1, 4_999, start,
            end)).as("a window latency clamped").isOne();
        assertThat(LatencyHarness.recordLatency(byPhase, -6_000 + LatencyHarness.MAX_RECORDABLE_NANOS + 1, -6_000,
            start, end)).as("a warm-up latency clamped is not counted").isZero();
        assertThat(LatencyHarness.recordLatency(byPhase, 6_000, 5_000, start, end)).isZero();

        assertThat(byPhase[LatencyHarness.WARM_UP].getTotalCount()).isEqualTo(2);
        assertThat(byPhase[LatencyHarness.WINDOW].getTotalCount()).isEqualTo(2);
        assertThat(byPhase[LatencyHarness.WINDOW].getMinValue()).isBetween(999L, 1_001L);
        assertThat(byPhase[LatencyHarness.PAST].getTotalCount()).isEqualTo(1);
    }
}
