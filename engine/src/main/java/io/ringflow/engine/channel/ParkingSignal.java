package io.ringflow.engine.channel;

import java.util.concurrent.locks.LockSupport;

/**
 * Lets producers wake a consumer thread that parks while it has no input (the BLOCK idle strategy).
 *
 * <p>Protocol (a Dekker handshake): the consumer sets {@link #parked} (volatile store), checks its inputs once more,
 * and parks only if they are still empty; a producer publishes, issues a full fence, then reads {@link #parked} and
 * unparks. Either the consumer sees the new data or the producer sees the flag. Parks are also bounded in time, so a
 * spurious miss costs latency, never liveness.
 */
public final class ParkingSignal
{
    private volatile boolean parked;
    private volatile Thread thread;

    /**
     * Binds the signal to the consumer thread; called once by that thread before it first parks.
     */
    public void bindToCurrentThread()
    {
        thread = Thread.currentThread();
    }

    /**
     * Consumer thread: announces it is about to park (volatile store, so later reads of the inputs are ordered after
     * it).
     *
     * @param value true before the last check of the inputs, false after waking.
     */
    public void parked(final boolean value)
    {
        parked = value;
    }

    /**
     * Producer thread, after publishing: unparks the consumer if it announced it is parking.
     */
    public void signal()
    {
        if (parked)
        {
            final Thread consumer = thread;
            if (consumer != null)
            {
                LockSupport.unpark(consumer);
            }
        }
    }
}
