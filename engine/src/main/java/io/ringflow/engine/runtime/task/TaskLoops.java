package io.ringflow.engine.runtime.task;

import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * A pool of private copies of {@link TaskLoop}: a running task holds one that no other running task holds, and gives
 * it back when its thread leaves the loop, for a later task (a job's next attempt, the next job) to reuse with the code
 * the JIT compiled for it. So the pool grows to as many copies as tasks ever ran at once, and no two threads ever run
 * the same copy's loop at the same time (see {@link TaskLoop} for why that matters). Copies given back are kept for
 * the pool's life (for {@link #SHARED}, the JVM's): a few small classes.
 *
 * <p>Thread contract: thread-safe; task threads acquire and release.
 */
final class TaskLoops
{
    /** The pool every task uses. */
    static final TaskLoops SHARED = new TaskLoops();

    private final ClassCopies copies = new ClassCopies(true);
    /** Copies no running task holds, the most recently released first (its compiled code is the likeliest kept). */
    private final ConcurrentLinkedDeque<Class<?>> free = new ConcurrentLinkedDeque<>();

    /** A pool of its own; tests use one, tasks use {@link #SHARED}. */
    TaskLoops()
    {
    }

    /**
     * @param privateCopy whether the caller wants a private copy (the specialised path) or the shared template.
     * @return a copy of {@link TaskLoop} that no other holder of a copy from this pool holds, or the template itself,
     *     shared, when {@code privateCopy} is false or no copy can be made.
     */
    Class<?> acquire(final boolean privateCopy)
    {
        if (!privateCopy)
        {
            return TaskLoop.class;
        }
        final Class<?> copy = free.pollFirst();
        return copy != null ? copy : copies.copyOf(TaskLoop.class);
    }

    /**
     * @param loop what {@link #acquire} returned, given back exactly once (twice would let two holders share it), once
     *             its thread has left the loop.
     */
    void release(final Class<?> loop)
    {
        if (loop != TaskLoop.class)
        {
            free.addFirst(loop);
        }
    }

    /** @return how many copies no holder holds. */
    int free()
    {
        return free.size();
    }
}
