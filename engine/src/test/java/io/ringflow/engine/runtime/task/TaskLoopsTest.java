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
        assertThat(TaskLoop.class.getDeclaredClasses()).isEmpty();
        assertThat(TaskLoop.class.getDeclaredConstructors()).hasSize(1);
        assertThat(TaskLoop.class.getDeclaredFields()).allMatch(field -> !Modifier.isStatic(field.getModifiers()));
        final Class<?> copy = TaskLoops.acquire(true);
        try
        {
            assertThat(copy).isNotEqualTo(TaskLoop.class);
            assertThat(copy.isHidden()).isTrue();
            assertThat(Task.Loop.class).isAssignableFrom(copy);
        }
        finally
        {
            TaskLoops.release(copy);
        }
    }

    @Test
    void heldCopiesAreDistinctAndAGivenBackCopyIsReused()
    {
        final Class<?> first = TaskLoops.acquire(true);
        final Class<?> second = TaskLoops.acquire(true);
        assertThat(first).isNotSameAs(second);
        TaskLoops.release(second);
        final Class<?> again = TaskLoops.acquire(true);
        TaskLoops.release(again);
        TaskLoops.release(first);
        assertThat(again).as("the copy given back last is taken first").isSameAs(second);
    }

    @Test
    void theGeneralPathSharesTheTemplateAndNeverPoolsIt()
    {
        final int free = TaskLoops.free();
        final Class<?> a = TaskLoops.acquire(false);
        final Class<?> b = TaskLoops.acquire(false);
        assertThat(a).isSameAs(TaskLoop.class).isSameAs(b);
        TaskLoops.release(a);
        TaskLoops.release(b);
        assertThat(TaskLoops.free()).isEqualTo(free);
    }

    /** Threads take and give back copies in seeded random order; no copy is ever held by two threads at once. */
    @Test
    void noCopyIsEverHeldTwiceUnderConcurrentUse() throws Exception
    {
        for (final long seed : new long[] {1L, 42L, 20261207L})
        {
            final Map<Class<?>, Thread> holders = new ConcurrentHashMap<>();
            final AtomicReference<String> violation = new AtomicReference<>();
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
                            final Class<?> copy = TaskLoops.acquire(true);
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
                            TaskLoops.release(copy);
                        }
                    }
                    for (final Class<?> copy : held)
                    {
                        holders.remove(copy);
                        TaskLoops.release(copy);
                    }
                }, "task-loops-stress-" + t);
                threads.add(thread);
                thread.start();
            }
            start.countDown();
            for (final Thread thread : threads)
            {
                thread.join(TimeUnit.MINUTES.toMillis(2));
                assertThat(thread.isAlive()).isFalse();
            }
            assertThat(violation.get()).isNull();
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
