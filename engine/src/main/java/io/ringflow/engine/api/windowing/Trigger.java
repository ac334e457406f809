package io.ringflow.engine.api.windowing;

import java.time.Duration;

/**
 * When a window emits its result. The built-in triggers (custom triggers are not supported yet):
 * <ul>
 *   <li>{@link #afterEndOfWindow()}: the default: once the watermark (event time) or the clock (processing time)
 *   passes the window's end, and again for each late record within the allowed lateness.</li>
 *   <li>{@link #count(long)}: every {@code n} records of the window (and not at its end).</li>
 *   <li>{@link #continuous(Duration)}: every {@code interval} while the window is open (early results), and at its
 *   end.</li>
 * </ul>
 * Whatever the trigger, a window's state is cleared once the watermark passes its end plus the allowed lateness.
 */
public final class Trigger
{
    /** The kinds of trigger. */
    public enum Kind
    {
        END_OF_WINDOW, COUNT, CONTINUOUS
    }

    private final Kind kind;
    private final long parameter;

    private Trigger(final Kind kind, final long parameter)
    {
        this.kind = kind;
        this.parameter = parameter;
    }

    /** @return the default trigger: at the window's end. */
    public static Trigger afterEndOfWindow()
    {
        return new Trigger(Kind.END_OF_WINDOW, 0);
    }

    /** @param count records per firing, at least 1. @return a trigger that fires every {@code count} records. */
    public static Trigger count(final long count)
    {
        if (count < 1)
        {
            throw new IllegalArgumentException("a count trigger needs a count of at least 1, was " + count);
        }
        return new Trigger(Kind.COUNT, count);
    }

    /**
     * @param interval how often to emit an early result, at least 1 ms, in the window's time domain.
     * @return a trigger that fires every interval while the window is open, and at its end.
     */
    public static Trigger continuous(final Duration interval)
    {
        if (interval == null || interval.toMillis() < 1)
        {
            throw new IllegalArgumentException("a continuous trigger needs an interval of at least 1 ms, was " +
                interval);
        }
        return new Trigger(Kind.CONTINUOUS, interval.toMillis());
    }

    /** @return the kind. */
    public Kind kind()
    {
        return kind;
    }

    /** @return the count, or the interval in ms; 0 for the default trigger. */
    public long parameter()
    {
        return parameter;
    }

    @Override
    public String toString()
    {
        return switch (kind)
        {
            case END_OF_WINDOW -> "after end of window";
            case COUNT -> "every " + parameter + " records";
            case CONTINUOUS -> "every " + parameter + " ms and at the end";
        };
    }
}
