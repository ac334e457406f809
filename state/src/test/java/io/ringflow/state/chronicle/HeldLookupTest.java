package io.ringflow.state.chronicle;

import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.ListState;
import io.ringflow.state.keyed.ListStateDescriptor;
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

/**
 * {@link ChronicleKeyedStateStore#holdLookups()}: a value state's read leaves its lookup open for the write that
 * follows. Reads and writes must behave exactly as without it, with other states' maps used in between, and
 * snapshots flushed concurrently must stay at their barriers, as long as the current key is cleared after each
 * record (what the engine does).
 */
class HeldLookupTest
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
    void aReadThenWriteOfOneKeyWorksWithOtherStatesUsedInBetween()
    {
        final ChronicleKeyedStateStore store = open(0);
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final ValueState<String> labels = store.getValueState(new ValueStateDescriptor<>("labels", String.class));
        final ListState<String> lines = store.getListState(new ListStateDescriptor<>("lines", String.class));
        final MapState<Integer, Long> visits = store.getMapState(new MapStateDescriptor<>("visits", Integer.class,
            Long.class));
        for (long key = 0; key < 2_000; key++)
        {
            store.setCurrentKey(key);
            final long count = counts.value();
            // another value state's read closes the first lookup; list and map states use their own maps
            labels.update("label-" + key + "-" + labels.value());
            lines.add("line-" + key);
            visits.put((int)(key % 3), key);
            counts.update(count + key);
            assertThat(counts.value()).isEqualTo(key);
            assertThat(counts.value()).as("a second read of the open lookup").isEqualTo(key);
            store.setCurrentKey(null);
        }
        for (long key = 0; key < 2_000; key += 7)
        {
            store.setCurrentKey(key);
            assertThat(counts.value()).isEqualTo(key);
            if (key % 2 == 0)
            {
                counts.clear();
                assertThat(counts.value()).isZero();
            }
            assertThat(labels.value()).isEqualTo("label-" + key + "-null");
            assertThat(lines.get()).containsExactly("line-" + key);
            assertThat(visits.get((int)(key % 3))).isEqualTo(key);
            store.setCurrentKey(null);
        }
        assertThat(store.entryCount()).isEqualTo(2_000 - 143 + 2_000 + 2_000 + 2_000);
    }

    @Test
    void aReadLeftOpenIsClosedByTheNextKeyASnapshotAndEntryCount()
    {
        final ChronicleKeyedStateStore store = open(0);
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        store.setCurrentKey(1L);
        counts.update(10L);
        assertThat(counts.value()).isEqualTo(10L);
        // every key of the same segment is reachable after the key changes
        for (long key = 2; key < 500; key++)
        {
            store.setCurrentKey(key);
            counts.update(counts.value() + 1);
        }
        store.setCurrentKey(1L);
        assertThat(counts.value()).isEqualTo(10L);
        assertThat(store.entryCount()).isEqualTo(499);
        assertThat(SnapshotContents.decode(SnapshotContents.take(store, 1), CodecRegistry.withBuiltIns())
            .get("counts")).hasSize(499).containsEntry(1L, 10L);
        store.setCurrentKey(1L);
        assertThat(counts.value()).isEqualTo(10L);
    }

    @Test
    void beforeWaitingLetsAFlusherReadTheSegmentOfAnOpenLookup() throws Exception
    {
        final ChronicleKeyedStateStore store = open(0);
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        store.setCurrentKey(1L);
        counts.update(10L);
        store.setCurrentKey(null);
        final KeyedStateSnapshot pending = store.snapshot(1);
        store.setCurrentKey(1L);
        final long count = counts.value();
        // the task would now wait for room in a full output ring: the flush must not wait for the task
        store.beforeWaiting();
        final ExecutorService flusher = Executors.newSingleThreadExecutor();
        try
        {
            final byte[] written = flusher.submit(() -> SnapshotContents.write(pending)).get(60, TimeUnit.SECONDS);
            assertThat(SnapshotContents.decode(written, CodecRegistry.withBuiltIns()).get("counts"))
                .containsExactly(Map.entry(1L, 10L));
        }
        finally
        {
            flusher.shutdownNow();
        }
        counts.update(count + 1);
        assertThat(counts.value()).isEqualTo(11L);
        store.setCurrentKey(null);
    }

    /**
     * Seeded random records over a value state with a small front (so both the front and the map paths run) and a
     * value state without one: each record reads then writes or clears some keys' states, then clears the current
     * key; snapshots, full or delta against a committed base, are taken between records and written by two flushers
     * while records go on. Every chain, merged, must equal the model at its barrier.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {13, 808, 20_261_130})
    void snapshotsWrittenWhileRecordsHoldLookupsStayAtTheirBarriers(final long seed) throws Exception
    {
        final ChronicleKeyedStateStore store = open(16);
        store.trackChanges();
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final ValueState<String> labels = store.getValueState(new ValueStateDescriptor<>("labels", String.class));
        final Map<Object, Object> countModel = new HashMap<>();
        final Map<Object, Object> labelModel = new HashMap<>();
        final Random random = new Random(seed);
        final ExecutorService flushers = Executors.newFixedThreadPool(2);
        final List<Future<byte[]>> written = new ArrayList<>();
        final List<List<Integer>> chains = new ArrayList<>();
        final List<Map<String, Map<Object, Object>>> expected = new ArrayList<>();
        int base = -1;
        try
        {
            for (int record = 0; record < 30_000; record++)
            {
                final long key = random.nextInt(4) == 0 ? random.nextInt(8) : random.nextInt(3_000);
                store.setCurrentKey(key);
                final long count = counts.value();
                switch (random.nextInt(6))
                {
                    case 0 ->
                    {
                        counts.clear();
                        countModel.remove(key);
                    }
                    case 1 ->
                    {
                        labels.value();
                        labels.update(null);
                        labelModel.remove(key);
                    }
                    case 2 ->
                    {
                        final String label = labels.value();
                        final String next = (label == null ? "" : label.substring(0, Math.min(label.length(), 6))) +
                            random.nextInt(10);
                        labels.update(next);
                        labelModel.put(key, next);
                    }
                    default ->
                    {
                        counts.update(count + 1);
                        countModel.put(key, count + 1);
                    }
                }
                store.setCurrentKey(null);
                if (random.nextInt(600) == 0)
                {
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
                    final boolean delta = base >= 0 && random.nextInt(3) != 0;
                    final KeyedStateSnapshot snapshot = delta ? store.incrementalSnapshot(id, base) :
                        store.snapshot(id);
                    final List<Integer> chain = new ArrayList<>(delta ? chains.get(base) : List.of());
                    chain.add(id);
                    chains.add(chain);
                    expected.add(SnapshotContents.expected(Map.of("counts", countModel, "labels", labelModel)));
                    written.add(flushers.submit(() -> SnapshotContents.write(snapshot)));
                }
            }
            assertThat(written).hasSizeGreaterThan(20);
            for (int i = 0; i < written.size(); i++)
            {
                final List<KeyedSnapshotReader> chain = new ArrayList<>();
                for (final int part : chains.get(i))
                {
                    chain.add(KeyedSnapshotReader.open(written.get(part).get(60, TimeUnit.SECONDS), "s-" + part));
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

    private ChronicleKeyedStateStore open(final int hotKeys)
    {
        final ChronicleKeyedStateStore store = new ChronicleKeyedStateStore(ChronicleStateConfig.defaults()
            .withExpectedEntriesPerState(20_000).withHotKeysPerState(hotKeys), CodecRegistry.withBuiltIns(),
            MAX_PARALLELISM, ALL);
        store.holdLookups();
        stores.add(store);
        return store;
    }
}
