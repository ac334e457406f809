package io.ringflow.engine.runtime.task;

import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * Private copies of {@link TaskLoop}, JVM-wide: a running task holds one that no other running task holds, and gives it
 * back when its thread leaves the loop, for a later task (a job's next attempt, the next job) to reuse with the code
 * the JIT compiled for it. So there are as many copies as tasks ever ran at once, and no two threads ever run the
 * same copy's loop at the same time (see {@link TaskLoop} for why that matters).
 *
 * <p>Thread contract: thread-safe; task threads acquire and release.
 */
final class TaskLoops
{
    private static final ClassCopies COPIES = new ClassCopies(true);
    /** Copies no running task holds, the most recently released first (its compiled code is the likeliest kept). */
    private static final ConcurrentLinkedDeque<Class<?>> FREE = new ConcurrentLinkedDeque<>();

    private TaskLoops()
    {
    }

    /**
     * @param privateCopy whether the caller wants a private copy (the specialised path) or the shared template.
     * @return a copy of {@link TaskLoop} that no other running task holds, or the template itself, shared, when
     *     {@code privateCopy} is false or no copy can be made.
     */
    static Class<?> acquire(final boolean privateCopy)
    {
        if (!privateCopy)
        {
            return TaskLoop.class;
        }
        final Class<?> free = FREE.pollFirst();
        return free != null ? free : COPIES.copyOf(TaskLoop.class);
    }

    /** @param loop what {@link #acquire} returned; its thread has left the loop. */
    static void release(final Class<?> loop)
    {
        if (loop != TaskLoop.class)
        {
            FREE.addFirst(loop);
        }
    }

    /** @return how many copies no running task holds; for tests. */
    static int free()
    {
        return FREE.size();
    }
}
