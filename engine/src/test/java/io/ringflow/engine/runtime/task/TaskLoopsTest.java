package io.ringflow.engine.runtime.task;

import io.ringflow.engine.TestJobs;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobHandle;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every running task runs its loop in a copy of {@link TaskLoop} that no other running task runs (so no thread is left
 * in loop code another thread's trap made not entrant), copies are reused once given back, and the general path
 * shares the template.
 */
class TaskLoopsTest
{
    private static final String TEMPLATE = TaskLoop.class.getName();

    @Test
    void theTemplateKeepsTheRulesOfACopy()
    {
        assertThat(Modifier.isFinal(TaskLoop.class.getModifiers())).isTrue();
        assertThat(TaskLoop.class.getEnclosingClass()).isNull();
        assertThat(TaskLoop.class.getDeclaredClasses()).isEmpty();
        assertThat(TaskLoop.class.getDeclaredConstructors()).hasSize(1);
        assertThat(TaskLoop.class.getDeclaredFields()).allMatch(field -> !Modifier.isStatic(field.getModifiers()));
        final Class<?> copy = new TaskLoops().acquire(true);
        assertThat(copy).isNotEqualTo(TaskLoop.class);
        assertThat(copy.isHidden()).isTrue();
        assertThat(Task.Loop.class).isAssignableFrom(copy);
    }

    @Test
    void heldCopiesAreDistinctAndAGivenBackCopyIsReused()
    {
        final TaskLoops pool = new TaskLoops();
        final Class<?> first = pool.acquire(true);
        final Class<?> second = pool.acquire(true);
        assertThat(first).isNotSameAs(second);
        assertThat(pool.free()).isZero();
        pool.release(second);
        assertThat(pool.free()).isOne();
        assertThat(pool.acquire(true)).as("the copy given back last is taken first").isSameAs(second);
        pool.release(first);
        assertThat(pool.acquire(true)).isSameAs(first);
        assertThat(pool.free()).isZero();
    }

    @Test
    void theGeneralPathSharesTheTemplateAndNeverPoolsIt()
    {
        final TaskLoops pool = new TaskLoops();
        final Class<?> a = pool.acquire(false);
        final Class<?> b = pool.acquire(false);
        assertThat(a).isSameAs(TaskLoop.class).isSameAs(b);
        pool.release(a);
        pool.release(b);
        assertThat(pool.free()).isZero();
    }

    /**
     * Threads take and give back copies of one pool at random (seeded choices; the interleaving is the scheduler's);
     * no copy is ever held by two threads at once, and every copy is back in the pool at the end.
     */
    @Test
    void noCopyIsEverHeldTwiceUnderConcurrentUse() throws Exception
    {
        for (final long seed : new long[] {1L, 42L, 20261207L})
        {
            final TaskLoops pool = new TaskLoops();
            final Map<Class<?>, Thread> holders = new ConcurrentHashMap<>();
            final Set<Class<?>> seen = ConcurrentHashMap.newKeySet();
            final AtomicReference<String> violation = new AtomicReference<>();
            final AtomicReference<Throwable> crashed = new AtomicReference<>();
            final CountDownLatch start = new CountDownLatch(1);
            final List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 6; t++)
            {
                final Random random = new Random(seed * 31 + t);
                final Thread thread = new Thread(() ->
                {
                    awaitQuietly(start);
                    final List<Class<?>> held = new ArrayList<>();
                    for (int step = 0; step < 2_000; step++)
                    {
                        if (held.isEmpty() || (held.size() < 3 && random.nextBoolean()))
                        {
                            final Class<?> copy = pool.acquire(true);
                            seen.add(copy);
                            final Thread other = holders.putIfAbsent(copy, Thread.currentThread());
                            if (other != null)
                            {
                                violation.compareAndSet(null, copy + " held by " + other + " and " +
                                    Thread.currentThread() + " (seed " + seed + ")");
                            }
                            held.add(copy);
                        }
                        else
                        {
                            final Class<?> copy = held.remove(random.nextInt(held.size()));
                            holders.remove(copy);
                            pool.release(copy);
                        }
                    }
                    for (final Class<?> copy : held)
                    {
                        holders.remove(copy);
                        pool.release(copy);
                    }
                }, "task-loops-stress-" + t);
                thread.setUncaughtExceptionHandler((failed, ex) -> crashed.compareAndSet(null, ex));
                threads.add(thread);
                thread.start();
            }
            start.countDown();
            for (final Thread thread : threads)
            {
                thread.join(TimeUnit.MINUTES.toMillis(2));
                assertThat(thread.isAlive()).isFalse();
            }
            assertThat(crashed.get()).isNull();
            assertThat(violation.get()).isNull();
            assertThat(pool.free()).as("every copy made is back").isEqualTo(seen.size());
        }
    }

    @Test
    void eachTaskOfARunningJobRunsItsOwnCopyOfTheLoop() throws Exception
    {
        final Set<String> loops = loopClassesOf("task-loops-private", JobConfig.builder().build());
        assertThat(loops).as("one class per task thread").hasSize(5);
        assertThat(loops).allMatch(name -> name.startsWith(TEMPLATE + "/"), "a hidden copy of the template");
    }

    @Test
    void theGeneralPathRunsEveryTaskInTheTemplate() throws Exception
    {
        final Set<String> loops = loopClassesOf("task-loops-general",
            JobConfig.builder().specializeChains(false).build());
        assertThat(loops).containsExactly(TEMPLATE);
    }

    /** Runs a five-task job until every task thread is in its loop; returns the loop classes the threads run. */
    private static Set<String> loopClassesOf(final String job, final JobConfig config) throws Exception
    {
        final AtomicLong seen = new AtomicLong();
        final JobHandle handle = TestJobs.startFiveTaskKeyedJob(job, config, seen);
        try
        {
            await().atMost(Duration.ofSeconds(60)).until(() -> seen.get() > 100);
            final AtomicReference<Map<Thread, String>> found = new AtomicReference<>();
            await().atMost(Duration.ofSeconds(60)).until(() ->
            {
                final Map<Thread, String> byThread = loopClassByTaskThread(job);
                found.set(byThread);
                return byThread.size() == 5;
            });
            return new HashSet<>(found.get().values());
        }
        finally
        {
            handle.cancel();
            handle.termination().get(60, TimeUnit.SECONDS);
            handle.close();
        }
    }

    /** The job's task threads whose stack shows a loop class, and that class's name. */
    private static Map<Thread, String> loopClassByTaskThread(final String job)
    {
        final Map<Thread, String> byThread = new ConcurrentHashMap<>();
        Thread.getAllStackTraces().forEach((thread, stack) ->
        {
            if (!thread.getName().startsWith("ringflow-" + job + "-"))
            {
                return;
            }
            for (final StackTraceElement frame : stack)
            {
                if (frame.getClassName().startsWith(TEMPLATE) && "run".equals(frame.getMethodName()))
                {
                    byThread.put(thread, frame.getClassName());
                    return;
                }
            }
        });
        return byThread;
    }

    private static void awaitQuietly(final CountDownLatch latch)
    {
        try
        {
            latch.await();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
