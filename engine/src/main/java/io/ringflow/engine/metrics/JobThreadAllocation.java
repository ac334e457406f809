package io.ringflow.engine.metrics;

import java.lang.management.ManagementFactory;

/**
 * The bytes a running job's threads have allocated on the heap since a starting point: its task threads
 * ({@code ringflow-<job>-<operator>-<subtask>}) and the engine's helpers named after the job
 * ({@code ringflow-<role>-<job>}: snapshot flusher, checkpoint timer and I/O, monitor), alive when counting starts. What
 * user functions, sinks and checkpoint listeners allocate on those threads counts too. The figure that says whether a
 * job makes garbage in its steady state (none per record on the engine's side; what each checkpoint leaves), read
 * through HotSpot's per-thread allocation counters, so it costs the job nothing.
 *
 * <p>Thread contract: one thread creates and reads an instance.
 */
public final class JobThreadAllocation
{
    private final com.sun.management.ThreadMXBean threads;
    private final long[] ids;
    private final long[] startBytes;

    private JobThreadAllocation(final com.sun.management.ThreadMXBean threads, final long[] ids,
        final long[] startBytes)
    {
        this.threads = threads;
        this.ids = ids;
        this.startBytes = startBytes;
    }

    /**
     * Starts counting for the threads of job {@code jobName} alive now.
     *
     * @param jobName the job's name.
     * @return the counter; null when this JVM cannot count allocations per thread or no thread of the job is alive.
     */
    public static JobThreadAllocation start(final String jobName)
    {
        if (!(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean threads) ||
            !threads.isThreadAllocatedMemorySupported() || !threads.isThreadAllocatedMemoryEnabled())
        {
            return null;
        }
        final String taskPrefix = "ringflow-" + jobName + "-";
        final String helperSuffix = "-" + jobName;
        final long[] ids = Thread.getAllStackTraces().keySet().stream()
            .filter(thread -> thread.getName().startsWith(taskPrefix) ||
                thread.getName().startsWith("ringflow-") && thread.getName().endsWith(helperSuffix))
            .mapToLong(Thread::getId).toArray();
        if (ids.length == 0)
        {
            return null;
        }
        final long[] bytes = threads.getThreadAllocatedBytes(ids);
        for (final long counted : bytes)
        {
            if (counted < 0)
            {
                // a thread ended between being listed and being read
                return null;
            }
        }
        return new JobThreadAllocation(threads, ids, bytes);
    }

    /** @return the bytes these threads allocated since {@link #start}; -1 once any of them has ended. */
    public long allocatedSinceStart()
    {
        final long[] now = threads.getThreadAllocatedBytes(ids);
        long sum = 0;
        for (int i = 0; i < ids.length; i++)
        {
            if (now[i] < 0)
            {
                return -1;
            }
            sum += now[i] - startBytes[i];
        }
        return sum;
    }

    /** @return how many threads are counted. */
    public int threadCount()
    {
        return ids.length;
    }
}
