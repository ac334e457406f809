package io.ringflow.engine.checkpoint;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Calls the coordinator's tick at a fixed rate, on its own daemon thread; the tick decides whether a checkpoint is
 * due (maximum concurrent, minimum pause) and expires overdue ones; it also wakes the coordinator once a minimum
 * pause has passed. A failing tick is logged and the next one still runs.
 */
final class PeriodicTrigger
{
    private static final System.Logger LOG = System.getLogger(PeriodicTrigger.class.getName());

    private final ScheduledExecutorService timer;

    /**
     * Starts ticking after one interval.
     *
     * @param jobName  for the thread's name and messages.
     * @param interval between ticks.
     * @param tick     what to run.
     */
    PeriodicTrigger(final String jobName, final Duration interval, final Runnable tick)
    {
        timer = Executors.newSingleThreadScheduledExecutor(runnable ->
        {
            final Thread thread = new Thread(runnable, "ringflow-checkpoint-timer-" + jobName);
            thread.setDaemon(true);
            return thread;
        });
        final long nanos = interval.toNanos();
        timer.scheduleAtFixedRate(() ->
        {
            try
            {
                tick.run();
            }
            catch (final RuntimeException ex)
            {
                LOG.log(Level.WARNING, "checkpoint timer of job '" + jobName + "' failed", ex);
            }
        }, nanos, nanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Runs {@code task} once on the timer thread after {@code delayNanos}; a failing task is logged. Dropped once the
     * timer is stopped.
     *
     * @param delayNanos how long from now.
     * @param task       what to run.
     */
    void wakeUpIn(final long delayNanos, final Runnable task)
    {
        try
        {
            timer.schedule(() ->
            {
                try
                {
                    task.run();
                }
                catch (final RuntimeException ex)
                {
                    LOG.log(Level.WARNING, "checkpoint timer wake-up failed", ex);
                }
            }, delayNanos, TimeUnit.NANOSECONDS);
        }
        catch (final java.util.concurrent.RejectedExecutionException stopped)
        {
            // the job stopped: nothing waits any more
        }
    }

    /** Stops ticking; a tick already running finishes. */
    void stop()
    {
        timer.shutdownNow();
    }
}
