package io.ringflow.samples.windowed;

import java.util.HashMap;
import java.util.Map;

/**
 * The expected window results, computed straight from the generated input: every view, every window it falls in,
 * no engine, no watermarks. What the job's results are checked against.
 */
public final class BruteForceWindows
{
    private BruteForceWindows()
    {
    }

    /**
     * @param events         views generated.
     * @param apps           distinct apps.
     * @param viewsPerSecond event-time rate.
     * @param outOfOrderness most a view is out of order, ms.
     * @param size           window size, ms.
     * @param slide          window slide, ms (the size for tumbling windows).
     * @return per window key ({@link WindowResults#keyOf}), the expected result.
     */
    public static Map<String, WindowCount> compute(final long events, final int apps, final long viewsPerSecond,
        final long outOfOrderness, final long size, final long slide)
    {
        final Map<String, long[]> sums = new HashMap<>();
        for (long i = 0; i < events; i++)
        {
            final TimedView view = TimedView.generate(i, apps, viewsPerSecond, outOfOrderness);
            final long lastStart = view.time() - Math.floorMod(view.time(), slide);
            for (long start = lastStart; start > view.time() - size; start -= slide)
            {
                final long[] sum = sums.computeIfAbsent(WindowResults.keyOf(view.app(), start, start + size),
                    k -> new long[2]);
                sum[0]++;
                sum[1] += view.durationMs();
            }
        }
        final Map<String, WindowCount> expected = new HashMap<>();
        sums.forEach((key, sum) ->
        {
            final String[] parts = key.split("[@-]");
            expected.put(key, new WindowCount(Long.parseLong(parts[0]), Long.parseLong(parts[1]),
                Long.parseLong(parts[2]), sum[0], sum[1]));
        });
        return expected;
    }
}
