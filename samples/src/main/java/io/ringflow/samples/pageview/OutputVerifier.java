package io.ringflow.samples.pageview;

import io.ringflow.engine.api.sink.file.CommittedOutput;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecRegistry;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks the committed output of a page-view run against what it generated: every application's updates must be its
 * counts 1, 2, ..., n in order, n being the views generated for it. Streams the output once and keeps one count per
 * application, whatever the output's size. An update whose count is not above the application's last one is a
 * duplicate (a replay written twice); one that skips counts is a gap (updates lost); a final count short of n is a
 * lost tail.
 */
public final class OutputVerifier
{
    private OutputVerifier()
    {
    }

    /**
     * The outcome.
     *
     * @param parts       committed part files read.
     * @param updates     updates read.
     * @param expected    updates an exactly-once run writes: the views generated.
     * @param duplicates  updates whose count was not above the application's last.
     * @param lost        counts never written: gaps plus tails short of the views generated.
     * @param unknownApps updates for application ids outside the run's range.
     * @param mismatches  one line per application found wrong, at most {@link #MISMATCHES_KEPT}.
     * @param wrongApps   applications found wrong in all.
     */
    public record Report(int parts, long updates, long expected, long duplicates, long lost, long unknownApps,
        List<String> mismatches, long wrongApps)
    {
        /** How many mismatch lines a report keeps. */
        public static final int MISMATCHES_KEPT = 20;

        /** @return whether the output is exactly the failure-free output. */
        public boolean exactlyOnce()
        {
            return duplicates == 0 && lost == 0 && unknownApps == 0 && updates == expected;
        }

        /** @return whether nothing was lost (duplicates allowed: at-least-once). */
        public boolean nothingLost()
        {
            return lost == 0 && unknownApps == 0;
        }
    }

    /**
     * @param directory the output directory of a run with {@code --output}.
     * @param manifest  what the run generated.
     * @return the outcome.
     * @throws IOException when the output cannot be read.
     */
    public static Report verify(final Path directory, final OutputManifest manifest) throws IOException
    {
        final int apps = manifest.apps();
        final long[] expected = manifest.expectedCounts();
        final long[] last = new long[apps];
        final long[] gaps = new long[apps];
        final long[] duplicates = new long[apps];
        final long[] totals = new long[3];
        final Codec<AppCount> codec = CodecRegistry.withBuiltIns().codecFor(AppCount.class);
        CommittedOutput.forEachRecord(directory, codec, update ->
        {
            totals[0]++;
            final long app = update.appId();
            if (app < 0 || app >= apps)
            {
                totals[1]++;
                return;
            }
            final int a = (int)app;
            if (update.count() <= last[a])
            {
                duplicates[a]++;
                return;
            }
            gaps[a] += update.count() - last[a] - 1;
            last[a] = update.count();
        });
        final List<String> mismatches = new ArrayList<>();
        long lost = 0;
        long allDuplicates = 0;
        long wrongApps = 0;
        long expectedUpdates = 0;
        for (int a = 0; a < apps; a++)
        {
            expectedUpdates += expected[a];
            final long tail = Math.max(0, expected[a] - last[a]);
            final long beyond = Math.max(0, last[a] - expected[a]);
            lost += gaps[a] + tail;
            allDuplicates += duplicates[a];
            if (gaps[a] + tail + beyond + duplicates[a] > 0)
            {
                wrongApps++;
                if (mismatches.size() < Report.MISMATCHES_KEPT)
                {
                    mismatches.add(String.format("app %d: generated %,d, last count written %,d, counts skipped %,d" +
                        ", written twice %,d", a, expected[a], last[a], gaps[a] + tail, duplicates[a]));
                }
            }
        }
        return new Report(CommittedOutput.parts(directory).size(), totals[0], expectedUpdates, allDuplicates, lost,
            totals[1], List.copyOf(mismatches), wrongApps);
    }
}
