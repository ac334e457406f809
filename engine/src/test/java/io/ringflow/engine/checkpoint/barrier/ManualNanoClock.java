package io.ringflow.engine.checkpoint.barrier;


/**
 * A clock that moves only when a test moves it.
 */
final class ManualNanoClock implements NanoClock
{
    private long now;

    ManualNanoClock(final long startNanos)
    {
        this.now = startNanos;
    }

    @Override
    public long nanoTime()
    {
        return now;
    }

    /**
     * @param nanos how far to move forward; not negative.
     * @return the new reading.
     */
    long advance(final long nanos)
    {
        if (nanos < 0)
        {
            throw new IllegalArgumentException("a monotonic clock does not go back: " + nanos);
        }
        now += nanos;
        return now;
    }
}
