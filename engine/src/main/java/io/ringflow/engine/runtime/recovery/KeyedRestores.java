package io.ringflow.engine.runtime.recovery;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The keyed parts of an attempt's restore (each subtask's keyed store restored from its checkpoint, or reverted to
 * it in place), gathered while the attempt is built and then run together before any task starts: on the deploying
 * thread when there is one part (or one thread allowed), else on up to {@code threads} short-lived threads ({@code ringflow-restore-<job>-<n>})
 * that take the parts in the order they were added. At ten million keys a keyed store's restore takes seconds of
 * CPU, and the stores of different subtasks share nothing, so on a machine with as many cores as keyed subtasks the
 * attempt's restore takes about as long as its largest part instead of their sum.
 *
 * <p>Thread contract: {@link #add} and {@link #runAll} on the deploying thread; each part runs on exactly one thread,
 * once; {@link #runAll} returns once every thread it started has ended (none outlives it), so the tasks that start
 * afterwards see every part's writes (a thread's end happens-before a join's return).
 */
public final class KeyedRestores
{
    private final String jobName;
    private final int threads;
    private final List<Runnable> parts = new ArrayList<>();

    /**
     * @param jobName the job, for the threads' names.
     * @param threads at most how many threads run parts at once, at least 1.
     */
    public KeyedRestores(final String jobName, final int threads)
    {
        if (threads < 1)
        {
            throw new IllegalArgumentException("threads must be at least 1, was " + threads);
        }
        this.jobName = Objects.requireNonNull(jobName, "jobName");
        this.threads = threads;
    }

    /** @param part a restore; it throws (unchecked) on failure. */
    public void add(final Runnable part)
    {
        parts.add(Objects.requireNonNull(part, "part"));
    }

    /** @return how many parts were added. */
    public int size()
    {
        return parts.size();
    }

    /**
     * Runs every part and waits for all of them, even when some fail (a failed part does not stop the others; the
     * deploy then fails as a whole).
     *
     * @throws RuntimeException the first part's failure, in the order the parts were added, the others' suppressed
     *                          (an {@link Error} likewise).
     */
    public void runAll()
    {
        final Throwable[] failures = new Throwable[parts.size()];
        final int workers = Math.min(threads, parts.size());
        if (workers <= 1)
        {
            for (int i = 0; i < parts.size(); i++)
            {
                failures[i] = runPart(i);
            }
        }
        else
        {
            final AtomicInteger next = new AtomicInteger();
            final Thread[] started = new Thread[workers];
            for (int t = 0; t < workers; t++)
            {
                started[t] = new Thread(() ->
                {
                    for (int i = next.getAndIncrement(); i < parts.size(); i = next.getAndIncrement())
                    {
                        failures[i] = runPart(i);
                    }
                }, "ringflow-restore-" + jobName + "-" + t);
                started[t].setDaemon(true);
                started[t].start();
            }
            joinAll(started);
        }
        Throwable first = null;
        for (int i = 0; i < failures.length; i++)
        {
            if (failures[i] != null)
            {
                if (first == null)
                {
                    first = failures[i];
                }
                else if (first != failures[i])
                {
                    first.addSuppressed(failures[i]);
                }
            }
        }
        if (first instanceof RuntimeException runtime)
        {
            throw runtime;
        }
        if (first != null)
        {
            throw (Error)first; // a Runnable throws nothing checked
        }
    }

    private Throwable runPart(final int index)
    {
        try
        {
            parts.get(index).run();
            return null;
        }
        catch (final Throwable ex)
        {
            return ex;
        }
    }

    /** Waits for every thread to end; an interrupt is kept for the caller, not let cut the wait short. */
    private static void joinAll(final Thread[] started)
    {
        boolean interrupted = false;
        for (final Thread thread : started)
        {
            while (true)
            {
                try
                {
                    thread.join();
                    break;
                }
                catch (final InterruptedException ex)
                {
                    interrupted = true;
                }
            }
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }
}
