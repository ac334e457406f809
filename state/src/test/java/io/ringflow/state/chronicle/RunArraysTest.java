package io.ringflow.state.chronicle;

import org.junit.jupiter.api.Test;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The per-thread pool of run arrays: an array is handed out at most once until given back, the smallest that fits
 * is chosen, the pool keeps a bounded number, and threads do not share it. Each test runs on a thread of its own,
 * whose pool starts empty (other tests' snapshots fill the pool of the thread they run on).
 */
class RunArraysTest
{
    private static void onFreshThread(final Runnable body) throws Exception
    {
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final Thread thread = new Thread(() ->
        {
            try
            {
                body.run();
                done.complete(null);
            }
            catch (final Throwable ex)
            {
                done.completeExceptionally(ex);
            }
        }, "run-arrays-test");
        thread.start();
        try
        {
            done.get();
        }
        catch (final java.util.concurrent.ExecutionException ex)
        {
            if (ex.getCause() instanceof AssertionError assertion)
            {
                throw assertion;
            }
            throw ex;
        }
    }

    @Test
    void anArrayIsHandedOutOnceUntilGivenBackAndTheSmallestThatFitsIsChosen() throws Exception
    {
        onFreshThread(() ->
        {
            final long[] small = RunArrays.takeLongs(100);
            final long[] large = RunArrays.takeLongs(1_000);
            assertThat(small).as("an eighth more room").hasSize(112);
            assertThat(large).hasSize(1_125);
            RunArrays.giveLongs(large);
            RunArrays.giveLongs(small);

            assertThat(RunArrays.takeLongs(50)).isSameAs(small);
            assertThat(RunArrays.takeLongs(50)).as("the small one is out: the large one fits").isSameAs(large);
            assertThat(RunArrays.takeLongs(50)).as("nothing kept is free").isNotSameAs(small).isNotSameAs(large);
            assertThat(RunArrays.takeLongs(2_000)).hasSize(2_250);
        });
    }

    @Test
    void thePoolKeepsAtMostItsBoundPreferringLargerArrays() throws Exception
    {
        onFreshThread(() ->
        {
            final Set<long[]> given = Collections.newSetFromMap(new IdentityHashMap<>());
            for (int i = 1; i <= RunArrays.MAX_LONG_ARRAYS + 3; i++)
            {
                final long[] array = new long[i * 10];
                given.add(array);
                RunArrays.giveLongs(array);
            }
            final Set<long[]> taken = Collections.newSetFromMap(new IdentityHashMap<>());
            for (int i = 0; i < RunArrays.MAX_LONG_ARRAYS + 3; i++)
            {
                final long[] array = RunArrays.takeLongs(1);
                assertThat(taken.add(array)).as("handed out twice").isTrue();
            }
            taken.retainAll(given);
            assertThat(taken).hasSize(RunArrays.MAX_LONG_ARRAYS)
                .allSatisfy(array -> assertThat(array.length).isGreaterThan(30));
        });
    }

    @Test
    void aTakeThatFindsNoneLargeEnoughDropsTheKeptOnesTooSmall() throws Exception
    {
        onFreshThread(() ->
        {
            final long[] tiny = new long[10];
            final long[] small = new long[20];
            final long[] large = new long[1_000];
            RunArrays.giveLongs(tiny);
            RunArrays.giveLongs(small);
            RunArrays.giveLongs(large);

            // a state grown past every kept array: the ones too small for it are dropped, the large one stays
            assertThat(RunArrays.takeLongs(500)).isSameAs(large);
            final long[] grown = RunArrays.takeLongs(2_000);
            assertThat(grown).hasSize(2_250);
            assertThat(RunArrays.takeLongs(5)).isNotSameAs(tiny).isNotSameAs(small);
        });
    }

    @Test
    void charsAreKeptOneAtATimeAndThreadsHaveTheirOwnPools() throws Exception
    {
        onFreshThread(() ->
        {
            final char[] chars = RunArrays.takeChars(64);
            RunArrays.giveChars(chars);
            final long[] longs = new long[64];
            RunArrays.giveLongs(longs);

            final Object[] elsewhere = CompletableFuture.supplyAsync(() ->
                new Object[] {RunArrays.takeChars(10), RunArrays.takeLongs(10)}).join();
            assertThat(elsewhere[0]).isNotSameAs(chars);
            assertThat(elsewhere[1]).isNotSameAs(longs);

            assertThat(RunArrays.takeChars(10)).isSameAs(chars);
            assertThat(RunArrays.takeChars(10)).isNotSameAs(chars);
        });
    }

    /**
     * The per-key-group arrays of a snapshot: only an array of exactly the length asked for is handed out, zeroed
     * whatever it held, at most once until given back; the pool is bounded and a full one gives up an array of
     * another length (a store whose range changed) for a newer one.
     */
    @Test
    void intsAreHandedOutZeroedOnlyAtTheirExactLengthAndOnceUntilGivenBack() throws Exception
    {
        onFreshThread(() ->
        {
            final int[] groupStarts = RunArrays.takeZeroedInts(129);
            final int[] counts = RunArrays.takeZeroedInts(128);
            java.util.Arrays.fill(groupStarts, 7);
            java.util.Arrays.fill(counts, 9);
            RunArrays.giveInts(groupStarts);
            RunArrays.giveInts(counts);

            final int[] again = RunArrays.takeZeroedInts(129);
            assertThat(again).isSameAs(groupStarts).containsOnly(0);
            assertThat(RunArrays.takeZeroedInts(129)).as("handed out once").isNotSameAs(groupStarts);
            assertThat(RunArrays.takeZeroedInts(64)).as("no other length").isNotSameAs(counts).hasSize(64);
            assertThat(RunArrays.takeZeroedInts(128)).isSameAs(counts).containsOnly(0);

            final Set<int[]> given = Collections.newSetFromMap(new IdentityHashMap<>());
            for (int i = 0; i < RunArrays.MAX_INT_ARRAYS; i++)
            {
                final int[] kept = new int[32];
                given.add(kept);
                RunArrays.giveInts(kept);
            }
            // full of length 32: another length replaces one of them
            final int[] other = new int[16];
            RunArrays.giveInts(other);
            assertThat(RunArrays.takeZeroedInts(16)).isSameAs(other);
            int found = 0;
            for (int i = 0; i < RunArrays.MAX_INT_ARRAYS; i++)
            {
                if (given.contains(RunArrays.takeZeroedInts(32)))
                {
                    found++;
                }
            }
            assertThat(found).as("one of the six gave way to the array of 16").isEqualTo(RunArrays.MAX_INT_ARRAYS - 1);
        });
    }
}
