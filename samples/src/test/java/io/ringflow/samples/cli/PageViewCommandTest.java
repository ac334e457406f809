package io.ringflow.samples.cli;

import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobExecutionException;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.SubtaskCheckpointStats;
import io.ringflow.engine.api.functions.MapFunction;
import io.ringflow.engine.api.sink.DiscardSink;
import io.ringflow.engine.api.source.CollectionSource;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PageViewCommandTest
{
    @Test
    void aFailedJobIsReportedWithItsOperatorSubtaskAndOriginalException() throws Exception
    {
        final JobEnvironment env = JobEnvironment.create();
        final MapFunction<Integer, Integer> failOnTwo = value ->
        {
            if (value == 2)
            {
                throw new IllegalStateException("view 2 is corrupt");
            }
            return value;
        };
        env.fromSource(CollectionSource.of(Integer.class, 1, 2, 3), "views")
            .map(failOnTwo).name("parse")
            .sinkTo(new DiscardSink<>());
        final StringWriter err = new StringWriter();

        try (JobHandle handle = env.execute("failing"))
        {
            assertThatThrownBy(() -> handle.awaitTermination(Duration.ofMinutes(1)))
                .isInstanceOf(JobExecutionException.class);
            PageViewCommand.printFailure(handle, new PrintWriter(err, true));
        }

        assertThat(err.toString())
            .startsWith("ringflow: job 'failing' failed: operator 'parse' (uid ")
            .contains("subtask 0 of 1) threw java.lang.IllegalStateException: view 2 is corrupt")
            .contains("cause:\njava.lang.IllegalStateException: view 2 is corrupt\n\tat ");
    }

    /**
     * The phases line lists a task only for its checkpoints after the warm-up: one seen in the warm-up alone, or that
     * had finished by the steady ones, is left out; before any steady checkpoint there is no phases line at all.
     */
    @Test
    void checkpointPhasesCountOnlyCheckpointsAfterTheWarmUp()
    {
        final PageViewCommand.CheckpointDurations durations = new PageViewCommand.CheckpointDurations(1_000);
        durations.record(checkpoint(1, 999, stats("source", 10_000), stats("counter", 20_000),
            stats("gone-before-steady", 30_000)));
        assertThat(printed(durations)).contains("checkpoints: 0 completed").doesNotContain("checkpoint phases");

        durations.record(checkpoint(2, 1_000, stats("source", 40_000), stats("counter", 50_000),
            SubtaskCheckpointStats.finished("gone-before-steady")));
        assertThat(printed(durations)).contains("checkpoints: 1 completed after the 5 s warm-up")
            .containsPattern("p50: 'source' barrier 40\\.0[0-9]*, acknowledged [0-9.]+; " +
                "'counter' barrier 50\\.0[0-9]*, acknowledged [0-9.]+; completed [0-9.]+")
            .doesNotContain("gone-before-steady");
    }

    private static SubtaskCheckpointStats stats(final String task, final long startDelayNanos)
    {
        return new SubtaskCheckpointStats(task, 1_000, 2_000, 0, startDelayNanos,
            startDelayNanos + 5_000, 100, 0, 0, false);
    }

    private static CompletedCheckpoint checkpoint(final long id, final long triggerMillis,
        final SubtaskCheckpointStats... subtasks)
    {
        return new CompletedCheckpoint(id, triggerMillis, 90_000, Map.of(),
            List.of(subtasks), false);
    }

    private static String printed(final PageViewCommand.CheckpointDurations durations)
    {
        final StringWriter text = new StringWriter();
        try (PrintWriter out = new PrintWriter(text))
        {
            durations.print(5, out);
        }
        return text.toString();
    }

    @Test
    void aSecondsLineReadsAsTheFormatItReplaced()
    {
        // elapsed times, rates, totals and latency distributions of any size, and an empty interval
        final SplittableRandom random = new SplittableRandom(20261207L);
        final StringBuilder line = new StringBuilder();
        for (int i = 0; i < 2_000; i++)
        {
            final Histogram interval = new Histogram(3);
            final int samples = i % 10 == 0 ? 0 : 1 + random.nextInt(1_000);
            for (int n = 0; n < samples; n++)
            {
                interval.recordValue(random.nextLong(1, random.nextBoolean() ? 10_000 : 500_000_000));
            }
            final long elapsed = random.nextLong(0, 86_400_000_000_000L);
            final long perSecond = random.nextLong(0, 100_000_000);
            final long total = random.nextLong(0, Long.MAX_VALUE / 2);
            line.setLength(0);

            assertThat(PageViewCommand.appendSecond(line, elapsed, perSecond, total, interval).toString())
                .isEqualTo(String.format(Locale.ROOT, "%8.1f s %,14d %,16d %s %s %s", elapsed / 1e9, perSecond,
                    total, micros(interval, 50.0), micros(interval, 99.0), micros(interval, 99.9)));
        }
    }

    /** The per-percentile text the report printed with a format. */
    private static String micros(final Histogram histogram, final double percentile)
    {
        return histogram.getTotalCount() == 0 ? String.format(Locale.ROOT, "%10s", "-") :
            String.format(Locale.ROOT, "%10.1f", histogram.getValueAtPercentile(percentile) / 1e3);
    }
}
