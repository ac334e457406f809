package io.ringflow.state.chronicle;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static io.ringflow.state.chronicle.CopyOnWriteLongTable.MISSING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The hot-key front's table of {@code Long} keys and values: a map against a model, and views that read exactly the
 * table at their barrier while the task keeps changing it (deterministically and with a reader on another thread),
 * copying nothing at the barrier and only the chunks changed before the reader got to them.
 */
class CopyOnWriteLongTableTest
{
    /** A model entry: value and stamp. */
    private record Entry(long value, long stamp)
    {
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 42, 20_261_202})
    void behavesAsAMapWhileGrowingShrinkingAndClearing(final long seed)
    {
        final Random random = new Random(seed);
        final CopyOnWriteLongTable table = new CopyOnWriteLongTable(6_000);
        final Map<Long, Entry> model = new HashMap<>();
        for (int op = 0; op < 200_000; op++)
        {
            // keys spread over a range larger than the table, and clustered ones that share probe runs
            final long key = random.nextBoolean() ? random.nextInt(8_000) : 1_000_000L * random.nextInt(50);
            final int choice = random.nextInt(100);
            if (choice < 55)
            {
                final long value = random.nextLong() == MISSING ? 0 : random.nextLong();
                final long stamp = random.nextInt(4) == 0 ? MISSING : random.nextInt(1_000);
                if (!model.containsKey(key) && model.size() == 6_000)
                {
                    assertThatThrownBy(() -> table.put(key, value, stamp)).isInstanceOf(IllegalStateException.class);
                    continue;
                }
                final Entry before = model.get(key);
                assertThat(table.put(key, value, stamp)).isEqualTo(before == null ? MISSING : before.value);
                model.put(key, new Entry(value, stamp == MISSING ? (before == null ? MISSING : before.stamp) : stamp));
            }
            else if (choice < 70)
            {
                final long value = op;
                final Entry before = model.get(key);
                assertThat(table.replace(key, value, op)).isEqualTo(before != null);
                if (before != null)
                {
                    model.put(key, new Entry(value, op));
                }
            }
            else if (choice < 99)
            {
                final Entry before = model.remove(key);
                assertThat(table.remove(key)).isEqualTo(before == null ? MISSING : before.value);
            }
            else if (random.nextInt(20) == 0)
            {
                table.clear();
                model.clear();
            }
            assertThat(table.size()).isEqualTo(model.size());
            final Entry expected = model.get(key);
            assertThat(table.get(key)).as("seed %d op %d key %d", seed, op, key)
                .isEqualTo(expected == null ? MISSING : expected.value);
            assertThat(table.stamp(key)).isEqualTo(expected == null ? MISSING : expected.stamp);
        }
        final Map<Long, Long> walked = new HashMap<>();
        table.forEach(walked::put);
        final Map<Long, Long> values = new HashMap<>();
        model.forEach((key, entry) -> values.put(key, entry.value));
        assertThat(walked).isEqualTo(values);
        // 6,000 keys at a load of at most a half: 16,384 slots, never more
        assertThat(table.slots()).isLessThanOrEqualTo(16_384);
    }

    @Test
    void aSnapshotCopiesNothingAndTheTaskCopiesOnlyChunksChangedBeforeTheReaderGotThere()
    {
        final CopyOnWriteLongTable table = new CopyOnWriteLongTable(1 << 20);
        for (long key = 0; key < 100_000; key++)
        {
            table.put(key, key, MISSING);
        }
        final int chunks = table.slots() / CopyOnWriteLongTable.CHUNK_SLOTS;
        final Map<Long, Long> atBarrier = contents(table);

        final CopyOnWriteLongTable.View view = table.snapshot();
        assertThat(table.chunkCopies()).isZero();
        // every key changed, removed or added twice over: each chunk is copied once, however many times it changes
        for (int round = 0; round < 2; round++)
        {
            for (long key = 0; key < 100_000; key++)
            {
                table.put(key, -key - round, MISSING);
            }
            for (long key = 0; key < 100_000; key += 7)
            {
                table.remove(key);
            }
        }
        assertThat(table.chunkCopies()).isBetween(1L, (long)chunks);
        final long copies = table.chunkCopies();

        assertThat(frozenContents(view.materialize())).isEqualTo(atBarrier);
        // a view read before the task changes anything: the task copies nothing for it
        final Map<Long, Long> atSecondBarrier = contents(table);
        assertThat(frozenContents(table.snapshot().materialize())).isEqualTo(atSecondBarrier);
        for (long key = 0; key < 100_000; key++)
        {
            table.put(key, key, MISSING);
        }
        assertThat(table.chunkCopies()).isEqualTo(copies);
        assertThatThrownBy(view::materialize).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void copiesOneViewHadAloneAreRecycledOnceReadAndSharedOnesAreNot()
    {
        final CopyOnWriteLongTable table = new CopyOnWriteLongTable(1 << 20);
        for (long key = 0; key < 100_000; key++)
        {
            table.put(key, key, key);
        }
        // one view: every chunk copied for it alone; once read, the copies go back to the pool
        final Map<Long, Long> first = contents(table);
        final CopyOnWriteLongTable.View alone = table.snapshot();
        changeEveryKey(table, 1);
        final long firstCopies = table.chunkCopies();
        assertThat(firstCopies).isPositive();
        assertThat(table.recycledHeld()).as("nothing given back before the read").isZero();
        assertThat(frozenContents(alone.materialize())).isEqualTo(first);
        assertThat(table.recycledHeld()).isEqualTo((int)firstCopies);

        // the next view's copies are made in those arrays, and still read as its barrier's table
        final Map<Long, Long> second = contents(table);
        final CopyOnWriteLongTable.View next = table.snapshot();
        changeEveryKey(table, 2);
        final long secondCopies = table.chunkCopies() - firstCopies;
        assertThat(table.recycledCopies()).isEqualTo(secondCopies);
        assertThat(chunkedEntries(next).entrySet().stream().collect(java.util.stream.Collectors.toMap(
            Map.Entry::getKey, entry -> entry.getValue().value()))).isEqualTo(second);
        assertThat(table.recycledHeld()).isEqualTo((int)firstCopies);

        // two views pending: each chunk is copied once for both, and neither reader may give that copy back
        final Map<Long, Long> third = contents(table);
        final CopyOnWriteLongTable.View older = table.snapshot();
        final CopyOnWriteLongTable.View newer = table.snapshot();
        changeEveryKey(table, 3);
        final int heldBeforeReads = table.recycledHeld();
        assertThat(frozenContents(older.materialize())).isEqualTo(third);
        changeEveryKey(table, 4);
        assertThat(frozenContents(newer.materialize())).as("read after the older view's reader was done")
            .isEqualTo(third);
        assertThat(table.recycledHeld()).isEqualTo(heldBeforeReads);
    }

    @Test
    void aReadWhoseConsumerFailsEndsTheViewAndItsCopies()
    {
        final CopyOnWriteLongTable table = new CopyOnWriteLongTable(1 << 20);
        for (long key = 0; key < 100_000; key++)
        {
            table.put(key, key, key);
        }
        final CopyOnWriteLongTable.View view = table.snapshot();
        changeEveryKey(table, 1);
        final int[] chunksSeen = new int[1];
        assertThatThrownBy(() -> view.forEachChunk((entries, stamps, slots) ->
        {
            if (++chunksSeen[0] == 3)
            {
                throw new IllegalStateException("the consumer failed");
            }
        })).hasMessage("the consumer failed");

        // no second read can reach copies given back by the first; the task copies nothing more for the view
        assertThatThrownBy(view::materialize).isInstanceOf(IllegalStateException.class);
        final long copies = table.chunkCopies();
        final Map<Long, Long> second = contents(table);
        final CopyOnWriteLongTable.View next = table.snapshot();
        changeEveryKey(table, 2);
        assertThat(frozenContents(next.materialize())).isEqualTo(second);
        assertThat(table.chunkCopies() - copies).as("copies for the next view only").isLessThanOrEqualTo(copies);
    }

    private static void changeEveryKey(final CopyOnWriteLongTable table, final long round)
    {
        for (long key = 0; key < 100_000; key++)
        {
            table.put(key, -key - round, round);
        }
    }

    @Test
    void viewsReadOneInsideAnotherOnOneThreadEachReadTheirOwnTable()
    {
        // reads on one thread pass their chunk buffers on: a read inside another's consumer must not get the outer's
        final CopyOnWriteLongTable outer = new CopyOnWriteLongTable(10_000);
        final CopyOnWriteLongTable inner = new CopyOnWriteLongTable(10_000);
        for (long key = 0; key < 5_000; key++)
        {
            outer.put(key, key, MISSING);
            inner.put(key, -key, MISSING);
        }
        final Map<Long, Long> outerAtBarrier = contents(outer);
        final Map<Long, Long> innerAtBarrier = contents(inner);
        for (int round = 0; round < 3; round++)
        {
            final CopyOnWriteLongTable.View outerView = outer.snapshot();
            final Map<Long, Long> read = new HashMap<>();
            final Map<Long, Long> innerRead = new HashMap<>();
            outerView.forEachChunk((entries, stamps, slots) ->
            {
                if (innerRead.isEmpty())
                {
                    innerRead.putAll(frozenContents(inner.snapshot().materialize()));
                }
                for (int slot = 0; slot < slots; slot++)
                {
                    if (entries[2 * slot + 1] != MISSING)
                    {
                        read.put(entries[2 * slot], entries[2 * slot + 1]);
                    }
                }
            });
            assertThat(read).as("round %d", round).isEqualTo(outerAtBarrier);
            assertThat(innerRead).as("round %d", round).isEqualTo(innerAtBarrier);
        }
    }

    @Test
    void aReleasedViewStopsTheCopies()
    {
        final CopyOnWriteLongTable table = new CopyOnWriteLongTable(10_000);
        for (long key = 0; key < 5_000; key++)
        {
            table.put(key, key, MISSING);
        }
        final CopyOnWriteLongTable.View view = table.snapshot();
        view.release();
        view.release();
        for (long key = 0; key < 5_000; key++)
        {
            table.put(key, 0, MISSING);
        }
        assertThat(table.chunkCopies()).isZero();
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {3, 1_234, 20_261_202})
    void everyViewReadsTheTableAtItsBarrierWhateverTheTaskDoesMeanwhile(final long seed)
    {
        // deterministic interleavings: up to three views pending, each read at a random later point, the task
        // changing, removing, growing and clearing in between
        final Random random = new Random(seed);
        final CopyOnWriteLongTable table = new CopyOnWriteLongTable(20_000);
        final Map<Long, Entry> model = new HashMap<>();
        final List<CopyOnWriteLongTable.View> views = new ArrayList<>();
        final List<Map<Long, Entry>> expected = new ArrayList<>();
        int checked = 0;
        for (int op = 0; op < 150_000; op++)
        {
            final long key = random.nextInt(30_000);
            final int choice = random.nextInt(1_000);
            if (choice < 600)
            {
                if (model.containsKey(key) || model.size() < 20_000)
                {
                    final long stamp = random.nextInt(100);
                    table.put(key, op, stamp);
                    model.put(key, new Entry(op, stamp));
                }
            }
            else if (choice < 950)
            {
                table.remove(key);
                model.remove(key);
            }
            else if (choice < 951)
            {
                table.clear();
                model.clear();
            }
            else if (choice < 980 && views.size() < 3)
            {
                views.add(table.snapshot());
                expected.add(new HashMap<>(model));
            }
            else if (!views.isEmpty())
            {
                final int which = random.nextInt(views.size());
                final CopyOnWriteLongTable.View view = views.remove(which);
                final Map<Long, Entry> atBarrier = expected.remove(which);
                if (random.nextInt(5) == 0)
                {
                    view.release();
                }
                else if (random.nextBoolean())
                {
                    final CopyOnWriteLongTable.Frozen frozen = view.materialize();
                    assertThat(frozenEntries(frozen)).as("seed %d op %d", seed, op).isEqualTo(atBarrier);
                    assertThat(frozen.size()).isEqualTo(atBarrier.size()).isEqualTo(view.size());
                    checked++;
                }
                else
                {
                    assertThat(chunkedEntries(view)).as("seed %d op %d, read by chunks", seed, op)
                        .isEqualTo(atBarrier);
                    assertThat(view.size()).isEqualTo(atBarrier.size());
                    assertThatThrownBy(view::materialize).isInstanceOf(IllegalStateException.class);
                    checked++;
                }
            }
        }
        assertThat(checked).isGreaterThan(100);
        assertThat(table.recycledCopies()).as("copies were made in recycled arrays too").isPositive();
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {7, 99, 20_261_202})
    void aReaderOnAnotherThreadReadsTheTableAtItsBarrierWhileTheTaskWrites(final long seed) throws Exception
    {
        final Random random = new Random(seed);
        final CopyOnWriteLongTable table = new CopyOnWriteLongTable(1 << 16);
        final Map<Long, Entry> model = new HashMap<>();
        final ExecutorService reader = Executors.newSingleThreadExecutor();
        try
        {
            for (int round = 0; round < 40; round++)
            {
                final CopyOnWriteLongTable.View view = table.snapshot();
                final Map<Long, Entry> atBarrier = new HashMap<>(model);
                // odd rounds read chunk by chunk through one buffer, even ones copy the whole table
                final boolean byChunks = round % 2 == 1;
                final CompletableFuture<Map<Long, Entry>> read = CompletableFuture.supplyAsync(() ->
                    byChunks ? chunkedEntries(view) : frozenEntries(view.materialize()), reader);
                // keep writing until the reader is done, and some more
                int writes = 0;
                while (!read.isDone() || writes < 5_000)
                {
                    final long key = random.nextInt(100_000);
                    if (random.nextInt(4) == 0)
                    {
                        table.remove(key);
                        model.remove(key);
                    }
                    else if (model.containsKey(key) || model.size() < 1 << 16)
                    {
                        final long stamp = round * 1_000_000L + writes;
                        table.put(key, writes, stamp);
                        model.put(key, new Entry(writes, stamp));
                    }
                    writes++;
                }
                assertThat(read.get(30, TimeUnit.SECONDS)).as("seed %d round %d", seed, round).isEqualTo(atBarrier);
            }
        }
        finally
        {
            reader.shutdownNow();
        }
    }

    @Test
    void refusesWhatItCannotHold()
    {
        assertThatThrownBy(() -> new CopyOnWriteLongTable(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CopyOnWriteLongTable(CopyOnWriteLongTable.MAX_KEYS + 1))
            .isInstanceOf(IllegalArgumentException.class);
        final CopyOnWriteLongTable table = new CopyOnWriteLongTable(1);
        assertThatThrownBy(() -> table.put(1, MISSING, MISSING)).isInstanceOf(IllegalArgumentException.class);
        table.put(1, 2, MISSING);
        assertThatThrownBy(() -> table.replace(1, MISSING, MISSING)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> table.put(2, 2, MISSING)).isInstanceOf(IllegalStateException.class);
        assertThat(table.put(1, 3, MISSING)).isEqualTo(2);
    }

    // ------------------------------------------------------------------------------------------------ support

    private static Map<Long, Long> contents(final CopyOnWriteLongTable table)
    {
        final Map<Long, Long> contents = new HashMap<>();
        table.forEach(contents::put);
        return contents;
    }

    private static Map<Long, Long> frozenContents(final CopyOnWriteLongTable.Frozen frozen)
    {
        final Map<Long, Long> contents = new HashMap<>();
        frozenEntries(frozen).forEach((key, entry) -> contents.put(key, entry.value));
        return contents;
    }

    private static Map<Long, Entry> chunkedEntries(final CopyOnWriteLongTable.View view)
    {
        final Map<Long, Entry> contents = new HashMap<>();
        view.forEachChunk((entries, stamps, slots) ->
        {
            for (int slot = 0; slot < slots; slot++)
            {
                if (entries[2 * slot + 1] != CopyOnWriteLongTable.MISSING)
                {
                    assertThat(contents.put(entries[2 * slot], new Entry(entries[2 * slot + 1],
                        stamps == null ? CopyOnWriteLongTable.MISSING : stamps[slot])))
                        .as("key %d held once", entries[2 * slot]).isNull();
                }
            }
        });
        return contents;
    }

    private static Map<Long, Entry> frozenEntries(final CopyOnWriteLongTable.Frozen frozen)
    {
        final Map<Long, Entry> contents = new HashMap<>();
        for (int slot = 0; slot < frozen.slots(); slot++)
        {
            if (frozen.occupied(slot))
            {
                assertThat(contents.put(frozen.keyAt(slot), new Entry(frozen.valueAt(slot), frozen.stampAt(slot))))
                    .as("key %d held once", frozen.keyAt(slot)).isNull();
            }
        }
        return contents;
    }
}
