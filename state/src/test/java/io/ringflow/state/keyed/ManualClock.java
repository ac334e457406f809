package io.ringflow.state.keyed;

import java.util.function.LongSupplier;

/** A clock for time-to-live tests: epoch millis that move only when told. Task thread only. */
public final class ManualClock implements LongSupplier
{
    private long now;

    /** @param start the time it reads first. */
    public ManualClock(final long start)
    {
        this.now = start;
    }

    @Override
    public long getAsLong()
    {
        return now;
    }

    /** @param millis how far to move the time forward. */
    public void advance(final long millis)
    {
        now += millis;
    }

    /** @param time the time it reads from now on. */
    public void set(final long time)
    {
        now = time;
    }
}
