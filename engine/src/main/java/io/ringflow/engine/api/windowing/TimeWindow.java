package io.ringflow.engine.api.windowing;

/**
 * A window of time: from {@code start} (inclusive) to {@code end} (exclusive). Its last instant,
 * {@link #maxTimestamp()}, is when an event-time window fires.
 *
 * @param start the first instant in the window.
 * @param end   the first instant after it.
 */
public record TimeWindow(long start, long end)
{
    /** Checks the bounds. */
    public TimeWindow
    {
        if (end <= start)
        {
            throw new IllegalArgumentException("a window ends after it starts: [" + start + ", " + end + ")");
        }
    }

    /** @return the last instant in the window: {@code end - 1}. */
    public long maxTimestamp()
    {
        return end - 1;
    }

    /** @param other a window. @return whether they overlap or touch (session windows merge then). */
    public boolean intersects(final TimeWindow other)
    {
        return start <= other.end && end >= other.start;
    }

    /** @param other a window. @return the smallest window covering both. */
    public TimeWindow cover(final TimeWindow other)
    {
        return new TimeWindow(Math.min(start, other.start), Math.max(end, other.end));
    }

    /**
     * @param timestamp an instant.
     * @param offset    the windows' offset from the epoch.
     * @param size      the windows' size (or slide).
     * @return the start of the window of that size containing {@code timestamp}.
     */
    public static long startOf(final long timestamp, final long offset, final long size)
    {
        final long remainder = (timestamp - offset) % size;
        // negative timestamps: the remainder is negative, the start is below the timestamp
        return remainder < 0 ? timestamp - (remainder + size) : timestamp - remainder;
    }

    @Override
    public String toString()
    {
        return "[" + start + ", " + end + ")";
    }
}
