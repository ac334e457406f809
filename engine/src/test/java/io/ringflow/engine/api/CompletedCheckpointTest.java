package io.ringflow.engine.api;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The one-line summary reads exactly as the {@code String.format} it replaced, for any durations and sizes. */
class CompletedCheckpointTest
{
    @Test
    void theSummaryReadsAsTheFormatItReplacedForAnyDurations()
    {
        final SplittableRandom random = new SplittableRandom(20261206L);
        final StringBuilder reused = new StringBuilder();
        final long[] edges = {0, 1, 49, 50, 51, 99, 100, 149, 150, 951, 999_949, 999_950, 1_234_550, 1_250, 1_150, -1,
            -49, -50, -51, -150};
        for (int i = 0; i < 20_000; i++)
        {
            final long[] nanos = new long[4];
            for (int n = 0; n < nanos.length; n++)
            {
                // the edges of rounding first, then any duration up to 10 s, or a multiple of 50 ns (a half tenth)
                nanos[n] = i < edges.length ? edges[(i + n) % edges.length] : random.nextBoolean() ?
                    random.nextLong(-1, 10_000_000_000L) : random.nextLong(-1, 1_000_000) / 50 * 50;
            }
            final boolean unaligned = random.nextBoolean();
            final boolean savepoint = random.nextInt(10) == 0;
            final CompletedCheckpoint checkpoint = new CompletedCheckpoint(i + 1, 0, nanos[0], Map.of(), List.of(
                new SubtaskCheckpointStats("source", nanos[1], nanos[2], nanos[3], 5, 6, 100 + i, 7L * i, i, unaligned),
                SubtaskCheckpointStats.finished("sink")), savepoint);

            assertThat(checkpoint.summary()).isEqualTo(String.format(Locale.ROOT, "%s %d %s: %.1f us end to end, " +
                    "max sync %.1f us, max async %.1f us, max alignment %.1f us, state %d B, in-flight %d B, %d tasks",
                savepoint ? "savepoint" : "checkpoint", checkpoint.checkpointId(), unaligned ? "unaligned" : "aligned",
                nanos[0] / 1e3, Math.max(nanos[1], -1) / 1e3, Math.max(nanos[2], -1) / 1e3,
                Math.max(nanos[3], -1) / 1e3, 100 + i, 7L * i, 2));
            // appended to a builder a monitor reuses: the same text after what it already holds
            reused.setLength(0);
            assertThat(checkpoint.appendSummary(reused.append("  ")).toString())
                .isEqualTo("  " + checkpoint.summary());
        }
    }
}
