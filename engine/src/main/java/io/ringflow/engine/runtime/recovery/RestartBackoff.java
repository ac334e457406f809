package io.ringflow.engine.runtime.recovery;

import io.ringflow.engine.api.RestartStrategy;

import java.util.ArrayDeque;

/**
 * Decides, failure by failure, whether a job restarts and after how long, following its {@link RestartStrategy}.
 * Pure: time is passed in, so the decisions are tested with a manual clock.
 *
 * <p>Thread contract: one thread at a time (the job's restart logic).
 */
public final class RestartBackoff
{
    /** Returned by {@link #onFailure} when the job must not restart. */
    public static final long GIVE_UP = -1;

    private final RestartStrategy strategy;
    private final ArrayDeque<Long> failureTimes = new ArrayDeque<>();
    private int restarts;
    private long nextExponentialDelayNanos;

    public RestartBackoff(final RestartStrategy strategy)
    {
        this.strategy = strategy;
        if (strategy instanceof RestartStrategy.ExponentialDelay exponential)
        {
            nextExponentialDelayNanos = exponential.initialDelay().toNanos();
        }
    }

    /**
     * @param nowNanos          the failure's time.
     * @param attemptStartNanos when the failed attempt started.
     * @return the wait before restarting, or {@link #GIVE_UP}.
     */
    public long onFailure(final long nowNanos, final long attemptStartNanos)
    {
        if (strategy instanceof RestartStrategy.FixedDelay fixed)
        {
            if (restarts >= fixed.maxRestarts())
            {
                return GIVE_UP;
            }
            restarts++;
            return fixed.delay().toNanos();
        }
        if (strategy instanceof RestartStrategy.FailureRate rate)
        {
            failureTimes.addLast(nowNanos);
            while (!failureTimes.isEmpty() && nowNanos - failureTimes.peekFirst() > rate.interval().toNanos())
            {
                failureTimes.removeFirst();
            }
            if (failureTimes.size() > rate.maxFailures())
            {
                return GIVE_UP;
            }
            restarts++;
            return rate.delay().toNanos();
        }
        if (strategy instanceof RestartStrategy.ExponentialDelay exponential)
        {
            if (restarts >= exponential.maxRestarts())
            {
                return GIVE_UP;
            }
            if (nowNanos - attemptStartNanos >= exponential.resetAfter().toNanos())
            {
                nextExponentialDelayNanos = exponential.initialDelay().toNanos();
            }
            final long delay = nextExponentialDelayNanos;
            nextExponentialDelayNanos = (long)Math.min((double)exponential.maxDelay().toNanos(),
                delay * exponential.multiplier());
            restarts++;
            return delay;
        }
        return GIVE_UP;
    }

    /** @return how many restarts were granted so far. */
    public int restarts()
    {
        return restarts;
    }
}
