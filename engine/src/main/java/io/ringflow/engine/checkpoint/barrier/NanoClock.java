package io.ringflow.engine.checkpoint.barrier;

/**
 * A monotonic clock in nanoseconds, injectable so tests can drive alignment timeouts by hand.
 *
 * <p>Only differences between two readings of the same clock mean anything.
 */
@FunctionalInterface
public interface NanoClock
{
    /** {@link System#nanoTime()}. */
    NanoClock SYSTEM = System::nanoTime;

    /** @return the current reading, in nanoseconds. */
    long nanoTime();
}
