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
}
