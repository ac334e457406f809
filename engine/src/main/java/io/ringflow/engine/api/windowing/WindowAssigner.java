package io.ringflow.engine.api.windowing;

import java.time.Duration;

/**
 * Which windows a record belongs to. Built by the factory methods below, validated when built (a size of zero or
 * less, a slide larger than the size, a gap of zero or less are refused at once, naming the value).
 *
 * <ul>
 *   <li><b>Tumbling</b>: fixed size, back to back; each record in exactly one window.</li>
 *   <li><b>Sliding</b>: fixed size, a new one every {@code slide}; each record in {@code size / slide} windows.</li>
 *   <li><b>Session</b>: a window per burst of activity of a key, closed by a gap without records; overlapping
 *   sessions merge.</li>
 * </ul>
 * Each in event time (the record's timestamp, fired by watermarks) or processing time (the clock when the record is
 * processed, fired by the clock).
 */
public final class WindowAssigner
{
    /** The kinds of window. */
    public enum Kind
    {
        TUMBLING, SLIDING, SESSION
    }

    private final Kind kind;
    private final boolean eventTime;
    private final long size;
    private final long slide;
    private final long offset;

    private WindowAssigner(final Kind kind, final boolean eventTime, final long size, final long slide,
        final long offset)
    {
        this.kind = kind;
        this.eventTime = eventTime;
        this.size = size;
        this.slide = slide;
        this.offset = offset;
    }

    /** @param size the windows' size. @return tumbling event-time windows aligned to the epoch. */
    public static WindowAssigner tumblingEventTime(final Duration size)
    {
        return tumbling(true, size, Duration.ZERO);
    }

    /**
     * @param size   the windows' size.
     * @param offset shifts the windows from the epoch (e.g. a time zone), in [0, size).
     * @return tumbling event-time windows.
     */
    public static WindowAssigner tumblingEventTime(final Duration size, final Duration offset)
    {
        return tumbling(true, size, offset);
    }

    /** @param size the windows' size. @return tumbling processing-time windows. */
    public static WindowAssigner tumblingProcessingTime(final Duration size)
    {
        return tumbling(false, size, Duration.ZERO);
    }

    /** @param size the windows' size. @param slide how often one starts. @return sliding event-time windows. */
    public static WindowAssigner slidingEventTime(final Duration size, final Duration slide)
    {
        return sliding(true, size, slide);
    }

    /** @param size the windows' size. @param slide how often one starts. @return sliding processing-time windows. */
    public static WindowAssigner slidingProcessingTime(final Duration size, final Duration slide)
    {
        return sliding(false, size, slide);
    }

    /** @param gap the inactivity that closes a session. @return event-time session windows. */
    public static WindowAssigner eventTimeSessions(final Duration gap)
    {
        return new WindowAssigner(Kind.SESSION, true, positive("session gap", gap), 0, 0);
    }

    /** @param gap the inactivity that closes a session. @return processing-time session windows. */
    public static WindowAssigner processingTimeSessions(final Duration gap)
    {
        return new WindowAssigner(Kind.SESSION, false, positive("session gap", gap), 0, 0);
    }

    private static WindowAssigner tumbling(final boolean eventTime, final Duration size, final Duration offset)
    {
        final long millis = positive("window size", size);
        final long off = offset == null ? -1 : offset.toMillis();
        if (off < 0 || off >= millis)
        {
            throw new IllegalArgumentException("the window offset must be in [0, size=" + millis + " ms), was " +
                offset);
        }
        return new WindowAssigner(Kind.TUMBLING, eventTime, millis, millis, off);
    }

    private static WindowAssigner sliding(final boolean eventTime, final Duration size, final Duration slide)
    {
        final long sizeMillis = positive("window size", size);
        final long slideMillis = positive("window slide", slide);
        if (slideMillis > sizeMillis)
        {
            throw new IllegalArgumentException("the window slide (" + slideMillis + " ms) must not exceed its size (" +
                sizeMillis + " ms): records between two windows would belong to none");
        }
        return new WindowAssigner(Kind.SLIDING, eventTime, sizeMillis, slideMillis, 0);
    }

    private static long positive(final String what, final Duration value)
    {
        if (value == null || value.toMillis() <= 0)
        {
            throw new IllegalArgumentException("the " + what + " must be at least 1 ms, was " + value);
        }
        return value.toMillis();
    }

    /** @return the kind. */
    public Kind kind()
    {
        return kind;
    }

    /** @return whether windows are in event time (else processing time). */
    public boolean isEventTime()
    {
        return eventTime;
    }

    /** @return whether windows of a key merge (sessions). */
    public boolean isMerging()
    {
        return kind == Kind.SESSION;
    }

    /** @return the size (the gap for sessions), ms. */
    public long size()
    {
        return size;
    }

    /** @return the slide, ms (the size for tumbling windows; 0 for sessions). */
    public long slide()
    {
        return slide;
    }

    /** @return the offset from the epoch, ms. */
    public long offset()
    {
        return offset;
    }

    /** @return how many windows a record belongs to at most. */
    public int windowsPerRecord()
    {
        return kind == Kind.SLIDING ? (int)((size + slide - 1) / slide) : 1;
    }

    /**
     * The windows of a record at {@code time}, as starts (each window ends at start + size; a session's at
     * time + gap).
     *
     * @param time   the record's timestamp, or the processing time.
     * @param starts receives the starts; at least {@link #windowsPerRecord()} long.
     * @return how many windows.
     */
    public int assign(final long time, final long[] starts)
    {
        switch (kind)
        {
            case TUMBLING:
                starts[0] = TimeWindow.startOf(time, offset, size);
                return 1;
            case SLIDING:
            {
                int count = 0;
                final long last = TimeWindow.startOf(time, offset, slide);
                for (long start = last; start > time - size; start -= slide)
                {
                    starts[count++] = start;
                }
                return count;
            }
            default:
                starts[0] = time;
                return 1;
        }
    }

    /** @param start a window's start. @return its end. */
    public long endOf(final long start)
    {
        return start + size;
    }

    @Override
    public String toString()
    {
        return kind.name().toLowerCase() + (eventTime ? " event-time" : " processing-time") + " windows (" +
            (kind == Kind.SESSION ? "gap " + size + " ms" : "size " + size + " ms" +
            (kind == Kind.SLIDING ? ", slide " + slide + " ms" : "") + (offset != 0 ? ", offset " + offset : "")) + ')';
    }
}
