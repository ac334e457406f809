package io.ringflow.engine.runtime.recovery;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@link KeyedRestores}: every part runs exactly once, parts run on parallel threads when there are several, a
 * failure of one does not stop the others and surfaces first-added-first with the rest suppressed, and no thread
 * outlives {@link KeyedRestores#runAll}.
 */
class KeyedRestoresTest
{
    @Test
    void partsRunTogetherOnTheirOwnThreads() throws Exception
    {
        final KeyedRestores restores = new KeyedRestores("together", 3);
        // each part waits for all three to have started: only parallel threads get past it
        final CountDownLatch allStarted = new CountDownLatch(3);
        final Set<String> threads = ConcurrentHashMap.newKeySet();
        for (int i = 0; i < 3; i++)
        {
            restores.add(() ->
            {
                threads.add(Thread.currentThread().getName());
                allStarted.countDown();
                await(allStarted);
            });
        }
        restores.runAll();
        assertThat(threads).containsExactlyInAnyOrder("ringflow-restore-together-0", "ringflow-restore-together-1",
            "ringflow-restore-together-2");
        assertThat(liveRestoreThreads("together")).as("none outlives runAll").isEmpty();
    }

    @Test
    void onePartRunsOnTheCallingThread()
    {
        final KeyedRestores restores = new KeyedRestores("alone", 4);
        final List<String> threads = new ArrayList<>();
        restores.add(() -> threads.add(Thread.currentThread().getName()));
        restores.runAll();
        assertThat(threads).containsExactly(Thread.currentThread().getName());

        final KeyedRestores oneThread = new KeyedRestores("alone", 1);
        for (int i = 0; i < 3; i++)
        {
            oneThread.add(() -> threads.add(Thread.currentThread().getName()));
        }
        oneThread.runAll();
        assertThat(threads).hasSize(4).containsOnly(Thread.currentThread().getName());
    }

    @Test
    void theFirstAddedFailureSurfacesWithTheOthersSuppressedAndEveryPartStillRuns()
    {
        final KeyedRestores restores = new KeyedRestores("failing", 2);
        final AtomicIntegerArray runs = new AtomicIntegerArray(5);
        final IllegalStateException second = new IllegalStateException("part 1 cannot read its state file");
        final AssertionError fourth = new AssertionError("part 3 broke");
        for (int i = 0; i < 5; i++)
        {
            final int part = i;
            restores.add(() ->
            {
                runs.incrementAndGet(part);
                if (part == 1)
                {
                    throw second;
                }
                if (part == 3)
                {
                    throw fourth;
                }
            });
        }
        final Throwable thrown = catchThrowable(restores::runAll);
        assertThat(thrown).isSameAs(second);
        assertThat(thrown.getSuppressed()).containsExactly(fourth);
        for (int i = 0; i < 5; i++)
        {
            assertThat(runs.get(i)).as("part %d", i).isEqualTo(1);
        }
        assertThat(liveRestoreThreads("failing")).isEmpty();
    }

    @Test
    void anErrorAloneIsThrownAsItIs()
    {
        final KeyedRestores restores = new KeyedRestores("error", 2);
        restores.add(() -> { });
        restores.add(() ->
        {
            throw new OutOfMemoryError("test: direct buffer memory");
        });
        assertThatThrownBy(restores::runAll).isInstanceOf(OutOfMemoryError.class).hasMessageContaining("direct");
    }

    @Test
    void anInterruptOfTheCallerWaitsForThePartsAndIsKept() throws Exception
    {
        final KeyedRestores restores = new KeyedRestores("interrupted", 2);
        final CountDownLatch started = new CountDownLatch(2);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicIntegerArray done = new AtomicIntegerArray(2);
        for (int i = 0; i < 2; i++)
        {
            final int part = i;
            restores.add(() ->
            {
                started.countDown();
                await(release);
                done.set(part, 1);
            });
        }
        final int[] doneWhenReturned = new int[1];
        final boolean[] interruptedAfter = new boolean[1];
        final Thread caller = new Thread(() ->
        {
            restores.runAll();
            doneWhenReturned[0] = done.get(0) + done.get(1);
            interruptedAfter[0] = Thread.currentThread().isInterrupted();
        });
        caller.start();
        await(started);
        caller.interrupt();
        // the interrupt taken (its flag cleared by the join it cut short) and the caller waiting again, or gone
        Awaitility.await().atMost(Duration.ofMinutes(2)).until(() -> caller.getState() == Thread.State.TERMINATED ||
            !caller.isInterrupted() && caller.getState() == Thread.State.WAITING);
        release.countDown();
        caller.join(TimeUnit.MINUTES.toMillis(2));
        assertThat(caller.isAlive()).isFalse();
        assertThat(doneWhenReturned[0]).as("both parts had ended when runAll returned").isEqualTo(2);
        assertThat(interruptedAfter[0]).as("the interrupt is kept for the caller").isTrue();
    }

    /** Seeded: any number of parts and threads, random failures; each part runs once, the failures surface. */
    @RepeatedTest(20)
    void randomPartsAndThreads(final RepetitionInfo repetition)
    {
        final Random random = new Random(repetition.getCurrentRepetition() * 7_919L);
        final int parts = random.nextInt(12);
        final int threads = 1 + random.nextInt(6);
        final KeyedRestores restores = new KeyedRestores("random", threads);
        final AtomicIntegerArray runs = new AtomicIntegerArray(Math.max(parts, 1));
        final List<Integer> failing = new ArrayList<>();
        for (int i = 0; i < parts; i++)
        {
            final int part = i;
            final boolean fails = random.nextInt(4) == 0;
            if (fails)
            {
                failing.add(part);
            }
            final int spin = random.nextInt(20_000);
            restores.add(() ->
            {
                runs.incrementAndGet(part);
                long sum = 0;
                for (int k = 0; k < spin; k++)
                {
                    sum += k * 31L;
                }
                if (fails || sum < 0)
                {
                    throw new IllegalStateException("part " + part);
                }
            });
        }
        assertThat(restores.size()).isEqualTo(parts);
        final Throwable thrown = catchThrowable(restores::runAll);
        for (int i = 0; i < parts; i++)
        {
            assertThat(runs.get(i)).as("seed run %d, part %d", repetition.getCurrentRepetition(), i).isEqualTo(1);
        }
        if (failing.isEmpty())
        {
            assertThat(thrown).isNull();
        }
        else
        {
            assertThat(thrown).hasMessage("part " + failing.get(0));
            assertThat(thrown.getSuppressed()).extracting(Throwable::getMessage)
                .containsExactlyElementsOf(failing.subList(1, failing.size()).stream().map(p -> "part " + p).toList());
        }
        assertThat(liveRestoreThreads("random")).isEmpty();
    }

    private static List<Thread> liveRestoreThreads(final String job)
    {
        return Thread.getAllStackTraces().keySet().stream()
            .filter(thread -> thread.getName().startsWith("ringflow-restore-" + job + "-")).toList();
    }

    private static void await(final CountDownLatch latch)
    {
        try
        {
            if (!latch.await(2, TimeUnit.MINUTES))
            {
                throw new IllegalStateException("the other parts never started");
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}
