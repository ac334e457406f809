package io.ringflow.state.chronicle;

import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.heap.HeapKeyedStateStore;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.MapState;
import io.ringflow.state.keyed.MapStateDescriptor;
import io.ringflow.state.keyed.SnapshotContents;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;
import io.ringflow.state.snapshot.KeyedSnapshotChain;
import io.ringflow.state.snapshot.KeyedSnapshotReader;
import io.ringflow.state.snapshot.KeyedStateSnapshot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Incremental snapshots of the Chronicle store: deltas against a committed base, merged with their chain, must give
 * exactly the state at their barrier, while the task keeps writing and several snapshots are pending.
 */
class ChronicleIncrementalSnapshotTest
{
    private static final int MAX_PARALLELISM = 128;
    private static final KeyGroupRange ALL = new KeyGroupRange(0, MAX_PARALLELISM - 1);

    private final List<ChronicleKeyedStateStore> stores = new ArrayList<>();

    @AfterEach
    void closeStores()
    {
        stores.forEach(ChronicleKeyedStateStore::close);
    }

    @Test
    void aDeltaHoldsOnlyTheKeysChangedSinceItsBaseAndRestoresOnTopOfIt()
    {
        // without a hot-key front, which every delta carries whole (HotKeyFrontTest)
        final ChronicleKeyedStateStore store = open(config().withHotKeysPerState(0));
        store.trackChanges();
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class));
        final MapState<Integer, String> tags = store.getMapState(new MapStateDescriptor<>("tags", Integer.class,
            String.class));
        for (long key = 0; key < 1_000; key++)
        {
            store.setCurrentKey(key);
            counts.update(key);
            tags.put(1, "a" + key);
            tags.put(2, "b" + key);
        }
        final byte[] full = SnapshotContents.take(store, 1);
        assertThat(store.canSnapshotIncrementally(1)).isTrue();
        assertThat(store.canSnapshotIncrementally(0)).as("never taken").isFalse();

        store.setCurrentKey(3L);
        counts.update(33L);
        tags.remove(1);
        store.setCurrentKey(4L);
        counts.clear();
        tags.clear();
        store.setCurrentKey(5_000L);
        counts.update(5L);
        store.setCurrentKey(6L);
        counts.update(6L); // unchanged value: still a change

        final KeyedStateSnapshot pending = store.incrementalSnapshot(2, 1);
        assertThat(pending.isIncremental()).isTrue();
        final byte[] delta = SnapshotContents.write(pending);

        final KeyedSnapshotReader deltaReader = SnapshotContents.reader(delta);
        assertThat(deltaReader.isDelta()).isTrue();
        // counts: 3, 4 (tombstone), 5000, 6; tags: 3 (tombstone + b3), 4 (tombstone)
        assertThat(SnapshotContents.rawEntries(delta)).hasSize(7);

        final Map<String, Map<Object, Object>> merged = SnapshotContents.decode(
            KeyedSnapshotChain.mergeToBytes(List.of(SnapshotContents.reader(full), deltaReader), ALL),
            CodecRegistry.withBuiltIns());
        final Map<String, Map<Object, Object>> live = SnapshotContents.decode(SnapshotContents.take(store, 3),
            CodecRegistry.withBuiltIns());
        assertThat(merged).isEqualTo(live);
        assertThat(merged.get("counts")).containsEntry(3L, 33L).doesNotContainKey(4L).containsEntry(5_000L, 5L)
            .hasSize(1_000);
        assertThat(merged.get("tags")).containsEntry(3L, Map.of(2, "b3")).doesNotContainKey(4L).hasSize(999);

        assertThatThrownBy(() -> store.restore(List.of(deltaReader))).isInstanceOf(IllegalStateException.class);
        final HeapKeyedStateStore heap = new HeapKeyedStateStore();
        assertThatThrownBy(() -> heap.restore(List.of(deltaReader))).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("delta").hasMessageContaining("KeyedSnapshotChain");
    }

    @Test
    void aDeltaCarriesOnlyTheHotKeysChangedSinceItsBaseNotTheWholeFront()
    {
        final ChronicleKeyedStateStore store = open();
        store.trackChanges();
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        for (long key = 0; key < 500; key++)
        {
            store.setCurrentKey(key);
            counts.update(counts.value() + 1);
        }
        final byte[] full = SnapshotContents.take(store, 1);
        assertThat(SnapshotContents.rawEntries(full)).as("every key, from the front").hasSize(500);
        for (final long key : new long[] {7, 8, 400})
        {
            store.setCurrentKey(key);
            counts.update(counts.value() + 10);
        }
        final byte[] delta = SnapshotContents.write(store.incrementalSnapshot(2, 1));
        assertThat(SnapshotContents.rawEntries(delta)).as("the three keys changed in the front").hasSize(3);
        store.setCurrentKey(9L);
        counts.update(counts.value() + 1);
        final byte[] second = SnapshotContents.write(store.incrementalSnapshot(3, 1));
        assertThat(SnapshotContents.rawEntries(second)).as("changed since the same base").hasSize(4);

        final Map<String, Map<Object, Object>> merged = SnapshotContents.decode(KeyedSnapshotChain.mergeToBytes(
            List.of(SnapshotContents.reader(full), SnapshotContents.reader(second)), ALL),
            CodecRegistry.withBuiltIns());
        assertThat(merged).isEqualTo(SnapshotContents.decode(SnapshotContents.take(store, 4),
            CodecRegistry.withBuiltIns()));
        assertThat(merged.get("counts")).containsEntry(7L, 11L).containsEntry(9L, 2L).containsEntry(10L, 1L);
    }

    /**
     * A snapshot whose writing thread is interrupted (a failed attempt's flusher) stops reading and is released; the
     * store's next delta on the same base still holds every change since it, the abandoned interval's included.
     */
    @ParameterizedTest(name = "abandoned snapshot is a delta: {0}")
    @ValueSource(booleans = {true, false})
    void aSnapshotWrittenOnAnInterruptedThreadIsAbandonedAndTheNextDeltaHoldsEveryChange(final boolean delta)
        throws Exception
    {
        final ChronicleKeyedStateStore store = open(config().withHotKeysPerState(0));
        store.trackChanges();
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        for (long key = 0; key < 20_000; key++)
        {
            store.setCurrentKey(key);
            counts.update(key);
        }
        final byte[] full = SnapshotContents.take(store, 1);
        for (long key = 0; key < 20_000; key += 3)
        {
            store.setCurrentKey(key);
            counts.update(key + 1_000_000);
        }
        final KeyedStateSnapshot abandoned = delta ? store.incrementalSnapshot(2, 1) : store.snapshot(2);
        // written after the barrier, copy-on-write against the snapshot about to be abandoned
        for (long key = 0; key < 30_000; key += 5)
        {
            store.setCurrentKey(key);
            counts.update(-key);
        }
        Thread.currentThread().interrupt();
        try
        {
            assertThatThrownBy(() -> abandoned.writeTo(new java.io.ByteArrayOutputStream()))
                .isInstanceOf(java.io.InterruptedIOException.class).hasMessageContaining("checkpoint 2")
                .hasMessageContaining("abandoned");
            assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is kept").isTrue();
        }
        finally
        {
            Thread.interrupted();
        }
        assertThatThrownBy(() -> abandoned.writeTo(new java.io.ByteArrayOutputStream()))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("already written or released");
        for (long key = 1; key < 20_000; key += 7)
        {
            store.setCurrentKey(key);
            counts.clear();
        }
        final byte[] next = SnapshotContents.write(store.incrementalSnapshot(3, 1));
        assertThat(SnapshotContents.decode(KeyedSnapshotChain.mergeToBytes(List.of(SnapshotContents.reader(full),
            SnapshotContents.reader(next)), ALL), CodecRegistry.withBuiltIns()))
            .isEqualTo(SnapshotContents.decode(SnapshotContents.take(store, 4), CodecRegistry.withBuiltIns()));
    }

    @Test
    void aKeyChangedInSeveralIntervalsAndPreservedIsInTheDeltaOnce() throws Exception
    {
        final ChronicleKeyedStateStore store = new ChronicleKeyedStateStore(ChronicleStateConfig.defaults()
            .withExpectedEntriesPerState(20_000).withHotKeysPerState(0), CodecRegistry.withBuiltIns(),
            MAX_PARALLELISM, ALL);
        stores.add(store);
        store.trackChanges();
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        store.setCurrentKey(1L);
        counts.update(1L);
        final byte[] full = SnapshotContents.take(store, 1);
        counts.update(2L);
        SnapshotContents.take(store, 2);
        counts.update(3L);
        // key 1 is in the change sets of intervals 2 and 3; the task changes it again before the flush reads it
        final KeyedStateSnapshot delta = store.incrementalSnapshot(3, 1);
        counts.update(4L);
        final byte[] bytes = SnapshotContents.write(delta);
        assertThat(SnapshotContents.rawEntries(bytes)).hasSize(1);
        assertThat(SnapshotContents.decode(KeyedSnapshotChain.mergeToBytes(List.of(SnapshotContents.reader(full),
            SnapshotContents.reader(bytes)), ALL), CodecRegistry.withBuiltIns()).get("counts"))
            .containsExactly(Map.entry(1L, 3L));
    }

    /**
     * A delta costs about 1.5 times a full snapshot per key (docs/benchmarks.md), so the store asks for a full snapshot
     * only once more than half of the keys it holds changed since the base; new keys count as held and changed.
     */
    @Test
    void aFullSnapshotIsPreferredOnlyOnceMoreThanHalfOfTheKeysChanged()
    {
        final ChronicleKeyedStateStore store = open(config().withHotKeysPerState(0));
        store.trackChanges();
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        for (long key = 0; key < 1_000; key++)
        {
            store.setCurrentKey(key);
            counts.update(key);
        }
        SnapshotContents.take(store, 1);
        for (long key = 0; key < 500; key++)
        {
            store.setCurrentKey(key);
            counts.update(-key);
        }
        assertThat(store.prefersFullSnapshot(1)).as("500 of 1,000 keys changed").isFalse();
        store.setCurrentKey(500L);
        counts.update(1L);
        assertThat(store.prefersFullSnapshot(1)).as("501 of 1,000 keys changed").isTrue();
        store.setCurrentKey(1_000L);
        counts.update(1L);
        store.setCurrentKey(1_001L);
        counts.update(1L);
        assertThat(store.prefersFullSnapshot(1)).as("503 of 1,002 keys changed, two of them new").isTrue();
        SnapshotContents.take(store, 2);
        store.setCurrentKey(0L);
        counts.update(7L);
        assertThat(store.prefersFullSnapshot(2)).as("one key changed since checkpoint 2").isFalse();
    }

    @Test
    void changesAreForgottenWhenTheStoreIsEmptyOrNoBaseCommitsForLong()
    {
        final ChronicleKeyedStateStore store = open();
        store.trackChanges();
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        store.setCurrentKey(1L);
        counts.update(1L);
        SnapshotContents.take(store, 1);
        store.forgetAllChanges();
        assertThat(store.canSnapshotIncrementally(1)).isFalse();

        for (long id = 2; id < 2 + ChronicleKeyedStateStore.MAX_POSSIBLE_BASES + 6; id++)
        {
            counts.update(id);
            SnapshotContents.take(store, id);
        }
        final long last = 1 + ChronicleKeyedStateStore.MAX_POSSIBLE_BASES + 6;
        assertThat(store.canSnapshotIncrementally(2)).as("the oldest are no longer bases").isFalse();
        assertThat(store.canSnapshotIncrementally(last - ChronicleKeyedStateStore.MAX_POSSIBLE_BASES + 1)).isTrue();
        assertThat(store.canSnapshotIncrementally(last)).isTrue();
    }

    @Test
    void noDeltaWithoutTrackingOrAfterARestoreOrAgainstAForgottenBase()
    {
        final ChronicleKeyedStateStore untracked = open();
        SnapshotContents.take(untracked, 1);
        assertThat(untracked.canSnapshotIncrementally(1)).isFalse();
        assertThatThrownBy(() -> untracked.incrementalSnapshot(2, 1)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("not tracked");

        final ChronicleKeyedStateStore store = open();
        store.trackChanges();
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class));
        store.setCurrentKey(1L);
        counts.update(1L);
        final byte[] first = SnapshotContents.take(store, 1);
        SnapshotContents.take(store, 2);
        SnapshotContents.write(store.incrementalSnapshot(3, 2));
        assertThat(store.canSnapshotIncrementally(1)).as("bases only move forward").isFalse();

        final ChronicleKeyedStateStore restored = open();
        restored.trackChanges();
        restored.restore(List.of(SnapshotContents.reader(first)));
        assertThat(restored.canSnapshotIncrementally(1)).isFalse();
        final ValueState<Long> restoredCounts =
            restored.getValueState(new ValueStateDescriptor<>("counts", Long.class));
        SnapshotContents.take(restored, 4);
        restored.setCurrentKey(2L);
        restoredCounts.update(2L);
        final byte[] delta = SnapshotContents.write(restored.incrementalSnapshot(5, 4));
        assertThat(SnapshotContents.rawEntries(delta)).as("restored entries are not changes").hasSize(1);
    }

    @Test
    void aStateDeclaredAfterABarrierCarriesItsHotKeysChangesInTheNextDelta()
    {
        final ChronicleKeyedStateStore store = open();
        store.trackChanges();
        final ValueState<Long> first = store.getValueState(new ValueStateDescriptor<>("first", Long.class));
        store.setCurrentKey(1L);
        first.update(1L);
        final byte[] full = SnapshotContents.take(store, 1);
        final ValueState<Long> later = store.getValueState(new ValueStateDescriptor<>("later", Long.class));
        for (long key = 0; key < 10; key++)
        {
            store.setCurrentKey(key);
            later.update(key * 10);
        }
        store.setCurrentKey(null);

        final byte[] delta = SnapshotContents.write(store.incrementalSnapshot(2, 1));

        final Map<Object, Object> laterModel = new HashMap<>();
        for (long key = 0; key < 10; key++)
        {
            laterModel.put(key, key * 10);
        }
        assertThat(SnapshotContents.decode(KeyedSnapshotChain.mergeToBytes(List.of(SnapshotContents.reader(full),
            SnapshotContents.reader(delta)), ALL), CodecRegistry.withBuiltIns()))
            .isEqualTo(SnapshotContents.expected(Map.of("first", Map.of(1L, 1L), "later", laterModel)));
    }

    /**
     * Seeded: a store restored from a chain and told so ({@code restoredFrom}) bases its next deltas on that
     * checkpoint; each chain that extends the restored one, merged, equals the model, whichever keys were restored
     * into the hot-key front or the map, updated, cleared or new. A local-recovery revert does the same.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {5, 77, 2_026})
    void aStoreRestoredFromACheckpointExtendsItsChainWithDeltas(final long seed) throws Exception
    {
        final Random random = new Random(seed);
        final Map<Object, Object> countModel = new HashMap<>();
        final Map<Object, Map<Integer, Long>> visitModel = new HashMap<>();
        final ChronicleKeyedStateStore first = open();
        first.trackChanges();
        writeRandomly(first, random, 3_000, 2_000, countModel, visitModel);
        final List<byte[]> chain = new ArrayList<>();
        chain.add(SnapshotContents.take(first, 1));

        ChronicleKeyedStateStore store = first;
        long checkpoint = 1;
        for (int restart = 0; restart < 3; restart++)
        {
            final ChronicleKeyedStateStore restored = open();
            restored.trackChanges();
            restored.restore(List.of(KeyedSnapshotChain.merge(readers(chain), ALL)));
            assertThat(restored.canSnapshotIncrementally(checkpoint)).as("not without restoredFrom").isFalse();
            restored.restoredFrom(checkpoint);
            assertThat(restored.canSnapshotIncrementally(checkpoint)).isTrue();
            store = restored;
            for (int delta = 0; delta < 2; delta++)
            {
                writeRandomly(store, random, 500, 2_500, countModel, visitModel);
                final byte[] bytes = SnapshotContents.write(store.incrementalSnapshot(checkpoint + 1, checkpoint));
                assertThat(SnapshotContents.reader(bytes).isDelta()).isTrue();
                chain.add(bytes);
                checkpoint++;
                assertThat(SnapshotContents.decode(KeyedSnapshotChain.mergeToBytes(readers(chain), ALL),
                    CodecRegistry.withBuiltIns())).as("seed %d, restart %d, chain of %d", seed, restart, chain.size())
                    .isEqualTo(SnapshotContents.expected(Map.of("counts", countModel, "visits", visitModel)));
            }
        }
        final ChronicleKeyedStateStore declared = store;
        final long last = checkpoint;
        assertThatThrownBy(() -> declared.restoredFrom(last)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("before any state is declared");
    }

    /**
     * Seeded and in lock step: the flusher reads a delta of three intervals' change sets (a key may be in several)
     * segment by segment, and after each key it reads the task changes a few random keys, changed ones and others,
     * before the flusher reads on. The delta, merged on its base, is the state at its barrier, each key in it once;
     * the live state is the task's.
     */
    @ParameterizedTest(name = "seed {0}, rewrites a slice: {1}")
    @CsvSource({"11, false", "4096, false", "31337, false", "6, true", "2027, true", "90001, true"})
    void aDeltaReadSegmentBySegmentWhileTheTaskWritesIsTheStateAtItsBarrier(final long seed,
        final boolean rewritesSlice) throws Exception
    {
        // a delta that rewrites a slice rewrites the first of two here: half of the segments, read as a full
        // snapshot reads them (hot-key front on for odd seeds)
        final Random random = new Random(seed);
        final Map<Object, Object> countModel = new HashMap<>();
        final Map<Object, Map<Integer, Long>> visitModel = new HashMap<>();
        final ChronicleKeyedStateStore store = open(config().withHotKeysPerState(seed % 2 == 0 ? 0 : 64));
        store.trackChanges();
        final int keySpace = 3_000;
        writeRandomly(store, random, 6_000, keySpace, countModel, visitModel);
        final byte[] base = SnapshotContents.take(store, 1);
        for (int interval = 2; interval <= 4; interval++)
        {
            writeRandomly(store, random, 400, keySpace + 200, countModel, visitModel);
            if (interval < 4)
            {
                SnapshotContents.take(store, interval);
            }
        }
        final Map<String, Map<Object, Object>> atBarrier =
            SnapshotContents.expected(Map.of("counts", countModel, "visits", visitModel));
        final KeyedStateSnapshot delta = rewritesSlice ? store.incrementalSnapshot(4, 1, 2) :
            store.incrementalSnapshot(4, 1);

        final java.util.concurrent.SynchronousQueue<int[]> keyRead = new java.util.concurrent.SynchronousQueue<>();
        final java.util.concurrent.SynchronousQueue<Boolean> taskDone = new java.util.concurrent.SynchronousQueue<>();
        final ExecutorService flusher = Executors.newSingleThreadExecutor();
        try
        {
            final Future<byte[]> written = flusher.submit(() ->
            {
                final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
                ((ChronicleKeyedStateSnapshot)delta).writeTo(out, (stateIndex, segment) ->
                {
                    try
                    {
                        keyRead.put(new int[] {stateIndex, segment});
                        taskDone.take();
                    }
                    catch (final InterruptedException ex)
                    {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(ex);
                    }
                });
                return out.toByteArray();
            });
            int reads = 0;
            final Map<Integer, Integer> lastSegment = new HashMap<>();
            while (true)
            {
                final int[] read = keyRead.poll(10, TimeUnit.MILLISECONDS);
                if (read == null)
                {
                    if (written.isDone())
                    {
                        break;
                    }
                    continue;
                }
                assertThat(read[1]).as("seed %d: segments in order", seed)
                    .isGreaterThanOrEqualTo(lastSegment.getOrDefault(read[0], -1));
                lastSegment.put(read[0], read[1]);
                reads++;
                writeRandomly(store, random, 1 + random.nextInt(4), keySpace + 400, countModel, visitModel);
                taskDone.put(true);
            }
            final byte[] bytes = written.get(60, TimeUnit.SECONDS);
            assertThat(reads).as("seed %d: keys read from the map", seed).isGreaterThan(100);
            // throws on an entry written twice: a key in several change sets is read once
            assertThat(SnapshotContents.rawEntries(bytes)).as("seed %d", seed).isNotEmpty();
            assertThat(SnapshotContents.decode(KeyedSnapshotChain.mergeToBytes(List.of(SnapshotContents.reader(base),
                SnapshotContents.reader(bytes)), ALL), CodecRegistry.withBuiltIns())).as("seed %d", seed)
                .isEqualTo(atBarrier);
            assertThat(SnapshotContents.decode(SnapshotContents.take(store, 5), CodecRegistry.withBuiltIns()))
                .as("seed %d: the live state", seed)
                .isEqualTo(SnapshotContents.expected(Map.of("counts", countModel, "visits", visitModel)));
        }
        finally
        {
            flusher.shutdownNow();
        }
    }

    /** @return readers of a chain's parts, by index into {@code written}, once each is written. */
    private static List<KeyedSnapshotReader> openChain(final List<Integer> parts, final List<Future<byte[]>> written)
        throws Exception
    {
        final List<KeyedSnapshotReader> chain = new ArrayList<>();
        for (final int part : parts)
        {
            chain.add(KeyedSnapshotReader.open(written.get(part).get(60, TimeUnit.SECONDS), "snapshot-" + part));
        }
        return chain;
    }

    private static List<KeyedSnapshotReader> readers(final List<byte[]> chain)
    {
        final List<KeyedSnapshotReader> readers = new ArrayList<>();
        for (final byte[] part : chain)
        {
            readers.add(SnapshotContents.reader(part));
        }
        return readers;
    }

    /** One random write for the current key: an update, a clear, a user key put or removed, mirrored in the models. */
    private static void writeOne(final ValueState<Long> counts, final MapState<Integer, Long> visits,
        final Random random, final long key, final Map<Object, Object> countModel,
        final Map<Object, Map<Integer, Long>> visitModel)
    {
        switch (random.nextInt(8))
        {
            case 0, 1, 2 ->
            {
                final long next = counts.value() + 1;
                counts.update(next);
                countModel.put(key, next);
            }
            case 3 ->
            {
                counts.clear();
                countModel.remove(key);
            }
            case 4, 5 ->
            {
                final int userKey = random.nextInt(4);
                final long value = random.nextLong();
                visits.put(userKey, value);
                visitModel.computeIfAbsent(key, k -> new HashMap<>()).put(userKey, value);
            }
            case 6 ->
            {
                final int userKey = random.nextInt(4);
                visits.remove(userKey);
                final Map<Integer, Long> map = visitModel.get(key);
                if (map != null)
                {
                    map.remove(userKey);
                }
            }
            default ->
            {
                visits.clear();
                visitModel.remove(key);
            }
        }
    }

    /** Updates, clears and new keys on a value state and a map state, mirrored in the models. */
    private static void writeRandomly(final ChronicleKeyedStateStore store, final Random random, final int ops,
        final int keySpace, final Map<Object, Object> countModel, final Map<Object, Map<Integer, Long>> visitModel)
    {
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final MapState<Integer, Long> visits = store.getMapState(new MapStateDescriptor<>("visits", Integer.class,
            Long.class));
        for (int op = 0; op < ops; op++)
        {
            final long key = random.nextInt(keySpace);
            store.setCurrentKey(key);
            writeOne(counts, visits, random, key, countModel, visitModel);
        }
        store.setCurrentKey(null);
    }

    /**
     * Seeded random writes on a value state and a map state (updates, removals, clears, ever new keys) while
     * snapshots are taken at random barriers, full or delta against the newest committed one, several pending at once
     * and written by two flushers. A snapshot counts as committed once written; bases move forward. Each chain, merged,
     * must equal a copy of the model at its barrier, and restore into either backend.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {3, 424_242, 20_261_130})
    void everyChainMergedEqualsTheModelAtItsBarrier(final long seed) throws Exception
    {
        final ChronicleKeyedStateStore store = open();
        store.trackChanges();
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final MapState<Integer, Long> visits = store.getMapState(new MapStateDescriptor<>("visits", Integer.class,
            Long.class));
        final Map<Object, Object> countModel = new HashMap<>();
        final Map<Object, Map<Integer, Long>> visitModel = new HashMap<>();
        final Random random = new Random(seed);
        final ExecutorService flushers = Executors.newFixedThreadPool(2);
        final List<Future<byte[]>> written = new ArrayList<>();
        final List<List<Integer>> chains = new ArrayList<>();
        final List<Map<String, Map<Object, Object>>> expected = new ArrayList<>();
        int base = -1;
        int deltas = 0;
        int keySpace = 200;
        try
        {
            for (int op = 0; op < 40_000; op++)
            {
                if (random.nextInt(100) == 0)
                {
                    keySpace += 50;
                }
                final long key = random.nextInt(keySpace);
                store.setCurrentKey(key);
                writeOne(counts, visits, random, key, countModel, visitModel);
                if (random.nextInt(800) == 0)
                {
                    // commit: the newest snapshot written so far becomes the base
                    for (int i = written.size() - 1; i > base; i--)
                    {
                        if (random.nextBoolean())
                        {
                            written.get(i).get(60, TimeUnit.SECONDS);
                            base = i;
                            break;
                        }
                    }
                    final int id = written.size();
                    final boolean delta = base >= 0 && random.nextInt(4) != 0;
                    final KeyedStateSnapshot snapshot = delta ? store.incrementalSnapshot(id, base) :
                        store.snapshot(id);
                    final List<Integer> chain = new ArrayList<>(delta ? chains.get(base) : List.of());
                    chain.add(id);
                    chains.add(chain);
                    deltas += delta ? 1 : 0;
                    expected.add(SnapshotContents.expected(Map.of("counts", countModel, "visits", visitModel)));
                    written.add(flushers.submit(() -> SnapshotContents.write(snapshot)));
                }
            }
            assertThat(written).as("seed %d takes snapshots", seed).hasSizeGreaterThan(20);
            assertThat(deltas).as("seed %d takes deltas", seed).isGreaterThan(10);
            assertThat(chains.stream().mapToInt(List::size).max().orElse(0)).as("chains grow").isGreaterThan(2);
            for (int i = 0; i < written.size(); i++)
            {
                final List<KeyedSnapshotReader> chain = openChain(chains.get(i), written);
                final byte[] merged = KeyedSnapshotChain.mergeToBytes(chain, ALL);
                assertThat(SnapshotContents.decode(merged, CodecRegistry.withBuiltIns()))
                    .as("seed %d chain %s", seed, chains.get(i)).isEqualTo(expected.get(i));
            }
            final int last = written.size() - 1;
            final List<KeyedSnapshotReader> lastChain = openChain(chains.get(last), written);
            for (final KeyedStateStore target : List.of(open(), new HeapKeyedStateStore()))
            {
                target.restore(List.of(KeyedSnapshotChain.merge(lastChain, ALL)));
                final ValueState<Long> restoredCounts =
                    target.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
                target.getMapState(new MapStateDescriptor<>("visits", Integer.class, Long.class));
                assertThat(SnapshotContents.decode(SnapshotContents.take(target, 1_000),
                    CodecRegistry.withBuiltIns())).as("seed %d restored into %s", seed, target)
                    .isEqualTo(expected.get(last));
                target.setCurrentKey(0L);
                assertThat(restoredCounts.value()).isEqualTo(expected.get(last).getOrDefault("counts", Map.of())
                    .getOrDefault(0L, 0L));
            }
        }
        finally
        {
            flushers.shutdownNow();
        }
    }

    /**
     * As {@link #everyChainMergedEqualsTheModelAtItsBarrier}, with deltas that rewrite slices of the state (rounds of
     * three, hot-key front on or off by the seed) and now and then a plain delta or a full snapshot: whenever a delta
     * completes a round, its chain is cut to the round's files, its full snapshot dropped. Every chain, cut or not,
     * merged, must equal the model at its barrier, and the cut chains must be restorable.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {5, 77_777, 20_261_206, 8_675_309})
    void everyChainOfSliceRewritingDeltasCutToItsRoundEqualsTheModelAtItsBarrier(final long seed) throws Exception
    {
        final int slices = 3;
        final ChronicleKeyedStateStore store = open(config().withHotKeysPerState(seed % 2 == 0 ? 0 : 128));
        store.trackChanges();
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final MapState<Integer, Long> visits = store.getMapState(new MapStateDescriptor<>("visits", Integer.class,
            Long.class));
        final Map<Object, Object> countModel = new HashMap<>();
        final Map<Object, Map<Integer, Long>> visitModel = new HashMap<>();
        final Random random = new Random(seed);
        final ExecutorService flushers = Executors.newFixedThreadPool(2);
        final List<Future<byte[]>> written = new ArrayList<>();
        final List<List<Integer>> chains = new ArrayList<>();
        final List<Map<String, Map<Object, Object>>> expected = new ArrayList<>();
        int base = -1;
        int cuts = 0;
        int keySpace = 300;
        try
        {
            for (int op = 0; op < 40_000; op++)
            {
                if (random.nextInt(100) == 0)
                {
                    keySpace += 50;
                }
                final long key = random.nextInt(keySpace);
                store.setCurrentKey(key);
                writeOne(counts, visits, random, key, countModel, visitModel);
                if (random.nextInt(600) == 0)
                {
                    for (int i = written.size() - 1; i > base; i--)
                    {
                        if (random.nextInt(4) != 0)
                        {
                            written.get(i).get(60, TimeUnit.SECONDS);
                            base = i;
                            break;
                        }
                    }
                    final int id = written.size();
                    final int kind = base < 0 ? 0 : random.nextInt(20);
                    final KeyedStateSnapshot snapshot = kind == 0 ? store.snapshot(id) :
                        kind == 1 ? store.incrementalSnapshot(id, base) : store.incrementalSnapshot(id, base, slices);
                    final List<Integer> chain = new ArrayList<>(kind == 0 ? List.of() : chains.get(base));
                    chain.add(id);
                    final int holding = snapshot.filesHoldingEverything();
                    if (kind == 1 || kind == 0)
                    {
                        assertThat(holding).as("seed %d: a plain delta or a full snapshot cuts nothing", seed)
                            .isZero();
                    }
                    if (holding > 0 && holding < chain.size())
                    {
                        assertThat(holding).isEqualTo(slices);
                        chain.subList(0, chain.size() - holding).clear();
                        cuts++;
                    }
                    chains.add(chain);
                    expected.add(SnapshotContents.expected(Map.of("counts", countModel, "visits", visitModel)));
                    written.add(flushers.submit(() -> SnapshotContents.write(snapshot)));
                }
            }
            assertThat(written).as("seed %d takes snapshots", seed).hasSizeGreaterThan(30);
            assertThat(cuts).as("seed %d cuts chains to their rounds", seed).isGreaterThan(5);
            int deltasOnly = 0;
            for (int i = 0; i < written.size(); i++)
            {
                final List<KeyedSnapshotReader> chain = openChain(chains.get(i), written);
                deltasOnly += chain.get(0).isDelta() ? 1 : 0;
                final byte[] merged = KeyedSnapshotChain.mergeToBytes(chain, ALL);
                assertThat(SnapshotContents.decode(merged, CodecRegistry.withBuiltIns()))
                    .as("seed %d chain %s", seed, chains.get(i)).isEqualTo(expected.get(i));
            }
            assertThat(deltasOnly).as("seed %d: chains of deltas only", seed).isGreaterThan(5);
            final int last = written.size() - 1;
            final List<KeyedSnapshotReader> lastChain = openChain(chains.get(last), written);
            final KeyedStateStore target = open();
            target.restore(List.of(KeyedSnapshotChain.merge(lastChain, ALL)));
            target.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
            target.getMapState(new MapStateDescriptor<>("visits", Integer.class, Long.class));
            assertThat(SnapshotContents.decode(SnapshotContents.take(target, 1_000), CodecRegistry.withBuiltIns()))
                .as("seed %d restored", seed).isEqualTo(expected.get(last));
        }
        finally
        {
            flushers.shutdownNow();
        }
    }

    private ChronicleKeyedStateStore open()
    {
        return open(config());
    }

    private ChronicleKeyedStateStore open(final ChronicleStateConfig config)
    {
        final ChronicleKeyedStateStore store = new ChronicleKeyedStateStore(config, CodecRegistry.withBuiltIns(),
            MAX_PARALLELISM, ALL);
        stores.add(store);
        return store;
    }

    private static ChronicleStateConfig config()
    {
        return ChronicleStateConfig.defaults().withExpectedEntriesPerState(20_000);
    }
}
