package io.ringflow.engine.runtime.task;

import io.ringflow.engine.api.IdleStrategyKind;
import io.ringflow.engine.channel.ParkingSignal;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * How one task thread waits when a work cycle found nothing to do. Confined to that thread.
 */
public final class Idler
{
    private static final long BACKOFF_MAX_SPINS = 10;
    private static final long BACKOFF_MAX_YIELDS = 5;
    private static final long BACKOFF_MIN_PARK_NANOS = 1_000;
    /**
     * Yields of a producer facing a full ring before it parks: the consumer is behind, so it is working and will free
     * slots within microseconds, while a park costs tens of microseconds of timer slack at the least.
     */
    private static final long BACK_PRESSURE_MAX_YIELDS = 100;

    private final IdleStrategy strategy;
    private final ParkingSignal signal;
    private final long maxParkNanos;

    private Idler(final IdleStrategy strategy, final ParkingSignal signal, final long maxParkNanos)
    {
        this.strategy = strategy;
        this.signal = signal;
        this.maxParkNanos = maxParkNanos;
    }

    /**
     * @param kind         the configured strategy.
     * @param signal       the task's wake-up signal, for BLOCK; null when it has no inputs to be woken by.
     * @param maxParkNanos longest single park.
     * @return an idler for one task thread.
     */
    public static Idler create(final IdleStrategyKind kind, final ParkingSignal signal, final long maxParkNanos)
    {
        switch (kind)
        {
            case BUSY_SPIN:
                return new Idler(new BusySpinIdleStrategy(), null, maxParkNanos);
            case YIELD:
                return new Idler(new YieldingIdleStrategy(), null, maxParkNanos);
            case BLOCK:
                if (signal != null)
                {
                    return new Idler(null, signal, maxParkNanos);
                }
                return new Idler(backoff(maxParkNanos), null, maxParkNanos);
            case BACKOFF:
            default:
                return new Idler(backoff(maxParkNanos), null, maxParkNanos);
        }
    }

    /** @param maxParkNanos longest single park. @return BACKOFF's strategy for an idle task. */
    static IdleStrategy backoff(final long maxParkNanos)
    {
        return new BackoffIdleStrategy(BACKOFF_MAX_SPINS, BACKOFF_MAX_YIELDS, BACKOFF_MIN_PARK_NANOS, maxParkNanos);
    }

    /**
     * @param maxParkNanos longest single park.
     * @return the strategy used while an output ring is full, whatever the configured kind: spins, then yields for a
     *     while, then parks.
     */
    static IdleStrategy backPressure(final long maxParkNanos)
    {
        return new BackoffIdleStrategy(BACKOFF_MAX_SPINS, BACK_PRESSURE_MAX_YIELDS, BACKOFF_MIN_PARK_NANOS,
            maxParkNanos);
    }

    /**
     * @param workCount what the last cycle did; 0 means idle.
     * @param hasInput  re-checks the inputs after announcing a park (BLOCK only).
     */
    void idle(final int workCount, final BooleanSupplier hasInput)
    {
        if (strategy != null)
        {
            strategy.idle(workCount);
            return;
        }
        if (workCount > 0)
        {
            return;
        }
        signal.parked(true);
        if (!hasInput.getAsBoolean())
        {
            LockSupport.parkNanos(maxParkNanos);
        }
        signal.parked(false);
    }
}
