package io.ringflow.state.chronicle;

import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.KeyGroups;
import io.ringflow.state.keyed.LongValueState;
import io.ringflow.state.keyed.MapState;
import io.ringflow.state.keyed.MapStateDescriptor;
import io.ringflow.state.keyed.SnapshotContents;
import io.ringflow.state.keyed.StateTtlConfig;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;
import io.ringflow.state.snapshot.KeyedSnapshotChain;
import io.ringflow.state.snapshot.KeyedSnapshotReader;
import io.ringflow.state.snapshot.KeyedStateSnapshot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The hot-key front of the Chronicle store's value states: hot keys served from the heap without touching the map,
 * at most {@code hotKeysPerState} of them, turned over when they are not hot, and snapshots (full and incremental)
 * that stay exactly the state at their barrier whatever the front holds and whatever it writes back while they are
 * pending.
 */
class HotKeyFrontTest
{
    private static final int MAX_PARALLELISM = 128;
    private static final KeyGroupRange ALL = new KeyGroupRange(0, MAX_PARALLELISM - 1);

    private final List<ChronicleKeyedStateStore> stores = new ArrayList<>();

    @AfterEach
    void closeStores()
    {
        stores.forEach(ChronicleKeyedStateStore::close);
    }

    // ------------------------------------------------------------------------------------------------ reads, writes

    @Test
    void hotKeysAreServedFromTheFrontAndNeverReachTheMap()
    {
        final ChronicleKeyedStateStore store = open(64);
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final ChronicleValueState<Long> state = (ChronicleValueState<Long>)counts;
        for (int round = 0; round < 10; round++)
        {
            for (long key = 0; key < 64; key++)
            {
                store.setCurrentKey(key);
                counts.update(counts.value() + key);
            }
        }

        assertThat(state.map().size()).as("entries in Chronicle").isZero();
        assertThat(state.front().size()).isEqualTo(64);
        for (long key = 0; key < 64; key++)
        {
            store.setCurrentKey(key);
            assertThat(counts.value()).as("key %d", key).isEqualTo(10 * key);
        }
        assertThat(store.entryCount()).isEqualTo(64);

        // a read of another key goes to the map and does not enter the front
        store.setCurrentKey(1_000L);
        assertThat(counts.value()).isZero();
        assertThat(state.front().size()).isEqualTo(64);
        // the front is full: a new key goes to the map, hot keys stay where they are
        counts.update(5L);
        assertThat(counts.value()).isEqualTo(5L);
        assertThat(state.map().size()).isEqualTo(1);
        store.setCurrentKey(3L);
        counts.update(counts.value() + 1);
        assertThat(counts.value()).isEqualTo(31L);
        assertThat(state.map().size()).isEqualTo(1);
        assertThat(state.front().size()).isEqualTo(64);
        assertThat(store.entryCount()).isEqualTo(65);
    }

    @Test
    void keysAreHintedOnlyOnceTheFrontOutgrowsTheNearCachesAndAHintChangesNothing()
    {
        final ChronicleKeyedStateStore store = open(ChronicleStateConfig.defaults()
            .withExpectedEntriesPerState(50_000).withHotKeysPerState(40_000));
        assertThat(store.prefetches()).as("no state declared").isFalse();
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class));
        final ValueState<String> names = store.getValueState(new ValueStateDescriptor<>("names", String.class));
        final Map<Object, Object> model = new HashMap<>();
        final int nearCacheKeys = 16_384;
        for (long key = 0; key < nearCacheKeys; key++)
        {
            set(store, counts, model, key, key * 3);
        }
        assertThat(store.prefetches()).as("a table of 32,768 slots fits the near caches").isFalse();
        set(store, counts, model, nearCacheKeys, 1L);
        assertThat(store.prefetches()).as("the 16,385th key doubles the table to 65,536 slots, 1 MiB").isTrue();

        // a hint, for keys present and absent, changes no value, no entry and not the current key
        store.setCurrentKey(7L);
        names.update("seven");
        final Random random = new Random(42);
        for (int i = 0; i < 10_000; i++)
        {
            store.prefetch(random.nextInt(2 * nearCacheKeys));
        }
        assertThat(store.currentKey()).isEqualTo(7L);
        assertThat(names.value()).isEqualTo("seven");
        assertThat(store.entryCount()).isEqualTo(model.size() + 1);
        assertEveryKey(store, counts, model, 2 * nearCacheKeys);

        // a snapshot pending while hinted keys change and the table grows (new arrays, the view keeps the old ones),
        // and the front fills up and spills into the map, still holds exactly its barrier's values
        final Map<String, Map<Object, Object>> atBarrier = SnapshotContents.expected(Map.of("counts", model,
            "names", Map.<Object, Object>of(7L, "seven")));
        final KeyedStateSnapshot pending = store.snapshot(1);
        for (long key = 0; key < 3 * nearCacheKeys; key++)
        {
            store.prefetch(key + 16);
            set(store, counts, model, key, -key);
            store.prefetch(random.nextInt(4 * nearCacheKeys));
        }
        assertThat(decode(SnapshotContents.write(pending))).isEqualTo(atBarrier);
        assertEveryKey(store, counts, model, 4 * nearCacheKeys);
    }

    @Test
    void snapshotsOfSeveralCounterStatesWrittenInTurnOnOneThreadEachHoldTheirOwnEntries() throws Exception
    {
        // the sorted runs' arrays pass from one snapshot written on a thread to the next (RunArrays): stores of two
        // counter states each, of changing sizes, snapshotted in turn, full snapshots and deltas (a delta's run is
        // shorter than arrays a full snapshot left, whose tail still holds its entries), must each read back exactly;
        // on a fresh thread, whose pool starts empty
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final Thread thread = new Thread(() ->
        {
            try
            {
                writeCounterSnapshotsInTurn();
                done.complete(null);
            }
            catch (final Throwable ex)
            {
                done.completeExceptionally(ex);
            }
        }, "snapshots-in-turn");
        thread.start();
        done.get();
    }

    private void writeCounterSnapshotsInTurn()
    {
        final Random random = new Random(11);
        final List<ChronicleKeyedStateStore> both = List.of(open(100_000), open(100_000));
        final List<List<ValueState<Long>>> states = new ArrayList<>();
        final List<Map<String, Map<Object, Object>>> models = new ArrayList<>();
        for (final ChronicleKeyedStateStore store : both)
        {
            store.trackChanges();
            states.add(List.of(store.getValueState(new ValueStateDescriptor<>("a", Long.class)),
                store.getValueState(new ValueStateDescriptor<>("b", Long.class))));
            models.add(Map.of("a", new HashMap<>(), "b", new HashMap<>()));
        }
        int deltas = 0;
        final byte[][] lastFull = new byte[both.size()][];
        final long[] lastFullId = new long[both.size()];
        for (int round = 0; round < 12; round++)
        {
            for (int s = 0; s < both.size(); s++)
            {
                final int updates = random.nextInt(round % 3 == 0 ? 20_000 : 300);
                for (int i = 0; i < updates; i++)
                {
                    final int which = random.nextInt(2);
                    set(both.get(s), states.get(s).get(which), models.get(s).get(which == 0 ? "a" : "b"),
                        random.nextInt(40_000), random.nextLong() >>> 1);
                }
            }
            final long id = round + 1;
            for (int s = 0; s < both.size(); s++)
            {
                final ChronicleKeyedStateStore store = both.get(s);
                final Map<String, Map<Object, Object>> expected = SnapshotContents.expected(models.get(s));
                if (lastFull[s] == null || random.nextBoolean() || !store.canSnapshotIncrementally(lastFullId[s]))
                {
                    lastFull[s] = SnapshotContents.take(store, id);
                    lastFullId[s] = id;
                    assertThat(decode(lastFull[s])).as("store %d, round %d, full", s, round).isEqualTo(expected);
                }
                else
                {
                    deltas++;
                    final byte[] delta = SnapshotContents.write(store.incrementalSnapshot(id, lastFullId[s]));
                    assertThat(merge(lastFull[s], delta)).as("store %d, round %d, delta", s, round)
                        .isEqualTo(expected);
                }
            }
        }
        assertThat(deltas).as("deltas written").isGreaterThan(3);
    }

    @Test
    void aFrontOfOtherValuesThanLongsIsNeverHintedHoweverLarge()
    {
        final ChronicleKeyedStateStore store = open(ChronicleStateConfig.defaults()
            .withExpectedEntriesPerState(50_000).withHotKeysPerState(40_000));
        final ValueState<String> names = store.getValueState(new ValueStateDescriptor<>("names", String.class));
        for (long key = 0; key < 20_000; key++)
        {
            store.setCurrentKey(key);
            names.update("n" + key);
        }
        assertThat(((ChronicleValueState<String>)names).front().size()).isEqualTo(20_000);
        assertThat(store.prefetches()).isFalse();
        assertThat(store.prefetch(5L)).isZero();
    }

    @Test
    void longValuesAreHeldUnboxedAndTheOneValueTheFrontCannotHoldGoesToTheMap()
    {
        final ChronicleKeyedStateStore store = open(8);
        store.trackChanges();
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class));
        final ChronicleValueState<Long> state = (ChronicleValueState<Long>)counts;
        final Map<Object, Object> model = new HashMap<>();
        for (long key = 0; key < 4; key++)
        {
            set(store, counts, model, key, key * 100);
        }
        final byte[] full = SnapshotContents.take(store, 1);
        assertThat(state.front().size()).isEqualTo(4);
        assertThat(state.map().size()).isZero();

        // Long.MIN_VALUE is the unboxed front's missing value: it goes to the map, the key leaves the front
        set(store, counts, model, 2L, Long.MIN_VALUE);
        assertThat(counts.value()).isEqualTo(Long.MIN_VALUE);
        assertThat(state.front().size()).isEqualTo(3);
        assertThat(state.map().size()).isEqualTo(1);
        // a new key with it never enters
        set(store, counts, model, 7L, Long.MIN_VALUE);
        assertThat(state.front().size()).isEqualTo(3);
        // and a later value brings the key back
        set(store, counts, model, 2L, 5L);
        assertThat(store.entryCount()).isEqualTo(model.size());
        assertEveryKey(store, counts, model, 8);

        final byte[] delta = SnapshotContents.write(store.incrementalSnapshot(2, 1));
        assertThat(merge(full, delta)).isEqualTo(SnapshotContents.expected(Map.of("counts", model)));
        assertThat(decode(SnapshotContents.take(store, 3))).isEqualTo(SnapshotContents.expected(Map.of("counts",
            model)));
        store.writeBackHotKeys();
        assertEveryKey(store, counts, model, 8);
        assertThat(state.map().size()).isEqualTo(model.size());
    }

    @Test
    void theFrontHoldsAtMostItsCapacityAndEntriesAreCountedExactly()
    {
        final ChronicleKeyedStateStore store = open(4);
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class));
        final ChronicleValueState<Long> state = (ChronicleValueState<Long>)counts;
        final Map<Object, Object> model = new HashMap<>();
        for (long key = 0; key < 10; key++)
        {
            set(store, counts, model, key, key);
        }
        assertThat(state.front().size()).isEqualTo(4);
        assertThat(state.map().size()).isEqualTo(6);
        assertThat(store.entryCount()).isEqualTo(10);

        clear(store, counts, model, 0L);
        assertThat(store.entryCount()).as("a key only in the front").isEqualTo(9);

        // read, then written: enters the front while its stale map entry stays (known present from the read)
        store.setCurrentKey(5L);
        assertThat(counts.value()).isEqualTo(5L);
        set(store, counts, model, 5L, 50L);
        assertThat(state.front().shadowed()).isEqualTo(1);
        assertThat(store.entryCount()).isEqualTo(9);

        clear(store, counts, model, 1L);
        // written without a read first: the map is asked
        set(store, counts, model, 6L, 60L);
        assertThat(state.front().shadowed()).isEqualTo(2);
        assertThat(store.entryCount()).isEqualTo(8);

        // a key in the front and in the map: cleared from both
        clear(store, counts, model, 5L);
        assertThat(state.front().shadowed()).isEqualTo(1);
        assertThat(store.entryCount()).isEqualTo(7);

        set(store, counts, model, 20L, 20L);
        set(store, counts, model, 21L, 21L);
        assertThat(state.front().size()).as("never beyond its capacity").isEqualTo(4);
        assertThat(store.entryCount()).isEqualTo(model.size());
        assertEveryKey(store, counts, model, 30);

        store.writeBackHotKeys();
        assertThat(state.front().size()).isZero();
        assertThat(state.front().shadowed()).isZero();
        assertThat(state.map().size()).isEqualTo(model.size());
        assertThat(store.entryCount()).isEqualTo(model.size());
        assertEveryKey(store, counts, model, 30);
        assertThat(SnapshotContents.decode(SnapshotContents.take(store, 1), CodecRegistry.withBuiltIns()))
            .isEqualTo(SnapshotContents.expected(Map.of("counts", model)));
    }

    @Test
    void aMissOfAFullFrontByAKeySetUnboxedMakesNoKeyObjectAndAMapReadIsRememberedForThatKeyAlone()
    {
        final ChronicleKeyedStateStore store = open(2);
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class));
        final LongValueState countView = store.getLongValueState(new ValueStateDescriptor<>("counts", Long.class));
        final ChronicleValueState<Long> state = (ChronicleValueState<Long>)counts;
        final Map<Object, Object> model = new HashMap<>();
        // keys past Long's cache of small values, so that a box would be a new object
        fillFrontOfTwo(store, counts, model);
        // the front is full: a key set unboxed that misses it is read from and written to the map, never boxed
        unboxed(store, 1_003L);
        assertThat(counts.value()).isNull();
        counts.update(3L);
        assertThat(store.currentKeyBoxed()).as("the key of a read and a write of the map").isFalse();
        unboxed(store, 1_005L);
        assertThat(countView.add(500L)).isEqualTo(500L);
        assertThat(countView.add(500L)).isEqualTo(1_000L);
        assertThat(store.currentKeyBoxed()).as("the key of the unboxed view's adds").isFalse();
        model.putAll(Map.of(1_001L, 1L, 1_002L, 2L, 1_003L, 3L, 1_005L, 1_000L));
        assertThat(state.map().size()).isEqualTo(2);
        assertThat(store.entryCount()).isEqualTo(4);

        // room in the front again; key 1,004 read (absent from the map), then key 1,003 (in the map) written without
        // a read: the read of 1,004 says nothing about 1,003, so 1,003 enters the front shadowing its map entry,
        // counted once
        unboxed(store, 1_001L);
        counts.clear();
        model.remove(1_001L);
        unboxed(store, 1_004L);
        assertThat(counts.value()).isNull();
        unboxed(store, 1_003L);
        counts.update(30L);
        model.put(1_003L, 30L);
        assertThat(state.front().shadowed()).isEqualTo(1);
        assertThat(store.entryCount()).isEqualTo(model.size());
        assertEveryKey(store, counts, model, 1_010);
        assertThat(SnapshotContents.decode(SnapshotContents.take(store, 1), CodecRegistry.withBuiltIns()))
            .isEqualTo(SnapshotContents.expected(Map.of("counts", model)));
    }

    @Test
    void aKeyWrittenToTheMapPastAFullFrontIsNotTakenForAbsentWhenATurnoverThenLetsItIn()
    {
        final ChronicleKeyedStateStore store = open(2);
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class));
        final HotKeyFront front = ((ChronicleValueState<Long>)counts).front();
        final Map<Object, Object> model = new HashMap<>();
        fillFrontOfTwo(store, counts, model);
        // new keys, each read (absent) then written past the full front, until a window of misses ends at a write and
        // turns the front over: that write's key was read as absent, and is in the map now
        long key = 100_000L;
        while (front.turnovers() == 0)
        {
            key++;
            unboxed(store, key);
            assertThat(counts.value()).isNull();
            counts.update(key);
            model.put(key, key);
        }
        assertThat(front.size()).as("emptied by the turnover at the last write").isZero();

        // the same key written again, without a read: it enters the front, shadowing its map entry
        unboxed(store, key);
        counts.update(-key);
        model.put(key, -key);

        assertThat(front.shadowed()).isEqualTo(1);
        assertThat(store.entryCount()).isEqualTo(model.size());
        assertThat(SnapshotContents.decode(SnapshotContents.take(store, 1), CodecRegistry.withBuiltIns()))
            .isEqualTo(SnapshotContents.expected(Map.of("counts", model)));
    }

    /** Fills a front of two with keys 1,001 and 1,002 (values 1 and 2), set unboxed, and puts them in the model. */
    private static void fillFrontOfTwo(final ChronicleKeyedStateStore store, final ValueState<Long> counts,
        final Map<Object, Object> model)
    {
        unboxed(store, 1_001L);
        counts.update(1L);
        unboxed(store, 1_002L);
        counts.update(2L);
        model.putAll(Map.of(1_001L, 1L, 1_002L, 2L));
    }

    private static void unboxed(final ChronicleKeyedStateStore store, final long key)
    {
        store.setCurrentKey(key, KeyGroups.keyGroupOf(key, MAX_PARALLELISM));
    }

    @Test
    void aFullFrontThatMissesMoreThanItHitsInAWindowIsWrittenBackWhole()
    {
        final ChronicleKeyedStateStore store = open(64);
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final HotKeyFront front = ((ChronicleValueState<Long>)counts).front();
        final StateMap map = ((ChronicleValueState<Long>)counts).map();
        final Map<Object, Object> model = new HashMap<>();
        for (long key = 0; key < 64; key++)
        {
            set(store, counts, model, key, -key);
        }
        for (long key = 1_000; key < 3_000; key++)
        {
            set(store, counts, model, key, key);
        }
        final int accessesSoFar = 64 + 2_000;
        assertThat(front.size()).isEqualTo(64);
        assertThat(map.size()).isEqualTo(2_000);

        // hits: the window that ends here had 2,064 misses and 63,472 hits, so the front stays
        for (int i = 0; i < HotKeyFront.WINDOW; i++)
        {
            store.setCurrentKey((long)(i % 64));
            counts.value();
        }
        assertThat(front.turnovers()).isZero();
        assertThat(front.size()).isEqualTo(64);

        // misses: the next window ends after 65,536 - 2,064 of them, with 2,064 hits
        for (int i = 0; i < HotKeyFront.WINDOW - accessesSoFar - 1; i++)
        {
            store.setCurrentKey(1_000L + i % 2_000);
            counts.value();
        }
        assertThat(front.turnovers()).as("one access before the window ends").isZero();
        store.setCurrentKey(2_999L);
        assertThat(counts.value()).isEqualTo(2_999L);
        assertThat(front.turnovers()).isEqualTo(1);
        assertThat(front.size()).isZero();
        assertThat(map.size()).isEqualTo(2_064);
        assertThat(store.entryCount()).isEqualTo(2_064);
        assertEveryKey(store, counts, model, 3_000);

        // a window of misses with a front that is not full turns nothing over
        for (int i = 0; i < 2 * HotKeyFront.WINDOW; i++)
        {
            store.setCurrentKey(1_000L + i % 2_000);
            counts.value();
        }
        assertThat(front.turnovers()).isEqualTo(1);
        // the keys written next enter the front again
        set(store, counts, model, 7L, 70L);
        assertThat(front.size()).isEqualTo(1);
        assertThat(front.shadowed()).as("written back, so in the map too").isEqualTo(1);
        assertThat(store.entryCount()).isEqualTo(model.size());
        assertEveryKey(store, counts, model, 3_000);
    }

    @Test
    void keysOfOtherTypesAndValuesWithoutABoundUseTheGeneralFront()
    {
        final ChronicleKeyedStateStore store = open(8);
        final ValueState<String> labels = store.getValueState(new ValueStateDescriptor<>("labels", String.class));
        final ChronicleValueState<String> state = (ChronicleValueState<String>)labels;
        final Map<Object, Object> model = new HashMap<>();
        for (int i = 0; i < 20; i++)
        {
            store.setCurrentKey("key-" + i);
            labels.update("label-" + i);
            model.put("key-" + i, "label-" + i);
        }
        store.setCurrentKey("key-3");
        labels.update("x".repeat(100));
        model.put("key-3", "x".repeat(100));
        store.setCurrentKey("key-4");
        labels.clear();
        model.remove("key-4");

        assertThat(state.front().size()).isEqualTo(7);
        assertThat(state.map().size()).isEqualTo(12);
        assertThat(store.entryCount()).isEqualTo(19);
        final byte[] bytes = SnapshotContents.take(store, 1);
        assertThat(SnapshotContents.decode(bytes, CodecRegistry.withBuiltIns()))
            .isEqualTo(SnapshotContents.expected(Map.of("labels", model)));
        for (int i = 0; i < 20; i++)
        {
            store.setCurrentKey("key-" + i);
            assertThat(labels.value()).isEqualTo(model.get("key-" + i));
        }
        // a key of another type is refused, front or not
        store.setCurrentKey(3L);
        assertThatThrownBy(labels::value).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("java.lang.Long");
    }

    // ------------------------------------------------------------------------------------------------ snapshots

    /**
     * Full snapshots and deltas with keys in the front only, in the map only, and in both (the map's entry stale):
     * each merged chain is the model. A key cleared from the front that never reached the map is a change the map
     * cannot see: the next delta must still remove it.
     */
    @Test
    void fullAndIncrementalSnapshotsWithAHotFrontEqualTheModel()
    {
        final ChronicleKeyedStateStore store = open(64);
        store.trackChanges();
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class));
        final HotKeyFront front = ((ChronicleValueState<Long>)counts).front();
        final Map<Object, Object> model = new HashMap<>();
        for (long key = 0; key < 64; key++)
        {
            set(store, counts, model, key, key);
        }
        for (long key = 100; key < 200; key++)
        {
            set(store, counts, model, key, key);
        }
        for (long key = 0; key < 5; key++)
        {
            clear(store, counts, model, key);
        }
        for (long key = 100; key < 105; key++)
        {
            store.setCurrentKey(key);
            set(store, counts, model, key, counts.value() * 10);
        }
        assertThat(front.size()).isEqualTo(64);
        assertThat(front.shadowed()).isEqualTo(5);

        final byte[] base = SnapshotContents.take(store, 1);
        assertThat(decode(base)).isEqualTo(SnapshotContents.expected(Map.of("counts", model)));

        for (long key = 10; key < 20; key++)
        {
            store.setCurrentKey(key);
            set(store, counts, model, key, counts.value() + 1);
        }
        clear(store, counts, model, 20L);
        clear(store, counts, model, 100L);
        set(store, counts, model, 150L, -150L);
        set(store, counts, model, 300L, 300L);
        final byte[] delta2 = SnapshotContents.write(store.incrementalSnapshot(2, 1));
        final Map<String, Map<Object, Object>> merged2 = merge(base, delta2);
        assertThat(merged2).isEqualTo(SnapshotContents.expected(Map.of("counts", model)));
        assertThat(merged2.get("counts")).as("cleared from the front only").doesNotContainKey(20L)
            .doesNotContainKey(100L).containsEntry(150L, -150L).containsEntry(300L, 300L);

        store.writeBackHotKeys();
        clear(store, counts, model, 10L);
        set(store, counts, model, 11L, 1_100L);
        set(store, counts, model, 12L, 1_200L);
        final byte[] delta3 = SnapshotContents.write(store.incrementalSnapshot(3, 2));
        assertThat(merge(base, delta2, delta3)).isEqualTo(SnapshotContents.expected(Map.of("counts", model)));
        assertThat(decode(SnapshotContents.take(store, 4))).isEqualTo(SnapshotContents.expected(Map.of("counts",
            model)));
        assertThat(store.entryCount()).isEqualTo(model.size());
    }

    /**
     * A full snapshot and a delta pending while the flusher is stopped halfway through the map: the task updates
     * every hot key, writes the whole front back into segments read and not read, clears and adds keys, and writes
     * back again. Both must hold the state at their barrier.
     */
    @Test
    void writeBacksBetweenTheBarrierAndTheFlushLeaveSnapshotsAtTheirBarrier() throws Exception
    {
        final ChronicleKeyedStateStore store = open(64);
        store.trackChanges();
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final StateMap map = ((ChronicleValueState<Long>)counts).map();
        final int segments = map.created().segments();
        assertThat(segments).as("segments of a map of 50,000 entries").isGreaterThanOrEqualTo(4);
        final int paused = segments / 2;
        final Map<Object, Object> model = new HashMap<>();
        for (long key = 0; key < 4_000; key++)
        {
            set(store, counts, model, key, key);
        }
        for (long key = 0; key < 10; key++)
        {
            clear(store, counts, model, key);
        }
        for (long key = 1_000; key < 1_010; key++)
        {
            store.setCurrentKey(key);
            set(store, counts, model, key, -counts.value());
        }
        final byte[] base = SnapshotContents.take(store, 1);
        for (long key = 3_990; key < 4_100; key++)
        {
            set(store, counts, model, key, key * 2);
        }
        final Map<String, Map<Object, Object>> atBarrier = SnapshotContents.expected(Map.of("counts", model));
        final KeyedStateSnapshot full = store.snapshot(2);
        final KeyedStateSnapshot delta = store.incrementalSnapshot(3, 1);

        final SynchronousQueue<Integer> stopped = new SynchronousQueue<>();
        final SynchronousQueue<Boolean> resume = new SynchronousQueue<>();
        final CompletableFuture<byte[]> written = CompletableFuture.supplyAsync(() ->
        {
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            try
            {
                ((ChronicleKeyedStateSnapshot)full).writeTo(out, (stateIndex, segment) ->
                {
                    if (segment == paused)
                    {
                        handOver(stopped, resume, segment);
                    }
                });
            }
            catch (final Exception ex)
            {
                throw new IllegalStateException(ex);
            }
            return out.toByteArray();
        });
        assertThat(stopped.poll(60, TimeUnit.SECONDS)).isEqualTo(paused);
        for (long key = 0; key < 4_200; key++)
        {
            store.setCurrentKey(key);
            counts.update(counts.value() + 1_000_000);
        }
        store.writeBackHotKeys();
        for (long key = 0; key < 4_200; key += 3)
        {
            store.setCurrentKey(key);
            counts.clear();
        }
        for (long key = 5_000; key < 5_100; key++)
        {
            store.setCurrentKey(key);
            counts.update(key);
        }
        store.writeBackHotKeys();
        resume.put(true);

        assertThat(decode(written.get(60, TimeUnit.SECONDS))).isEqualTo(atBarrier);
        assertThat(merge(base, SnapshotContents.write(delta))).isEqualTo(atBarrier);
    }

    /**
     * Seeded random updates, increments, clears and reads on two value states (fixed-size and variable-size values)
     * with a front of 64 keys over keys 0..1000, whose hot keys move: skewed to one set, then uniform (so the front
     * turns over), then skewed to another set. Full snapshots and deltas against the newest committed snapshot are
     * taken at random barriers, up to three pending before their flush starts, and written by two flushers while the
     * task keeps writing. Each chain, merged, must equal a copy of the model at its barrier.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {29, 65_537, 20_261_130})
    void everyChainOfAStateWithHotKeysEqualsTheModelAtItsBarrier(final long seed) throws Exception
    {
        final ChronicleKeyedStateStore store = open(64);
        store.trackChanges();
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final ValueState<String> labels = store.getValueState(new ValueStateDescriptor<>("labels", String.class));
        final HotKeyFront countFront = ((ChronicleValueState<Long>)counts).front();
        final HotKeyFront labelFront = ((ChronicleValueState<String>)labels).front();
        final Map<Object, Object> countModel = new HashMap<>();
        final Map<Object, Object> labelModel = new HashMap<>();
        final Random random = new Random(seed);
        final ExecutorService flushers = Executors.newFixedThreadPool(2);
        final Deque<KeyedStateSnapshot> notYetSubmitted = new ArrayDeque<>();
        final List<Future<byte[]>> written = new ArrayList<>();
        final List<List<Integer>> chains = new ArrayList<>();
        final List<Map<String, Map<Object, Object>>> expected = new ArrayList<>();
        int base = -1;
        int deltas = 0;
        try
        {
            for (int op = 0; op < 300_000; op++)
            {
                final long key = hotSkewedKey(random, op / 100_000);
                store.setCurrentKey(key);
                switch (random.nextInt(12))
                {
                    case 0, 1, 2, 3 ->
                    {
                        final long next = counts.value() + 1;
                        counts.update(next);
                        countModel.put(key, next);
                    }
                    case 4 ->
                    {
                        final long next = random.nextLong();
                        counts.update(next);
                        countModel.put(key, next);
                    }
                    case 5 ->
                    {
                        counts.clear();
                        countModel.remove(key);
                    }
                    case 6 ->
                    {
                        counts.update(null);
                        countModel.remove(key);
                    }
                    case 7, 8 ->
                    {
                        final String next = "label-" + random.nextInt(1_000);
                        labels.update(next);
                        labelModel.put(key, next);
                    }
                    case 9 ->
                    {
                        labels.clear();
                        labelModel.remove(key);
                    }
                    default ->
                    {
                        assertThat(counts.value()).as("seed %d op %d", seed, op)
                            .isEqualTo(countModel.getOrDefault(key, 0L));
                        assertThat(labels.value()).as("seed %d op %d", seed, op).isEqualTo(labelModel.get(key));
                    }
                }
                assertThat(countFront.size()).isLessThanOrEqualTo(64);
                assertThat(labelFront.size()).isLessThanOrEqualTo(64);
                if (random.nextInt(2_500) == 0)
                {
                    // commit: a snapshot already submitted, newer than the base, becomes the base
                    for (int i = written.size() - 1; i > base; i--)
                    {
                        if (random.nextBoolean())
                        {
                            written.get(i).get(60, TimeUnit.SECONDS);
                            base = i;
                            break;
                        }
                    }
                    final int id = written.size() + notYetSubmitted.size();
                    final boolean delta = base >= 0 && random.nextInt(4) != 0;
                    notYetSubmitted.add(delta ? store.incrementalSnapshot(id, base) : store.snapshot(id));
                    final List<Integer> chain = new ArrayList<>(delta ? chains.get(base) : List.of());
                    chain.add(id);
                    chains.add(chain);
                    deltas += delta ? 1 : 0;
                    expected.add(SnapshotContents.expected(Map.of("counts", countModel, "labels", labelModel)));
                    while (notYetSubmitted.size() > random.nextInt(3))
                    {
                        final KeyedStateSnapshot next = notYetSubmitted.poll();
                        written.add(flushers.submit(() -> SnapshotContents.write(next)));
                    }
                }
            }
            while (!notYetSubmitted.isEmpty())
            {
                final KeyedStateSnapshot next = notYetSubmitted.poll();
                written.add(flushers.submit(() -> SnapshotContents.write(next)));
            }

            assertThat(written).as("seed %d takes snapshots", seed).hasSizeGreaterThan(50);
            assertThat(deltas).as("seed %d takes deltas", seed).isGreaterThan(20);
            assertThat(countFront.turnovers() + labelFront.turnovers()).as("seed %d turns fronts over", seed)
                .isPositive();
            assertThat(store.entryCount()).isEqualTo(countModel.size() + labelModel.size());
            for (int i = 0; i < written.size(); i++)
            {
                final List<KeyedSnapshotReader> chain = new ArrayList<>();
                for (final int part : chains.get(i))
                {
                    chain.add(KeyedSnapshotReader.open(written.get(part).get(60, TimeUnit.SECONDS), "snapshot-" +
                        part));
                }
                assertThat(SnapshotContents.decode(KeyedSnapshotChain.mergeToBytes(chain, ALL),
                    CodecRegistry.withBuiltIns())).as("seed %d chain %s", seed, chains.get(i))
                    .isEqualTo(expected.get(i));
            }
        }
        finally
        {
            flushers.shutdownNow();
        }
    }

    // ------------------------------------------------------------------------------------------------ restore, config

    @Test
    void restoredCountersFillTheirFrontUpToItsCapacityAndUndeclaredStatesKeepTheirsUntilASnapshotNeedsThem()
    {
        final ChronicleKeyedStateStore first = open(16);
        final ValueState<Long> counts = first.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final ValueState<Long> idle = first.getValueState(new ValueStateDescriptor<>("idle", Long.class));
        final Map<Object, Object> model = new HashMap<>();
        for (long key = 0; key < 100; key++)
        {
            set(first, counts, model, key, key);
            idle.update(-key);
        }
        final byte[] bytes = SnapshotContents.take(first, 1);

        final ChronicleKeyedStateStore restored = open(16);
        restored.restore(List.of(SnapshotContents.reader(bytes)));
        assertThat(restored.entryCount()).as("both states, neither declared").isEqualTo(200);
        final ValueState<Long> again = restored.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final HotKeyFront front = ((ChronicleValueState<Long>)again).front();
        final StateMap map = ((ChronicleValueState<Long>)again).map();
        assertThat(front.size()).as("16 restored counters kept for the front").isEqualTo(16);
        assertThat(front.shadowed()).isZero();
        assertThat(map.size()).as("the other 84 in the map").isEqualTo(84);
        assertThat(restored.entryCount()).as("'idle' restored but not declared").isEqualTo(200);
        assertEveryKey(restored, again, model, 100);
        assertThat(front.size()).as("reads do not enter").isEqualTo(16);
        for (long key = 0; key < 100; key++)
        {
            store(restored, key);
            set(restored, again, model, key, again.value() + 1);
        }
        assertThat(front.size() + map.size() - front.shadowed()).isEqualTo(100);
        assertThat(restored.entryCount()).isEqualTo(200);

        final Map<String, Map<Object, Object>> contents = decode(SnapshotContents.take(restored, 2));
        assertThat(contents.get("counts")).isEqualTo(model);
        assertThat(contents.get("idle")).as("written to its map for the snapshot").hasSize(100)
            .containsEntry(7L, -7L);
        final ValueState<Long> idleAgain = restored.getValueState(new ValueStateDescriptor<>("idle", Long.class));
        assertThat(((ChronicleValueState<Long>)idleAgain).front().size()).as("in the map by now").isZero();
        restored.setCurrentKey(42L);
        assertThat(idleAgain.value()).isEqualTo(-42L);
    }

    @Test
    void restoredCountersThatFitAreTakenWholeByTheFrontAndNeedNoMap()
    {
        final ChronicleKeyedStateStore first = open(ChronicleStateConfig.defaults());
        final ValueState<Long> counts = first.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final Map<Object, Object> model = new HashMap<>();
        for (long key = 0; key < 5_000; key++)
        {
            set(first, counts, model, key, key * 3);
        }
        // the one value a front of counters cannot hold
        set(first, counts, model, 77L, Long.MIN_VALUE);
        final byte[] bytes = SnapshotContents.take(first, 1);

        final ChronicleKeyedStateStore restored = open(ChronicleStateConfig.defaults());
        restored.restore(List.of(SnapshotContents.reader(bytes)));
        final ValueState<Long> again = restored.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final HotKeyFront front = ((ChronicleValueState<Long>)again).front();
        assertThat(front.size()).isEqualTo(4_999);
        assertThat(((ChronicleValueState<Long>)again).map().size()).as("key 77 only").isEqualTo(1);
        assertThat(restored.entryCount()).isEqualTo(5_000);
        assertEveryKey(restored, again, model, 5_000);
        for (long key = 0; key < 5_000; key += 7)
        {
            set(restored, again, model, key, key);
        }
        assertThat(front.size()).as("key 77 entered the front, shadowing its map entry").isEqualTo(5_000);
        assertThat(decode(SnapshotContents.take(restored, 2))).isEqualTo(
            SnapshotContents.expected(Map.of("counts", model)));
        assertThat(restored.entryCount()).isEqualTo(5_000);
    }

    @ParameterizedTest(name = "a front budget of {0} bytes")
    @ValueSource(longs = {32 * 1024, 64 * 1024 * 1024})
    void restoredCountersWithIncrementalCheckpointsGiveDeltasOfTheirChangesOnly(final long budget)
    {
        final ChronicleStateConfig config = ChronicleStateConfig.defaults().withHotFrontBytesPerState(budget);
        final Map<Object, Object> model = new HashMap<>();
        final byte[] bytes = countersSnapshot(config, 1_000, model);

        final ChronicleKeyedStateStore restored = open(config);
        restored.restore(List.of(SnapshotContents.reader(bytes)));
        restored.trackChanges();
        final ValueState<Long> again = restored.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final HotKeyFront front = ((ChronicleValueState<Long>)again).front();
        // 1,000 counters fit a front without change stamps of 32 KiB (1,024 keys), not one with (512): then the map
        assertThat(front.size()).isEqualTo(config.hotKeyCapacity(true, true) >= 1_000 ? 1_000 : 0);
        assertEveryKey(restored, again, model, 1_000);
        final byte[] base = SnapshotContents.take(restored, 2);
        assertThat(decode(base)).isEqualTo(SnapshotContents.expected(Map.of("counts", model)));

        for (long key = 100; key < 110; key++)
        {
            set(restored, again, model, key, -key);
        }
        clear(restored, again, model, 500L);
        final byte[] delta = SnapshotContents.write(restored.incrementalSnapshot(3, 2));
        final List<String> entries = SnapshotContents.rawEntries(delta);
        assertThat(entries).as("the changed keys only").hasSize(11);
        assertThat(entries).filteredOn(line -> line.endsWith("tombstone")).as("the cleared key").hasSize(1);
        assertThat(merge(base, delta)).isEqualTo(SnapshotContents.expected(Map.of("counts", model)));
    }

    @Test
    void restoredCountersSurviveAFailedDeclarationAndAKeyOfTwoRestoredSnapshotsIsKeptOnce()
    {
        final Map<Object, Object> model = new HashMap<>();
        final byte[] bytes = countersSnapshot(ChronicleStateConfig.defaults(), 100, model);

        final ChronicleKeyedStateStore restored = open(ChronicleStateConfig.defaults());
        restored.restore(List.of(SnapshotContents.reader(bytes)));
        assertThatThrownBy(() -> restored.getValueState(new ValueStateDescriptor<>("counts", String.class)))
            .isInstanceOf(IllegalStateException.class);
        assertThat(restored.entryCount()).as("kept through the failed declaration").isEqualTo(100);
        assertThat(decode(SnapshotContents.take(restored, 2)).get("counts")).isEqualTo(model);
        final ValueState<Long> again = restored.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        assertEveryKey(restored, again, model, 100);

        // the same key in two snapshots restored together (a contract the engine keeps with disjoint key groups):
        // the later one wins, whether the earlier went to the front's table or to the map
        final ChronicleKeyedStateStore one = open(ChronicleStateConfig.defaults());
        final ValueState<Long> a = one.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        one.setCurrentKey(5L);
        a.update(3L);
        final byte[] three = SnapshotContents.take(one, 1);
        one.setCurrentKey(5L);
        a.update(Long.MIN_VALUE);
        final byte[] minimum = SnapshotContents.take(one, 2);
        for (final boolean keptFirst : new boolean[] {true, false})
        {
            final ChronicleKeyedStateStore both = open(ChronicleStateConfig.defaults());
            both.restore(keptFirst ? List.of(SnapshotContents.reader(three), SnapshotContents.reader(minimum)) :
                List.of(SnapshotContents.reader(minimum), SnapshotContents.reader(three)));
            assertThat(both.entryCount()).as("kept first: %s", keptFirst).isEqualTo(1);
            final ValueState<Long> b = both.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
            both.setCurrentKey(5L);
            assertThat(b.value()).as("kept first: %s", keptFirst).isEqualTo(keptFirst ? Long.MIN_VALUE : 3L);
            assertThat(both.entryCount()).isEqualTo(1);
        }
    }

    /**
     * Counters of snapshots whose key groups overlap, restored together into a front too small for them: a key kept
     * from the first is found again when the second holds it, though the kept counters are full by then (each key
     * kept or in the map, never both; the later value wins). Snapshots of disjoint key groups skip that lookup.
     */
    @Test
    void overlappingSnapshotsRestoredPastAFullFrontKeepEachKeyOnce()
    {
        final ChronicleStateConfig config = ChronicleStateConfig.defaults().withHotFrontBytesPerState(32 * 1024);
        final Map<Object, Object> model = new HashMap<>();
        final byte[] first = countersSnapshot(config, 3_000, model);
        final ChronicleKeyedStateStore second = open(config);
        final ValueState<Long> counts = second.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        for (long key = 0; key < 3_000; key++)
        {
            set(second, counts, model, key, key * 10 + 7);
        }
        final byte[] later = SnapshotContents.take(second, 2);

        final ChronicleKeyedStateStore restored = open(config);
        restored.restore(List.of(SnapshotContents.reader(first), SnapshotContents.reader(later)));
        assertThat(restored.entryCount()).as("each key once").isEqualTo(3_000);
        final ValueState<Long> again = restored.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        assertEveryKey(restored, again, model, 3_000);
        assertThat(restored.entryCount()).isEqualTo(3_000);
    }

    @Test
    void countersRestoredWhileChangesAreTrackedAreKeptForTheFrontWithChangeStamps()
    {
        final ChronicleStateConfig config = ChronicleStateConfig.defaults().withHotFrontBytesPerState(32 * 1024);
        final Map<Object, Object> model = new HashMap<>();
        final byte[] bytes = countersSnapshot(config, 1_000, model);

        final ChronicleKeyedStateStore restored = open(config);
        restored.trackChanges();
        restored.restore(List.of(SnapshotContents.reader(bytes)));
        final ValueState<Long> again = restored.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final int capacity = config.hotKeyCapacity(true, true);
        assertThat(((ChronicleValueState<Long>)again).front().size()).as("as many as its front holds with stamps")
            .isEqualTo(capacity);
        assertThat(((ChronicleValueState<Long>)again).map().size()).isEqualTo(1_000 - capacity);
        assertEveryKey(restored, again, model, 1_000);
        final byte[] base = SnapshotContents.take(restored, 2);
        set(restored, again, model, 7L, -7L);
        final byte[] delta = SnapshotContents.write(restored.incrementalSnapshot(3, 2));
        assertThat(SnapshotContents.rawEntries(delta)).as("the one change").hasSize(1);
        assertThat(merge(base, delta)).isEqualTo(SnapshotContents.expected(Map.of("counts", model)));
    }

    @Test
    void withoutHotKeysEveryWriteReachesTheMapAsBefore()
    {
        final ChronicleKeyedStateStore store = open(0);
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final ChronicleValueState<Long> state = (ChronicleValueState<Long>)counts;
        assertThat(state.front()).isNull();
        final Map<Object, Object> model = new HashMap<>();
        for (long key = 0; key < 10; key++)
        {
            set(store, counts, model, key, key);
            assertThat(state.map().size()).isEqualTo(key + 1);
        }
        clear(store, counts, model, 3L);
        assertThat(state.map().size()).isEqualTo(9);
        assertThat(decode(SnapshotContents.take(store, 1))).isEqualTo(SnapshotContents.expected(Map.of("counts",
            model)));
        store.writeBackHotKeys();
        assertThat(store.entryCount()).isEqualTo(9);
    }

    @Test
    void onlyValueStatesWithoutTimeToLiveHaveAFront()
    {
        final ChronicleKeyedStateStore store = open(8);
        final ValueState<Long> expiring = store.getValueState(new ValueStateDescriptor<>("expiring", Long.class)
            .enableTimeToLive(StateTtlConfig.of(Duration.ofMinutes(1))));
        final MapState<Long, Long> visits = store.getMapState(new MapStateDescriptor<>("visits", Long.class,
            Long.class));
        store.setCurrentKey(1L);
        expiring.update(1L);
        visits.put(2L, 3L);

        assertThat(((ChronicleValueState<Long>)expiring).front()).isNull();
        assertThat(((ChronicleValueState<Long>)expiring).map().size()).isEqualTo(1);
        assertThat(store.entryCount()).isEqualTo(2);
    }

    @Test
    void theFrontIsSizedByAByteBudgetByDefaultAndOutOfRangeValuesAreRefusedByName()
    {
        final ChronicleStateConfig defaults = ChronicleStateConfig.defaults();

        assertThat(defaults.hotKeysPerState()).isEqualTo(ChronicleStateConfig.HOT_KEYS_FROM_BUDGET);
        // 64 MiB, or a sixteenth of the heap if less (surefire's 512 MB heap: 32 MiB)
        final long budget = Math.min(64L << 20, Runtime.getRuntime().maxMemory() / 16);
        assertThat(defaults.hotFrontBytesPerState()).isEqualTo(budget);
        // slots of 16 bytes, two per key; with change stamps (24 bytes a slot) fewer
        assertThat(defaults.hotKeyCapacity(true, false)).isEqualTo((int)(Long.highestOneBit(budget / 16) / 2));
        assertThat(defaults.hotKeyCapacity(true, true)).isEqualTo((int)(Long.highestOneBit(budget / 24) / 2));
        assertThat(ChronicleStateConfig.defaults().withHotFrontBytesPerState(64L << 20).hotKeyCapacity(true, false))
            .isEqualTo(1 << 21);
        // boxed fronts are copied at every barrier: they stay small whatever the budget
        assertThat(defaults.hotKeyCapacity(false, false)).isEqualTo(ChronicleStateConfig.BOXED_HOT_KEYS);
        assertThat(defaults.withHotKeysPerState(7).hotKeyCapacity(true, true)).isEqualTo(7);
        assertThat(defaults.withHotFrontBytesPerState(0).hotKeyCapacity(true, false)).isZero();
        assertThat(defaults.withHotKeysPerState(0).hotKeysPerState()).isZero();
        assertThat(defaults.withHotKeysPerState(ChronicleStateConfig.MAX_HOT_KEYS_PER_STATE).hotKeysPerState())
            .isEqualTo(1 << 27);
        assertThat(defaults.withHotKeysPerState(7).toString()).contains("hotKeysPerState=7");
        assertThatThrownBy(() -> defaults.withHotKeysPerState(-2))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("hotKeysPerState");
        assertThatThrownBy(() -> defaults.withHotKeysPerState(ChronicleStateConfig.MAX_HOT_KEYS_PER_STATE + 1))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("hotKeysPerState");
        assertThatThrownBy(() -> defaults.withHotFrontBytesPerState(1_000))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("hotFrontBytesPerState 1000").hasMessageContaining("32768");
        final long tooMuch = Runtime.getRuntime().maxMemory();
        assertThatThrownBy(() -> defaults.withHotFrontBytesPerState(tooMuch))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("hotFrontBytesPerState " + tooMuch).hasMessageContaining("maximum heap");
        final ChronicleKeyedStateStore store = open(ChronicleStateConfig.defaults().withExpectedEntriesPerState(1_000));
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class));
        assertThat(((ChronicleValueState<Long>)counts).front().capacity())
            .isEqualTo(defaults.hotKeyCapacity(true, false));
        final ValueState<String> names = store.getValueState(new ValueStateDescriptor<>("names", String.class));
        assertThat(((ChronicleValueState<String>)names).front().capacity())
            .isEqualTo(defaults.hotKeyCapacity(false, false));
    }

    // ------------------------------------------------------------------------------------------------ support

    /**
     * @param phase 0: three in four accesses to keys 0..15; 1: uniform over 0..1000; 2: three in four to 600..615.
     * @return a key.
     */
    private static long hotSkewedKey(final Random random, final int phase)
    {
        if (phase == 1 || random.nextInt(4) == 0)
        {
            return random.nextInt(1_001);
        }
        return (phase == 0 ? 0 : 600) + random.nextInt(16);
    }

    /**
     * @param config the store's configuration.
     * @param keys   keys 0..keys-1 get their own number as their count.
     * @param model  receives them.
     * @return a full snapshot of a store holding those counts in its state "counts".
     */
    private byte[] countersSnapshot(final ChronicleStateConfig config, final int keys, final Map<Object, Object> model)
    {
        final ChronicleKeyedStateStore first = open(config);
        final ValueState<Long> counts = first.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        for (long key = 0; key < keys; key++)
        {
            set(first, counts, model, key, key);
        }
        return SnapshotContents.take(first, 1);
    }

    private static void store(final ChronicleKeyedStateStore store, final long key)
    {
        store.setCurrentKey(key);
    }

    private static void set(
        final ChronicleKeyedStateStore store, final ValueState<Long> state, final Map<Object, Object> model,
        final long key, final long value)
    {
        store.setCurrentKey(key);
        state.update(value);
        model.put(key, value);
    }

    private static void clear(
        final ChronicleKeyedStateStore store, final ValueState<Long> state, final Map<Object, Object> model,
        final long key)
    {
        store.setCurrentKey(key);
        state.clear();
        model.remove(key);
    }

    /** Keys 0..keys-1 read back as the model says (null or the default when absent). */
    private static void assertEveryKey(
        final ChronicleKeyedStateStore store, final ValueState<Long> state, final Map<Object, Object> model,
        final long keys)
    {
        final Long absent;
        store.setCurrentKey(Long.MIN_VALUE);
        absent = state.value();
        for (long key = 0; key < keys; key++)
        {
            store.setCurrentKey(key);
            assertThat(state.value()).as("key %d", key).isEqualTo(model.getOrDefault(key, absent));
        }
    }

    private static Map<String, Map<Object, Object>> decode(final byte[] bytes)
    {
        return SnapshotContents.decode(bytes, CodecRegistry.withBuiltIns());
    }

    private static Map<String, Map<Object, Object>> merge(final byte[]... chain)
    {
        final List<KeyedSnapshotReader> readers = new ArrayList<>();
        for (int i = 0; i < chain.length; i++)
        {
            readers.add(KeyedSnapshotReader.open(chain[i], "snapshot-" + i));
        }
        return decode(KeyedSnapshotChain.mergeToBytes(readers, ALL));
    }

    private static void handOver(
        final SynchronousQueue<Integer> stopped, final SynchronousQueue<Boolean> resume, final int segment)
    {
        try
        {
            if (!stopped.offer(segment, 60, TimeUnit.SECONDS) || resume.poll(60, TimeUnit.SECONDS) == null)
            {
                throw new IllegalStateException("the test thread did not take over at segment " + segment);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private ChronicleKeyedStateStore open(final int hotKeys)
    {
        return open(ChronicleStateConfig.defaults().withExpectedEntriesPerState(50_000).withHotKeysPerState(hotKeys));
    }

    private ChronicleKeyedStateStore open(final ChronicleStateConfig config)
    {
        final ChronicleKeyedStateStore store =
            new ChronicleKeyedStateStore(config, CodecRegistry.withBuiltIns(), MAX_PARALLELISM, ALL);
        stores.add(store);
        return store;
    }
}
