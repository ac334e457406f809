package io.ringflow.state.chronicle;

import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.ListState;
import io.ringflow.state.keyed.ListStateDescriptor;
import io.ringflow.state.keyed.MapState;
import io.ringflow.state.keyed.MapStateDescriptor;
import io.ringflow.state.keyed.ReduceFunction;
import io.ringflow.state.keyed.ReducingState;
import io.ringflow.state.keyed.ReducingStateDescriptor;
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
 * Local recovery of the Chronicle store ({@code revertTo}): a store that took a checkpoint's snapshot and went on
 * changing (a failed attempt) is brought back to that barrier in place, and must then hold exactly what a new store
 * restored from the same checkpoint holds, and behave the same under the next attempt's writes.
 */
class ChronicleLocalRecoveryTest
{
    private static final int MAX_PARALLELISM = 128;
    private static final KeyGroupRange ALL = new KeyGroupRange(0, MAX_PARALLELISM - 1);

    private final List<ChronicleKeyedStateStore> stores = new ArrayList<>();

    @AfterEach
    void closeStores()
    {
        stores.forEach(ChronicleKeyedStateStore::close);
    }

    /** Every kind of state, declared as one attempt of a job would. */
    private static final class Attempt
    {
        final ChronicleKeyedStateStore store;
        final ValueState<Long> counts;
        final ValueState<String> names;
        final MapState<Integer, Long> visits;
        final ListState<Long> events;
        final ReducingState<Long> sums;
        /** Which attempt's reduce function ran last. */
        final int[] reducedBy;

        Attempt(final ChronicleKeyedStateStore store, final int attempt, final int[] reducedBy)
        {
            this.store = store;
            this.reducedBy = reducedBy;
            counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
            names = store.getValueState(new ValueStateDescriptor<>("names", String.class));
            visits = store.getMapState(new MapStateDescriptor<>("visits", Integer.class, Long.class));
            events = store.getListState(new ListStateDescriptor<>("events", Long.class));
            final ReduceFunction<Long> sum = (a, b) ->
            {
                reducedBy[0] = attempt;
                return a + b;
            };
            sums = store.getReducingState(new ReducingStateDescriptor<>("sums", sum, Long.class));
        }
    }

    /** The state every attempt should see, as plain maps. */
    private static final class Model
    {
        final Map<Object, Object> counts = new HashMap<>();
        final Map<Object, Object> names = new HashMap<>();
        final Map<Object, Map<Integer, Long>> visits = new HashMap<>();
        final Map<Object, List<Long>> events = new HashMap<>();
        final Map<Object, Object> sums = new HashMap<>();

        Map<String, Map<Object, Object>> expected()
        {
            return SnapshotContents.expected(Map.of("counts", counts, "names", names, "visits", visits, "events",
                events, "sums", sums));
        }

        Model copy()
        {
            final Model copy = new Model();
            copy.counts.putAll(counts);
            copy.names.putAll(names);
            visits.forEach((key, map) -> copy.visits.put(key, new HashMap<>(map)));
            events.forEach((key, list) -> copy.events.put(key, new ArrayList<>(list)));
            copy.sums.putAll(sums);
            return copy;
        }
    }

    /** One random operation on the store and the model; reads are checked against the model. */
    private static void operate(final Attempt attempt, final Model model, final Random random, final int keySpace)
    {
        final long key = random.nextInt(keySpace);
        attempt.store.setCurrentKey(key);
        switch (random.nextInt(12))
        {
            case 0, 1, 2 ->
            {
                assertThat(attempt.counts.value()).isEqualTo(model.counts.getOrDefault(key, 0L));
                final long next = attempt.counts.value() + 1;
                attempt.counts.update(next);
                model.counts.put(key, next);
            }
            case 3 ->
            {
                if (random.nextInt(4) == 0)
                {
                    // the one counter a front cannot hold unboxed: it lives in the map, and a revert that finds the
                    // key in the front must take it out there to write this value back
                    attempt.counts.update(Long.MIN_VALUE);
                    model.counts.put(key, Long.MIN_VALUE);
                }
                else
                {
                    attempt.counts.clear();
                    model.counts.remove(key);
                }
            }
            case 4 ->
            {
                assertThat(attempt.names.value()).isEqualTo(model.names.get(key));
                final String name = "n" + random.nextInt(1_000);
                attempt.names.update(name);
                model.names.put(key, name);
            }
            case 5 ->
            {
                attempt.names.clear();
                model.names.remove(key);
            }
            case 6 ->
            {
                final int userKey = random.nextInt(4);
                final long value = random.nextLong();
                attempt.visits.put(userKey, value);
                model.visits.computeIfAbsent(key, k -> new HashMap<>()).put(userKey, value);
            }
            case 7 ->
            {
                final int userKey = random.nextInt(4);
                attempt.visits.remove(userKey);
                final Map<Integer, Long> map = model.visits.get(key);
                if (map != null)
                {
                    map.remove(userKey);
                }
            }
            case 8 ->
            {
                final long value = random.nextInt(100);
                attempt.events.add(value);
                model.events.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
            }
            case 9 ->
            {
                attempt.events.clear();
                attempt.visits.clear();
                model.events.remove(key);
                model.visits.remove(key);
            }
            default ->
            {
                final long value = random.nextInt(10);
                attempt.sums.add(value);
                model.sums.merge(key, value, (a, b) -> (Long)a + (Long)b);
            }
        }
    }

    /**
     * Several failed attempts in a row, each reverted to the newest checkpoint whose snapshot was written (full, or a
     * delta whose chain is merged), with snapshots of later checkpoints written or released before the failure, and a
     * small hot-key front that turns over. After each revert, the store must equal the model at that barrier and a new
     * store restored from the same chain, and both must then read and snapshot the same under the same writes.
     */
    @ParameterizedTest(name = "seed {0}, {1} hot keys")
    @CsvSource({"7, 64", "424242, 64", "20261203, 4096", "99, 0"})
    void aRevertedStoreEqualsAFullRestoreOfTheSameCheckpoint(final long seed, final int hotKeys) throws Exception
    {
        final ChronicleStateConfig config = ChronicleStateConfig.defaults().withExpectedEntriesPerState(20_000)
            .withHotKeysPerState(hotKeys);
        final ChronicleKeyedStateStore store = open(config);
        store.trackChanges();
        final int[] reducedBy = new int[1];
        Attempt attempt = new Attempt(store, 1, reducedBy);
        Model model = new Model();
        final Random random = new Random(seed);
        final ExecutorService flusher = Executors.newSingleThreadExecutor();
        long nextId = 1;
        int reverts = 0;
        long rewritten = 0;
        try
        {
            for (int cycle = 0; cycle < 6; cycle++)
            {
                final int keySpace = 300 + random.nextInt(600);
                // the attempt until its last completed checkpoint: snapshots every so often, deltas on the last one
                final List<Future<byte[]>> written = new ArrayList<>();
                final List<List<Integer>> chains = new ArrayList<>();
                final List<Long> ids = new ArrayList<>();
                final List<Model> atBarrier = new ArrayList<>();
                final int snapshots = 2 + random.nextInt(4);
                for (int s = 0; s < snapshots; s++)
                {
                    for (int op = 0; op < 1_500; op++)
                    {
                        operate(attempt, model, random, keySpace);
                    }
                    final long id = nextId++;
                    final int base = written.size() - 1;
                    final boolean delta = base >= 0 && store.canSnapshotIncrementally(ids.get(base)) &&
                        random.nextBoolean();
                    final KeyedStateSnapshot snapshot = delta ? store.incrementalSnapshot(id, ids.get(base)) :
                        store.snapshot(id);
                    final List<Integer> chain = new ArrayList<>(delta ? chains.get(base) : List.of());
                    chain.add(written.size());
                    chains.add(chain);
                    ids.add(id);
                    atBarrier.add(model.copy());
                    written.add(flusher.submit(() -> SnapshotContents.write(snapshot)));
                    // the task goes on writing while the flusher reads (copy-on-write)
                    for (int op = 0; op < 300; op++)
                    {
                        operate(attempt, model, random, keySpace);
                    }
                    written.get(written.size() - 1).get(60, TimeUnit.SECONDS);
                }
                final int completed = written.size() - 1;
                final long checkpoint = ids.get(completed);
                // the failed attempt goes on past the checkpoint: more writes, a snapshot written but never
                // completed, one released (aborted), more writes
                for (int op = 0; op < 2_000; op++)
                {
                    operate(attempt, model, random, keySpace);
                }
                SnapshotContents.write(store.snapshot(nextId++));
                for (int op = 0; op < 500; op++)
                {
                    operate(attempt, model, random, keySpace);
                }
                store.snapshot(nextId++).release();
                for (int op = 0; op < 500; op++)
                {
                    operate(attempt, model, random, keySpace);
                }

                assertThat(store.canRevertTo(checkpoint)).as("seed %d cycle %d", seed, cycle).isTrue();
                rewritten += store.revertTo(checkpoint, List.of(chainOf(chains.get(completed), written)));
                reverts++;
                model = atBarrier.get(completed);
                final int attemptNumber = cycle + 2;
                attempt = new Attempt(store, attemptNumber, reducedBy);
                final ChronicleKeyedStateStore restoredStore = open(config);
                restoredStore.trackChanges();
                restoredStore.restore(List.of(chainOf(chains.get(completed), written)));
                final Attempt restored = new Attempt(restoredStore, attemptNumber, reducedBy);
                final Map<String, Map<Object, Object>> expected = model.expected();
                assertThat(decode(store, nextId++)).as("seed %d cycle %d: reverted", seed, cycle)
                    .isEqualTo(expected);
                assertThat(decode(restoredStore, nextId++)).as("seed %d cycle %d: restored", seed, cycle)
                    .isEqualTo(expected);
                assertThat(store.entryCount()).as("seed %d cycle %d", seed, cycle)
                    .isEqualTo(restoredStore.entryCount());
                assertThat(store.canSnapshotIncrementally(checkpoint)).as("the reverted checkpoint is a base again")
                    .isTrue();

                // the next attempt: the same writes on both, each read checked against the model
                final Model restoredModel = model.copy();
                final long replay = random.nextLong();
                final Random onReverted = new Random(replay);
                final Random onRestored = new Random(replay);
                for (int op = 0; op < 2_000; op++)
                {
                    operate(attempt, model, onReverted, keySpace);
                    operate(restored, restoredModel, onRestored, keySpace);
                }
                // a delta against the reverted checkpoint, on top of that checkpoint's chain, restores exactly what the
                // reverted store holds now: the revert's stamps and change sets let no changed key out
                final byte[] delta = SnapshotContents.write(store.incrementalSnapshot(nextId++, checkpoint));
                written.add(java.util.concurrent.CompletableFuture.completedFuture(delta));
                final List<Integer> withDelta = new ArrayList<>(chains.get(completed));
                withDelta.add(written.size() - 1);
                final ChronicleKeyedStateStore fromDelta = open(config);
                fromDelta.restore(List.of(chainOf(withDelta, written)));
                assertThat(decode(fromDelta, nextId++)).as("seed %d cycle %d: the delta after the revert", seed, cycle)
                    .isEqualTo(model.expected());
                stores.remove(fromDelta);
                fromDelta.close();
                assertThat(decode(store, nextId++)).as("seed %d cycle %d: reverted, then written", seed, cycle)
                    .isEqualTo(model.expected()).isEqualTo(decode(restoredStore, nextId++));
                random.nextLong();
                stores.remove(restoredStore);
                restoredStore.close();
            }
        }
        finally
        {
            flusher.shutdownNow();
        }
        assertThat(reverts).isEqualTo(6);
        assertThat(rewritten).as("seed %d: keys were rewritten", seed).isGreaterThan(0);
        attempt.store.setCurrentKey(1L);
        attempt.sums.add(1L);
        assertThat(reducedBy[0]).as("the last attempt's reduce function, rebound at its declaration").isEqualTo(7);
    }

    @Test
    void onlyTheKeysChangedSinceTheCheckpointAreRewritten()
    {
        final ChronicleKeyedStateStore store = open(ChronicleStateConfig.defaults().withExpectedEntriesPerState(
            20_000));
        store.trackChanges();
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        for (long key = 0; key < 5_000; key++)
        {
            store.setCurrentKey(key);
            counts.update(key);
        }
        final byte[] checkpoint = SnapshotContents.take(store, 1);
        for (final long key : new long[] {3, 4, 4_999})
        {
            store.setCurrentKey(key);
            counts.update(-1L);
        }
        store.setCurrentKey(7L);
        counts.clear();
        store.setCurrentKey(10_000L);
        counts.update(1L);

        assertThat(store.revertTo(1, List.of(SnapshotContents.reader(checkpoint)))).isEqualTo(5);
        assertThat(SnapshotContents.decode(SnapshotContents.take(store, 2), CodecRegistry.withBuiltIns()))
            .isEqualTo(SnapshotContents.decode(checkpoint, CodecRegistry.withBuiltIns()));
        store.setCurrentKey(4L);
        assertThat(counts.value()).isEqualTo(4L);
        store.setCurrentKey(7L);
        assertThat(counts.value()).isEqualTo(7L);
        store.setCurrentKey(10_000L);
        assertThat(counts.value()).isEqualTo(0L);
        assertThat(store.entryCount()).isEqualTo(5_000);
    }

    @Test
    void aStoreCannotBeRevertedWithoutTrackingToASnapshotItDidNotTakeAfterARestoreOrWhileOneIsPending()
    {
        final ChronicleKeyedStateStore untracked = open(ChronicleStateConfig.defaults());
        final byte[] taken = SnapshotContents.take(untracked, 1);
        assertThat(untracked.canRevertTo(1)).isFalse();
        assertThat(untracked.whyNotRevertibleTo(1)).isEqualTo("the store does not track changes");
        assertThatThrownBy(() -> untracked.revertTo(1, List.of(SnapshotContents.reader(taken))))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("checkpoint 1");

        final ChronicleKeyedStateStore store = open(ChronicleStateConfig.defaults());
        store.trackChanges();
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        store.setCurrentKey(1L);
        counts.update(1L);
        final byte[] first = SnapshotContents.take(store, 1);
        assertThat(store.canRevertTo(1)).isTrue();
        assertThat(store.whyNotRevertibleTo(1)).isNull();
        assertThat(store.canRevertTo(2)).as("never taken").isFalse();
        assertThat(store.whyNotRevertibleTo(2)).contains("did not take that checkpoint's snapshot");
        final KeyedStateSnapshot pending = store.snapshot(2);
        assertThat(store.canRevertTo(1)).as("a snapshot is pending").isFalse();
        assertThat(store.whyNotRevertibleTo(1)).isEqualTo("a snapshot of state 'counts' is still pending");
        assertThatThrownBy(() -> store.revertTo(1, List.of(SnapshotContents.reader(first))))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("pending");
        pending.release();
        assertThat(store.canRevertTo(1)).isTrue();

        final ChronicleKeyedStateStore restored = open(ChronicleStateConfig.defaults());
        restored.trackChanges();
        restored.restore(List.of(SnapshotContents.reader(first)));
        assertThat(restored.canRevertTo(1)).as("restored, not taken").isFalse();
        store.revertTo(1, List.of(SnapshotContents.reader(first)));
        assertThat(store.canRevertTo(1)).as("it holds checkpoint 1 again: a base").isTrue();
        store.forgetAllChanges();
        assertThat(store.canRevertTo(1)).as("forgotten").isFalse();
        assertThat(store.whyNotRevertibleTo(1)).contains("forgotten");
        store.close();
        assertThat(store.whyNotRevertibleTo(1)).isEqualTo("the store is closed");
    }

    private static KeyedSnapshotReader chainOf(final List<Integer> chain, final List<Future<byte[]>> written)
        throws Exception
    {
        final List<KeyedSnapshotReader> parts = new ArrayList<>();
        for (final int part : chain)
        {
            parts.add(KeyedSnapshotReader.open(written.get(part).get(60, TimeUnit.SECONDS), "snapshot-" + part));
        }
        return KeyedSnapshotChain.merge(parts, ALL);
    }

    private static Map<String, Map<Object, Object>> decode(final ChronicleKeyedStateStore store, final long id)
    {
        return SnapshotContents.decode(SnapshotContents.take(store, id), CodecRegistry.withBuiltIns());
    }

    /**
     * A revert keeps the store's maps, so the round of slices its deltas were in goes on: the third delta of a round
     * of three completes it, revert or not. A store restored from the same chain starts a round of its own.
     */
    @Test
    void aRevertGoesOnWithTheRoundOfSlicesARestoreStartsANewOne()
    {
        final ChronicleKeyedStateStore store = open(ChronicleStateConfig.defaults().withExpectedEntriesPerState(
            20_000));
        store.trackChanges();
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final List<byte[]> chain = new ArrayList<>();
        for (int checkpoint = 1; checkpoint <= 3; checkpoint++)
        {
            for (long key = 0; key < 3_000; key += checkpoint)
            {
                store.setCurrentKey(key);
                counts.update(key * checkpoint);
            }
            final KeyedStateSnapshot snapshot = checkpoint == 1 ? store.snapshot(checkpoint) :
                store.incrementalSnapshot(checkpoint, checkpoint - 1, 3);
            assertThat(snapshot.filesHoldingEverything()).as("checkpoint %d, within the round", checkpoint).isZero();
            chain.add(SnapshotContents.write(snapshot));
        }
        store.setCurrentKey(5L);
        counts.update(-5L);
        final List<KeyedSnapshotReader> readers = new ArrayList<>();
        for (final byte[] part : chain)
        {
            readers.add(SnapshotContents.reader(part));
        }
        store.revertTo(3, List.of(KeyedSnapshotChain.merge(readers, ALL)));
        final KeyedStateSnapshot third = store.incrementalSnapshot(4, 3, 3);
        assertThat(third.filesHoldingEverything()).as("the round's third delta, after the revert").isEqualTo(3);
        chain.add(SnapshotContents.write(third));

        final ChronicleKeyedStateStore restored = open(ChronicleStateConfig.defaults().withExpectedEntriesPerState(
            20_000));
        restored.trackChanges();
        final List<KeyedSnapshotReader> restoredChain = new ArrayList<>();
        for (final byte[] part : chain.subList(1, 4))
        {
            restoredChain.add(SnapshotContents.reader(part));
        }
        restored.restore(List.of(KeyedSnapshotChain.merge(restoredChain, ALL)));
        restored.restoredFrom(4);
        restored.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        assertThat(SnapshotContents.decode(SnapshotContents.take(restored, 5), CodecRegistry.withBuiltIns()))
            .as("the round alone holds the state").isEqualTo(SnapshotContents.decode(SnapshotContents.take(store, 5),
                CodecRegistry.withBuiltIns()));
        assertThat(restored.incrementalSnapshot(6, 4, 3).filesHoldingEverything())
            .as("a restored store starts its own round").isZero();
    }

    /**
     * A round's key that the front held at the checkpoint reverted to, written back to the map since (so the revert
     * writes its checkpoint value into the map), after its key groups' slice of the front and before its segments'
     * slice would have been read: the revert records the keys it rewrote as changed, so the next delta of the round
     * has them, and the round, cut to its files, still holds every key.
     */
    @Test
    void aKeyMovedFromTheFrontToTheMapByARevertIsInTheRoundThatGoesOn()
    {
        final ChronicleKeyedStateStore store = open(ChronicleStateConfig.defaults().withExpectedEntriesPerState(
            20_000).withHotKeysPerState(4_096));
        store.trackChanges();
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        for (long key = 0; key < 2_000; key++)
        {
            store.setCurrentKey(key);
            counts.update(key + 1);
        }
        final List<byte[]> chain = new ArrayList<>();
        chain.add(SnapshotContents.write(store.snapshot(1)));
        // the first delta of a round of two: the first half of the front's key groups, the first half of the (empty)
        // map's segments
        chain.add(SnapshotContents.write(store.incrementalSnapshot(2, 1, 2)));
        final byte[] atTwo = SnapshotContents.take(store, 3);
        store.writeBackHotKeys();
        final List<KeyedSnapshotReader> readers = new ArrayList<>();
        for (final byte[] part : chain)
        {
            readers.add(SnapshotContents.reader(part));
        }
        assertThat(store.revertTo(2, List.of(KeyedSnapshotChain.merge(readers, ALL)))).isEqualTo(2_000);
        final KeyedStateSnapshot roundEnd = store.incrementalSnapshot(4, 2, 2);
        assertThat(roundEnd.filesHoldingEverything()).as("the round's second delta").isEqualTo(2);
        final List<KeyedSnapshotReader> round = List.of(SnapshotContents.reader(chain.get(1)),
            SnapshotContents.reader(SnapshotContents.write(roundEnd)));
        assertThat(SnapshotContents.decode(KeyedSnapshotChain.mergeToBytes(round, ALL), CodecRegistry.withBuiltIns()))
            .as("the round alone, its full snapshot dropped").isEqualTo(SnapshotContents.decode(atTwo,
                CodecRegistry.withBuiltIns()));
    }

    private ChronicleKeyedStateStore open(final ChronicleStateConfig config)
    {
        final ChronicleKeyedStateStore store = new ChronicleKeyedStateStore(config, CodecRegistry.withBuiltIns(),
            MAX_PARALLELISM, ALL);
        stores.add(store);
        return store;
    }
}
