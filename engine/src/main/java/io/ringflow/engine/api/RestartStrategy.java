package io.ringflow.engine.api;

import java.time.Duration;
import java.util.Objects;

/**
 * What a job does when an attempt fails (a user function threw, a task failed, too many checkpoints failed): give up,
 * or start a new attempt from the latest completed checkpoint (from scratch when there is none) after a delay. Every
 * strategy is validated when it is created: a bad value fails with a message that names the option.
 *
 * <p>The strategies are Flink's: {@link #none()}, {@link #fixedDelay}, {@link #failureRate} and
 * {@link #exponentialDelay}.
 */
public sealed interface RestartStrategy
{
    /** @return never restart: the first failure fails the job. The default. */
    static RestartStrategy none()
    {
        return None.INSTANCE;
    }

    /**
     * @param maxRestarts how many restarts at most, 0 or more ({@link Integer#MAX_VALUE} for no limit).
     * @param delay       the wait before each restart, 0 or more.
     * @return restart up to {@code maxRestarts} times, waiting {@code delay} each time.
     */
    static RestartStrategy fixedDelay(final int maxRestarts, final Duration delay)
    {
        return new FixedDelay(maxRestarts, delay);
    }

    /**
     * @param maxFailures at least 1: how many failures are tolerated within {@code interval}.
     * @param interval    the sliding window, positive.
     * @param delay       the wait before each restart, 0 or more.
     * @return restart after each failure until more than {@code maxFailures} happen within {@code interval}.
     */
    static RestartStrategy failureRate(final int maxFailures, final Duration interval, final Duration delay)
    {
        return new FailureRate(maxFailures, interval, delay);
    }

    /**
     * @param initialDelay the first wait, positive.
     * @param maxDelay     the longest wait, at least {@code initialDelay}.
     * @param multiplier   each consecutive failure multiplies the wait by this, at least 1.
     * @param resetAfter   an attempt that ran this long without failing resets the wait to {@code initialDelay},
     *                     positive.
     * @param maxRestarts  how many restarts at most ({@link Integer#MAX_VALUE} for no limit).
     * @return restart with a wait that grows while failures follow each other closely.
     */
    static RestartStrategy exponentialDelay(final Duration initialDelay, final Duration maxDelay,
        final double multiplier, final Duration resetAfter, final int maxRestarts)
    {
        return new ExponentialDelay(initialDelay, maxDelay, multiplier, resetAfter, maxRestarts);
    }

    /** Never restart. */
    enum None implements RestartStrategy
    {
        /** The one instance. */
        INSTANCE;

        @Override
        public String toString()
        {
            return "RestartStrategy.none()";
        }
    }

    /**
     * Restart up to a fixed number of times with a fixed delay.
     *
     * @param maxRestarts how many restarts at most.
     * @param delay       the wait before each.
     */
    record FixedDelay(int maxRestarts, Duration delay) implements RestartStrategy
    {
        /** Validates. */
        public FixedDelay
        {
            if (maxRestarts < 0)
            {
                throw new IllegalArgumentException("fixedDelay maxRestarts must be 0 or more, was " + maxRestarts);
            }
            requireNotNegative(delay, "fixedDelay delay");
        }
    }

    /**
     * Restart unless failures come too often.
     *
     * @param maxFailures tolerated within the interval.
     * @param interval    the sliding window.
     * @param delay       the wait before each restart.
     */
    record FailureRate(int maxFailures, Duration interval, Duration delay) implements RestartStrategy
    {
        /** Validates. */
        public FailureRate
        {
            if (maxFailures < 1)
            {
                throw new IllegalArgumentException("failureRate maxFailures must be at least 1, was " + maxFailures);
            }
            requirePositive(interval, "failureRate interval");
            requireNotNegative(delay, "failureRate delay");
        }
    }

    /**
     * Restart with exponentially growing waits.
     *
     * @param initialDelay the first wait.
     * @param maxDelay     the cap.
     * @param multiplier   the growth per consecutive failure.
     * @param resetAfter   a quiet attempt this long resets the wait.
     * @param maxRestarts  how many restarts at most.
     */
    record ExponentialDelay(Duration initialDelay, Duration maxDelay, double multiplier, Duration resetAfter,
        int maxRestarts) implements RestartStrategy
    {
        /** Validates. */
        public ExponentialDelay
        {
            requirePositive(initialDelay, "exponentialDelay initialDelay");
            requirePositive(maxDelay, "exponentialDelay maxDelay");
            if (maxDelay.compareTo(initialDelay) < 0)
            {
                throw new IllegalArgumentException("exponentialDelay maxDelay (" + maxDelay + ") must be at least " +
                    "initialDelay (" + initialDelay + ")");
            }
            if (!(multiplier >= 1.0) || Double.isInfinite(multiplier))
            {
                throw new IllegalArgumentException("exponentialDelay multiplier must be a number of at least 1, was " +
                    multiplier);
            }
            requirePositive(resetAfter, "exponentialDelay resetAfter");
            if (maxRestarts < 0)
            {
                throw new IllegalArgumentException("exponentialDelay maxRestarts must be 0 or more, was " +
                    maxRestarts);
            }
        }
    }

    private static void requirePositive(final Duration value, final String option)
    {
        Objects.requireNonNull(value, option);
        if (value.isNegative() || value.isZero())
        {
            throw new IllegalArgumentException(option + " must be positive, was " + value);
        }
    }

    private static void requireNotNegative(final Duration value, final String option)
    {
        Objects.requireNonNull(value, option);
        if (value.isNegative())
        {
            throw new IllegalArgumentException(option + " must not be negative, was " + value);
        }
    }
}
