package io.ringflow.bench.peers;

/**
 * Stamps the views of one source subtask the way Ringflow's {@code GeneratorSource} does, so that every engine's
 * latency means the same: as fast as possible, a view carries {@link System#nanoTime()} taken when it is made; at a
 * fixed rate, the subtask runs at {@code rate / parallelism} and a view carries the time it was <em>due</em>
 * ({@code start + k * period}, {@code start} being the subtask's first poll), not the time it was made, so that a
 * stalled engine's queueing shows in its latency (no coordinated omission).
 *
 * <p>Not thread-safe: confined to the source subtask's thread.
 */
final class ViewPacer
{
    private final long periodNanos;
    private long startNanos = Long.MIN_VALUE;

    /**
     * @param rate        views per second of all source subtasks together; 0 = as fast as possible.
     * @param parallelism the number of source subtasks.
     */
    ViewPacer(final long rate, final int parallelism)
    {
        this.periodNanos = rate == 0 ? 0 : Math.max(1, 1_000_000_000L * parallelism / rate);
    }

    /** @return whether views are paced (a fixed rate). */
    boolean paced()
    {
        return periodNanos != 0;
    }

    /**
     * @param local the subtask's view number, from 0.
     * @param now   {@link System#nanoTime()}.
     * @return nanoseconds until that view is due; 0 or less when it is due now (always, as fast as possible).
     */
    long nanosUntilDue(final long local, final long now)
    {
        if (periodNanos == 0)
        {
            return 0;
        }
        if (startNanos == Long.MIN_VALUE)
        {
            startNanos = now - local * periodNanos;
        }
        return startNanos + local * periodNanos - now;
    }

    /**
     * @param local the subtask's view number, from 0; when paced, {@link #nanosUntilDue} was called for it first.
     * @return the view's timestamp: now, or when it was due.
     */
    long stamp(final long local)
    {
        return periodNanos == 0 ? System.nanoTime() : startNanos + local * periodNanos;
    }
}
