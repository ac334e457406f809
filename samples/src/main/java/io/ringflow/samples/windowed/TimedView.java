package io.ringflow.samples.windowed;

/**
 * A page view with its event time: which app, when (epoch ms, event time), and how long it was looked at.
 *
 * @param app        the app's id.
 * @param time       when the view happened.
 * @param durationMs how long it lasted.
 */
public record TimedView(long app, long time, long durationMs)
{
    /** Event time of the generated input's first view: 2026-01-01T00:00:00Z. */
    public static final long EPOCH = 1_767_225_600_000L;

    /**
     * The deterministic input: view {@code i} of a run. Views are {@code 1000 / viewsPerSecond} ms apart in event
     * time and arrive up to {@code outOfOrdernessMs} earlier than that (never more: none is late).
     *
     * @param i                the view's index.
     * @param apps             distinct apps.
     * @param viewsPerSecond   event-time rate.
     * @param outOfOrdernessMs the most a view is out of order.
     * @return view {@code i}.
     */
    public static TimedView generate(final long i, final int apps, final long viewsPerSecond,
        final long outOfOrdernessMs)
    {
        final long mix = mix(i);
        final long app = Math.floorMod(mix, apps);
        final long inOrder = EPOCH + i * 1_000 / viewsPerSecond;
        final long back = outOfOrdernessMs == 0 ? 0 : Math.floorMod(mix >>> 17, outOfOrdernessMs + 1);
        return new TimedView(app, inOrder - back, 100 + Math.floorMod(mix >>> 29, 10_000));
    }

    private static long mix(final long i)
    {
        long z = i * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
