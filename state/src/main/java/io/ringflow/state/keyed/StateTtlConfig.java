package io.ringflow.state.keyed;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * The time-to-live of a keyed state, set on its descriptor with {@code enableTimeToLive}: how long an entry stays
 * visible after it was last written (or, with {@link UpdateType#OnReadAndWrite}, last read or written), and the clock
 * that says what time it is.
 *
 * <p>Semantics, the same in both backends: every stored entry carries the time it was last refreshed (per key; per
 * user key for a map state). An entry refreshed at {@code t} is visible while {@code clock < t + ttl}. An expired entry
 * reads as absent (the default value, null, or empty), is removed when it is touched (read or written), and is left
 * out of every snapshot whose barrier comes after its expiry: the clock is read once per state at the barrier.
 * Restored entries keep their timestamps, so their expiry survives a restore.
 *
 * <p>Immutable. The clock is called on the task thread only.
 */
public final class StateTtlConfig
{
    /** What refreshes an entry's timestamp. */
    public enum UpdateType
    {
        /** Creating or writing the entry (update, put, add). */
        OnCreateAndWrite,
        /** Also reading it (value, get, contains, iteration), so entries in use never expire. */
        OnReadAndWrite
    }

    private final Duration ttl;
    private final UpdateType updateType;
    private final LongSupplier clock;

    private StateTtlConfig(final Duration ttl, final UpdateType updateType, final LongSupplier clock)
    {
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || ttl.toMillis() < 1)
        {
            throw new IllegalArgumentException("a time-to-live must be at least 1 ms, not " + ttl);
        }
        this.ttl = ttl;
        this.updateType = Objects.requireNonNull(updateType, "updateType");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * @param ttl how long an entry stays visible after it was last written; at least 1 ms.
     * @return a configuration that refreshes on writes only, on the system clock.
     */
    public static StateTtlConfig of(final Duration ttl)
    {
        return new StateTtlConfig(ttl, UpdateType.OnCreateAndWrite, System::currentTimeMillis);
    }

    /**
     * @param updateType what refreshes an entry's timestamp.
     * @return a copy with that update type.
     */
    public StateTtlConfig withUpdateType(final UpdateType updateType)
    {
        return new StateTtlConfig(ttl, updateType, clock);
    }

    /**
     * @param clock the time now in epoch milliseconds, called on the task thread; a manual clock in tests.
     * @return a copy with that clock.
     */
    public StateTtlConfig withClock(final LongSupplier clock)
    {
        return new StateTtlConfig(ttl, updateType, clock);
    }

    /** @return how long an entry stays visible after it was last refreshed. */
    public Duration ttl()
    {
        return ttl;
    }

    /** @return {@link #ttl()} in milliseconds, at least 1. */
    public long ttlMillis()
    {
        return ttl.toMillis();
    }

    /** @return what refreshes an entry's timestamp. */
    public UpdateType updateType()
    {
        return updateType;
    }

    /** @return the clock, in epoch milliseconds. */
    public LongSupplier clock()
    {
        return clock;
    }

    /**
     * @param other another configuration.
     * @return whether both expire entries alike: the same time-to-live and update type (clocks are not compared).
     */
    public boolean sameExpiry(final StateTtlConfig other)
    {
        return other != null && ttl.equals(other.ttl) && updateType == other.updateType;
    }

    @Override
    public String toString()
    {
        return "time-to-live " + ttl.toMillis() + " ms (" + updateType + ")";
    }
}
