package io.ringflow.state.chronicle;

import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.heap.HeapKeyedStateStore;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.KeyGroups;
import io.ringflow.state.keyed.ListState;
import io.ringflow.state.keyed.ListStateDescriptor;
import io.ringflow.state.keyed.LongValueState;
import io.ringflow.state.keyed.MapState;
import io.ringflow.state.keyed.MapStateDescriptor;
import io.ringflow.state.keyed.SnapshotContents;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;
import io.ringflow.state.snapshot.KeyedStateSnapshot;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapSegmentContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What only the Chronicle store has: its configuration, memory-mapped files, what happens when a map is full or an
 * entry too large, one key type per store, and the copy-on-write protocol driven step by step against the flusher's
 * progress through the segments. The keyed state contract itself is {@link ChronicleKeyedStateStoreConformanceTest}.
 */
class ChronicleKeyedStateStoreTest
{
    private static final int MAX_PARALLELISM = 128;
    private static final KeyGroupRange ALL = new KeyGroupRange(0, MAX_PARALLELISM - 1);

    private final List<ChronicleKeyedStateStore> stores = new ArrayList<>();

    @AfterEach
    void closeStores()
    {
        stores.forEach(ChronicleKeyedStateStore::close);
    }

    // ------------------------------------------------------------------------------------------------ configuration

    @Test
    void everyInvalidOptionIsRefusedByName()
    {
        final ChronicleStateConfig defaults = ChronicleStateConfig.defaults();

        assertThatThrownBy(() -> defaults.withExpectedEntriesPerState(0))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expectedEntriesPerState");
        assertThatThrownBy(() -> defaults.withAverageKeySize(0))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("averageKeySize");
        assertThatThrownBy(() -> defaults.withAverageValueSize(-1))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("averageValueSize");
        assertThatThrownBy(() -> defaults.withMaxEntrySize(1))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxEntrySize");
        assertThatThrownBy(() -> defaults.withMaxEntrySize(20))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxEntrySize")
            .hasMessageContaining("averageValueSize");
        assertThatThrownBy(() -> defaults.withPreservedCopyBytesPerState(1_000))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("preservedCopyBytesPerState 1000")
            .hasMessageContaining("maxEntrySize 16384");
        assertThatThrownBy(() -> defaults.withPreservedCopyBytesPerState(64 << 10).withMaxEntrySize(1 << 20))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("preservedCopyBytesPerState 65536")
            .hasMessageContaining("maxEntrySize 1048576");
        assertThatThrownBy(() -> defaults.withPreservedCopyBytesPerState(Runtime.getRuntime().maxMemory()))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("preservedCopyBytesPerState")
            .hasMessageContaining("half of this JVM's maximum heap");
        assertThat(defaults.withPreservedCopyBytesPerState(16_384 + 112).preservedCopyBytesPerState())
            .isEqualTo(16_384 + 112);
        assertThatThrownBy(() -> defaults.withMaxGrowthFactor(0.5))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxGrowthFactor");
        assertThatThrownBy(() -> defaults.withMaxGrowthFactor(Double.NaN))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxGrowthFactor");
        assertThatThrownBy(() -> new ChronicleKeyedStateStore(defaults, CodecRegistry.withBuiltIns(), 0, ALL))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxParallelism");
        assertThatThrownBy(() -> new ChronicleKeyedStateStore(defaults, CodecRegistry.withBuiltIns(), 64, ALL))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxParallelism 64");
    }

    @Test
    void aMaxEntrySizeTheMapsCannotHoldIsRefusedAtConstruction()
    {
        final ChronicleStateConfig config = ChronicleStateConfig.defaults().withExpectedEntriesPerState(1_000)
            .withMaxEntrySize(1 << 20);

        assertThatThrownBy(() -> new ChronicleKeyedStateStore(config))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("maxEntrySize 1048576").hasMessageContaining("expectedEntriesPerState 1000");
    }

    @Test
    void chronicleAnalyticsAreDisabled()
    {
        open(ChronicleStateConfig.defaults().withExpectedEntriesPerState(1_000));

        assertThat(System.getProperty("chronicle.analytics.disable")).isEqualTo("true");
    }

    // ------------------------------------------------------------------------------------------------ files

    @Test
    void aDirectoryThatIsAFileIsRefusedByName(@TempDir final Path temp) throws Exception
    {
        final Path file = Files.createFile(temp.resolve("not-a-directory"));

        assertThatThrownBy(() -> open(config().withDirectory(file)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(file.toString());
        assertThatThrownBy(() -> open(config().withDirectory(file.resolve("below"))))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(file.resolve("below").toString())
            .hasMessageContaining("cannot be created");
    }

    @Test
    void aDirectoryThatIsNotWritableIsRefusedByName(@TempDir final Path temp) throws Exception
    {
        final Path readOnly = Files.createDirectory(temp.resolve("read-only"));
        assumeTrue(readOnly.toFile().setWritable(false, false), "cannot make a directory read-only here");
        try
        {
            assumeTrue(!Files.isWritable(readOnly), "running as a user that can write anywhere (root)");

            assertThatThrownBy(() -> open(config().withDirectory(readOnly)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(readOnly.toString())
                .hasMessageContaining("not writable");
        }
        finally
        {
            readOnly.toFile().setWritable(true, false);
        }
    }

    @Test
    void aStateThatLivesInItsFrontNeverCreatesItsChronicleMapOrFile(@TempDir final Path temp) throws Exception
    {
        final ChronicleKeyedStateStore store = open(config().withDirectory(temp.resolve("state")));
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final ValueState<Long> unused = store.getValueState(new ValueStateDescriptor<>("unused", Long.class));
        for (long key = 0; key < 1_000; key++)
        {
            store.setCurrentKey(key);
            counts.update(counts.value() + key);
            assertThat(unused.value()).isNull();
        }
        final Map<Object, Object> snapshot = SnapshotContents.decode(SnapshotContents.take(store, 1),
            CodecRegistry.withBuiltIns()).get("counts");

        assertThat(snapshot).hasSize(1_000).containsEntry(999L, 999L);
        assertThat(((ChronicleValueState<Long>)counts).map().exists()).isFalse();
        assertThat(((ChronicleValueState<Long>)unused).map().exists()).isFalse();
        try (Stream<Path> list = Files.list(store.filesDirectory()))
        {
            assertThat(list).as("map files").isEmpty();
        }
        // the first write the front cannot take creates the map: a value it cannot hold unboxed
        store.setCurrentKey(5L);
        counts.update(Long.MIN_VALUE);
        assertThat(((ChronicleValueState<Long>)counts).map().exists()).isTrue();
        assertThat(counts.value()).isEqualTo(Long.MIN_VALUE);
        try (Stream<Path> list = Files.list(store.filesDirectory()))
        {
            assertThat(list.map(path -> path.getFileName().toString())).containsExactly("state-0.cm");
        }
        assertThat(store.entryCount()).isEqualTo(1_000);
    }

    @Test
    void persistedMapsLiveInTheStoresOwnDirectoryWhichCloseDeletes(@TempDir final Path temp) throws Exception
    {
        final Path directory = temp.resolve("state");
        // no hot-key front: every write reaches the maps, and so their files
        final ChronicleKeyedStateStore store = open(config().withDirectory(directory).withHotKeysPerState(0));
        final ValueState<String> labels = store.getValueState(new ValueStateDescriptor<>("labels", String.class));
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        for (long key = 0; key < 1_000; key++)
        {
            store.setCurrentKey(key);
            labels.update("label-" + key);
            counts.update(counts.value() + key);
        }
        final Path files = store.filesDirectory();

        assertThat(files.getParent()).isEqualTo(directory);
        try (Stream<Path> list = Files.list(files))
        {
            assertThat(list.map(path -> path.getFileName().toString()))
                .containsExactlyInAnyOrder("state-0.cm", "state-1.cm");
        }
        assertThat(SnapshotContents.decode(SnapshotContents.take(store, 1), CodecRegistry.withBuiltIns())
            .get("labels")).hasSize(1_000).containsEntry(999L, "label-999");

        store.close();
        store.close();

        assertThat(files).doesNotExist();
        assertThat(directory).isDirectory();
        assertThatThrownBy(() -> store.getValueState(new ValueStateDescriptor<>("labels", String.class)))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> store.snapshot(2)).isInstanceOf(IllegalStateException.class);
    }

    // ------------------------------------------------------------------------------------------------ limits

    @Test
    void aSizingChronicleCannotHonourIsRefusedWhenTheBackendIsConfigured()
    {
        assertThatThrownBy(() -> new ChronicleStateBackend(
            ChronicleStateConfig.defaults().withExpectedEntriesPerState(500)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("maxEntrySize 16384 is too large for maps sized for expectedEntriesPerState 500")
            .hasMessageContaining("lower maxEntrySize or raise expectedEntriesPerState");
        assertThat(new ChronicleStateBackend(
            ChronicleStateConfig.defaults().withExpectedEntriesPerState(500).withMaxEntrySize(1024)).config()
            .expectedEntriesPerState()).isEqualTo(500);
        assertThat(new ChronicleStateBackend().config().sizedAsDefaults()).isTrue();
        // stores of the default sizing skip the probe: the default must hold maxEntrySize (this throws otherwise)
        ChronicleKeyedStateStore.checkEntryCapacity(ChronicleStateConfig.defaults());
        // a sizing probed once is not probed again, and is refused again
        assertThatThrownBy(() -> ChronicleKeyedStateStore.checkEntryCapacity(
            ChronicleStateConfig.defaults().withExpectedEntriesPerState(500)))
            .hasMessageContaining("maxEntrySize 16384 is too large");
    }

    @ParameterizedTest(name = "{0} user entries per key")
    @ValueSource(ints = {1, 11, 40, 200})
    void aMapStateTakesTheConfiguredNumberOfUserEntriesWhateverTheirSpreadOverKeys(final int perKey)
    {
        // a map state keeps a key's whole map in one stored value, so its map is sized by keys and bytes; whatever the
        // spread, it takes at least the configured number of user entries (growth factor 1: no slack beyond
        // Chronicle's own). Sizing map states by keys of averageEntriesPerKey entries instead was tried: it took
        // only 1,638 entries of one per key.
        final ChronicleKeyedStateStore store = open(ChronicleStateConfig.defaults().withExpectedEntriesPerState(4_000)
            .withMaxGrowthFactor(1.0).withHotKeysPerState(0));
        final MapState<Long, Long> seen = store.getMapState(new MapStateDescriptor<>("seen", Long.class, Long.class));
        long stored = 0;
        try
        {
            for (long key = 0; stored < 1_000_000; key++)
            {
                store.setCurrentKey(key);
                for (long entry = 0; entry < perKey; entry++)
                {
                    seen.put(entry, key);
                    stored++;
                }
            }
        }
        catch (final IllegalStateException full)
        {
            assertThat(full).hasMessageContaining("is full");
        }
        // measured: 6,811, 6,591, 9,441 and 7,864 user entries for 1, 11, 40 and 200 per key
        assertThat(stored).as("user entries taken").isGreaterThanOrEqualTo(4_000);
    }

    @Test
    void aFullMapRefusesTheWriteNamingTheStateAndLosesNothing()
    {
        // every write reaches the map: no hot-key front
        final ChronicleKeyedStateStore store = open(ChronicleStateConfig.defaults().withExpectedEntriesPerState(1_000)
            .withMaxGrowthFactor(1.0).withHotKeysPerState(0));
        final ValueState<String> labels = store.getValueState(new ValueStateDescriptor<>("labels", String.class));
        for (long key = 0; key < 500; key++)
        {
            store.setCurrentKey(key);
            labels.update("v" + key);
        }
        final KeyedStateSnapshot pending = store.snapshot(1);

        long key = 500;
        IllegalStateException refused = null;
        while (refused == null && key < 1_000_000)
        {
            store.setCurrentKey(key);
            try
            {
                labels.update("v" + key);
                key++;
            }
            catch (final IllegalStateException ex)
            {
                refused = ex;
            }
        }

        assertThat(refused).as("Chronicle Map 3.25 refuses an entry beyond its last extra tier").isNotNull()
            .hasMessageContaining("'labels' is full").hasMessageContaining("expectedEntriesPerState 1000")
            .hasMessageContaining("maxGrowthFactor").hasMessageContaining("nothing was changed");
        assertThat(key).as("it takes more entries than configured, in extra tiers").isGreaterThan(1_000);
        final long full = key;
        assertThat(labels.value()).as("the refused key").isNull();
        assertThat(store.entryCount()).isEqualTo(full);

        // larger values need room the map may no longer have: each key ends with its old value or its new one
        final String longer = "x".repeat(200);
        int replaced = 0;
        for (long k = 0; k < full; k++)
        {
            store.setCurrentKey(k);
            try
            {
                labels.update(longer);
                replaced++;
                assertThat(labels.value()).isEqualTo(longer);
            }
            catch (final IllegalStateException ex)
            {
                assertThat(ex).hasMessageContaining("'labels' is full");
                assertThat(labels.value()).as("key %d after a refused replacement", k).isEqualTo("v" + k);
            }
        }
        assertThat(replaced).as("replacements accepted in a full map").isLessThan((int)full);
        assertThat(store.entryCount()).isEqualTo(full);

        // the snapshot pending all along still holds its barrier
        final Map<String, Map<Object, Object>> contents =
            SnapshotContents.decode(SnapshotContents.write(pending), CodecRegistry.withBuiltIns());
        assertThat(contents.get("labels")).hasSize(500).containsEntry(499L, "v499").doesNotContainKey(500L);

        // once room is made, writes succeed again
        for (long k = 0; k < full; k++)
        {
            store.setCurrentKey(k);
            labels.clear();
        }
        store.setCurrentKey(full);
        labels.update("again");
        assertThat(labels.value()).isEqualTo("again");
    }

    /**
     * Chronicle Map 3.25 loses entries when it fails to move a grown value in a full map; the store refuses such
     * writes first. Seeded random inserts, growing and shrinking replacements and deletes on a map far too small:
     * after every operation, refused or not, the store must agree with a model.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {5, 77, 20_261_130})
    void aFullMapNeverLosesAnEntryWhateverItRefuses(final long seed)
    {
        // a front of 1,024 keys: the rest of the 6,000 keys must fill the map
        final ChronicleKeyedStateStore store = open(ChronicleStateConfig.defaults().withExpectedEntriesPerState(1_000)
            .withMaxGrowthFactor(2.0).withHotKeysPerState(1_024));
        final ValueState<String> labels = store.getValueState(new ValueStateDescriptor<>("labels", String.class));
        final Map<Long, String> model = new HashMap<>();
        final Random random = new Random(seed);
        int refused = 0;
        for (int op = 0; op < 30_000; op++)
        {
            final long key = random.nextInt(6_000);
            store.setCurrentKey(key);
            if (random.nextInt(10) < 2)
            {
                labels.clear();
                model.remove(key);
            }
            else
            {
                final String value = "x".repeat(1 + random.nextInt(80));
                try
                {
                    labels.update(value);
                    model.put(key, value);
                }
                catch (final IllegalStateException ex)
                {
                    assertThat(ex).hasMessageContaining("'labels' is full");
                    refused++;
                }
            }
            assertThat(labels.value()).as("seed %d op %d key %d", seed, op, key).isEqualTo(model.get(key));
            if (op % 2_000 == 0)
            {
                assertThat(store.entryCount()).as("seed %d op %d", seed, op).isEqualTo(model.size());
            }
        }
        assertThat(refused).as("the map filled up").isPositive();
        for (long key = 0; key < 6_000; key++)
        {
            store.setCurrentKey(key);
            assertThat(labels.value()).as("seed %d key %d", seed, key).isEqualTo(model.get(key));
        }
        assertThat(store.entryCount()).isEqualTo(model.size());
    }

    @Test
    void aValueLargerThanTheMaxEntrySizeIsRefusedNamingTheStateAndChangesNothing()
    {
        final ChronicleKeyedStateStore store = open(config().withMaxEntrySize(1_024));
        final ValueState<byte[]> blobs = store.getValueState(new ValueStateDescriptor<>("blobs", byte[].class));
        store.setCurrentKey(1L);
        // key 8 bytes + value 4-byte length + 1012 bytes = 1024
        final byte[] largest = new byte[1_012];
        Arrays.fill(largest, (byte)7);
        blobs.update(largest);
        assertThat(blobs.value()).isEqualTo(largest);

        assertThatThrownBy(() -> blobs.update(new byte[1_013]))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'blobs'")
            .hasMessageContaining("maxEntrySize").hasMessageContaining("1024");
        assertThatThrownBy(() -> blobs.update(new byte[10 << 20]))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'blobs'");
        assertThat(blobs.value()).isEqualTo(largest);
    }

    @Test
    void aKeyLargerThanTheMaxEntrySizeIsRefusedNamingTheState()
    {
        final ChronicleKeyedStateStore store = open(config().withMaxEntrySize(1_024));
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class));
        store.setCurrentKey("k".repeat(2_000));

        assertThatThrownBy(() -> counts.update(1L)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("'counts'").hasMessageContaining("key").hasMessageContaining("maxEntrySize");
        assertThat(store.entryCount()).isZero();
    }

    @Test
    void aStoresKeysAllHaveOneType()
    {
        final ChronicleKeyedStateStore store = open(config());
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class));
        store.setCurrentKey(1L);
        counts.update(1L);
        store.setCurrentKey("1");

        assertThatThrownBy(counts::value).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("'counts'").hasMessageContaining("java.lang.String")
            .hasMessageContaining("java.lang.Long");
    }

    @Test
    void aSnapshotIsWrittenOnce()
    {
        final ChronicleKeyedStateStore store = open(config());
        store.getValueState(new ValueStateDescriptor<>("counts", Long.class));
        final KeyedStateSnapshot snapshot = store.snapshot(1);
        SnapshotContents.write(snapshot);

        assertThatThrownBy(() -> snapshot.writeTo(new ByteArrayOutputStream()))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("already written");
    }

    /** With the hot-key front (1,024 keys: all of them hot) and without (every access a Chronicle call). */
    @ParameterizedTest(name = "hotKeysPerState {0}")
    @ValueSource(ints = {0, 1_024})
    void readingAndUpdatingAValueAllocatesNothingOnceWarm(final int hotKeys)
    {
        final com.sun.management.ThreadMXBean threads = allocationCounters();
        final ChronicleKeyedStateStore store = open(config().withHotKeysPerState(hotKeys));
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final Long[] keys = new Long[1_000];
        for (int i = 0; i < keys.length; i++)
        {
            keys[i] = 1_000_000L + i;
        }
        final Runnable increments = () ->
        {
            for (int i = 0; i < 200_000; i++)
            {
                store.setCurrentKey(keys[i % keys.length]);
                // values stay below 128: Long.valueOf does not allocate, so what is measured is the store
                counts.update((counts.value() + 1) & 63);
            }
        };
        increments.run();

        assertThat(leastAllocatedOfRounds(threads, increments, 64 * 1024)).as("bytes allocated by 200,000 increments")
            .isLessThan(64 * 1024);
    }

    /** @return this JVM's per-thread allocation counters; the test is skipped where there are none. */
    private static com.sun.management.ThreadMXBean allocationCounters()
    {
        assumeTrue(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean);
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
        return threads;
    }

    /**
     * The least of up to five measured rounds, stopping at the first under {@code bound}: a JIT compilation finishing
     * during one round may allocate on this thread, but one allocation per operation would put every round far above
     * the bound.
     *
     * @return the least bytes this thread allocated running {@code work} once.
     */
    private static long leastAllocatedOfRounds(final com.sun.management.ThreadMXBean threads, final Runnable work,
        final long bound)
    {
        long least = Long.MAX_VALUE;
        for (int round = 0; round < 5 && least >= bound; round++)
        {
            final long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
            work.run();
            least = Math.min(least, threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before);
        }
        return least;
    }

    /**
     * With changes tracked for incremental snapshots, an unboxed update of a front-held counter stamps its change in
     * the front's table: no key object per record (it used to box the key on this path), and the change reaches the
     * next delta.
     */
    @Test
    void anUnboxedUpdateWithChangesTrackedAllocatesNothingAndReachesTheDelta()
    {
        final com.sun.management.ThreadMXBean threads = allocationCounters();
        final ChronicleKeyedStateStore store = open(config());
        store.trackChanges();
        final LongValueState counts = store.getLongValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        // keys far outside Long's cache of boxes, so that a boxed key would be an allocation
        final long[] keys = new long[1_000];
        final int[] groups = new int[keys.length];
        for (int i = 0; i < keys.length; i++)
        {
            keys[i] = 1_000_000L + i;
            groups[i] = KeyGroups.keyGroupOf(keys[i], MAX_PARALLELISM);
        }
        final Runnable increments = () ->
        {
            for (int i = 0; i < 200_000; i++)
            {
                store.setCurrentKey(keys[i % keys.length], groups[i % keys.length]);
                counts.update(counts.value() + 1);
            }
        };
        increments.run();
        store.snapshot(1).release();

        assertThat(leastAllocatedOfRounds(threads, increments, 64 * 1024))
            .as("bytes allocated by 200,000 tracked increments").isLessThan(64 * 1024);

        // one key changed after checkpoint 2: the delta on 2 holds it, with its newest value, and nothing else
        SnapshotContents.take(store, 2);
        store.setCurrentKey(keys[7], groups[7]);
        counts.update(-5);
        final Map<String, Map<Object, Object>> delta = SnapshotContents.decode(
            SnapshotContents.write(store.incrementalSnapshot(3, 2)), CodecRegistry.withBuiltIns());
        assertThat(delta.get("counts")).containsExactly(Map.entry(keys[7], -5L));
    }

    /**
     * The synchronous part of a snapshot (the barrier's work on the task thread) copies the hot-key front of states
     * that are not {@code Long} counters, takes the occupied-segment bitmaps without copying them, and counts nothing
     * by visiting segments: what it allocates is the same for maps sized for a thousand entries and for ten million
     * (thousands of segments), counted in bytes, not timed.
     */
    @Test
    void theSynchronousPartDoesNotGrowWithTheMapsCapacity()
    {
        final com.sun.management.ThreadMXBean threads = allocationCounters();
        final long[] smallSegments = new long[1];
        final long[] largeSegments = new long[1];
        final long small = syncPartBytes(threads, ChronicleStateConfig.defaults().withExpectedEntriesPerState(1_000),
            smallSegments);
        final long large = syncPartBytes(threads,
            ChronicleStateConfig.defaults().withExpectedEntriesPerState(10_000_000), largeSegments);

        assertThat(largeSegments[0]).as("segments per map").isGreaterThan(smallSegments[0]);
        // a copy of the counts' bitmap alone would be 8 x (segments / 64) bytes more
        assertThat(8 * ((largeSegments[0] + 63) / 64)).as("bytes of one bitmap").isGreaterThan(64);
        assertThat(large).as("bytes of one synchronous part, maps of %d segments vs %d (%d bytes)", largeSegments[0],
            smallSegments[0], small).isLessThanOrEqualTo(small + 64);
    }

    /**
     * @return the least bytes allocated by {@code snapshot(id)} over a few rounds, 200 keys in two states; the maps'
     *     number of segments in {@code segments[0]}.
     */
    private long syncPartBytes(final com.sun.management.ThreadMXBean threads, final ChronicleStateConfig config,
        final long[] segments)
    {
        final ChronicleKeyedStateStore store = open(config);
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        segments[0] = ((ChronicleValueState<Long>)counts).map().created().segments();
        final ValueState<String> names = store.getValueState(new ValueStateDescriptor<>("names", String.class, ""));
        for (long key = 0; key < 200; key++)
        {
            store.setCurrentKey(key);
            counts.update(key);
            names.update("n" + key);
        }
        long least = Long.MAX_VALUE;
        for (int round = 0; round < 20; round++)
        {
            final long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
            final KeyedStateSnapshot snapshot = store.snapshot(round + 1);
            least = Math.min(least, threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before);
            snapshot.release();
        }
        store.close();
        return least;
    }

    // ------------------------------------------------------------------------------------------------ other kinds

    @Test
    void aMapStateKeepsAllOfAKeysEntriesInOneStoredValue()
    {
        final ChronicleKeyedStateStore store = open(config());
        final MapState<String, Long> visits =
            store.getMapState(new MapStateDescriptor<>("visits", String.class, Long.class));
        for (long key = 0; key < 3; key++)
        {
            store.setCurrentKey(key);
            for (int page = 0; page < 5; page++)
            {
                visits.put("page-" + page, key * page);
            }
        }

        assertThat(((ChronicleMapState<?, ?>)visits).map().size()).as("stored values: one per key").isEqualTo(3);
        assertThat(store.entryCount()).as("entries: one per user key").isEqualTo(15);
    }

    @Test
    void aKeysMapLargerThanTheMaxEntrySizeIsRefusedNamingTheStateAndChangesNothing()
    {
        final ChronicleKeyedStateStore store = open(config().withMaxEntrySize(1_024));
        final MapState<Long, byte[]> blobs = store.getMapState(new MapStateDescriptor<>("blobs", Long.class,
            byte[].class));
        store.setCurrentKey(1L);
        long userKey = 0;
        IllegalArgumentException refused = null;
        while (refused == null)
        {
            try
            {
                blobs.put(userKey, new byte[100]);
                userKey++;
            }
            catch (final IllegalArgumentException ex)
            {
                refused = ex;
            }
        }

        assertThat(refused).hasMessageContaining("'blobs'").hasMessageContaining("the map of the current key")
            .hasMessageContaining("maxEntrySize");
        // the key's 8 bytes, the count's 4, then per user key 4 + 8 + 4 + (4 + 100): 8 fit in 1024
        assertThat(userKey).isEqualTo(8);
        assertThat(blobs.contains(userKey)).isFalse();
        assertThat(blobs.keys()).hasSize(8);
        assertThat(store.entryCount()).isEqualTo(8);
        store.setCurrentKey(2L);
        blobs.put(userKey, new byte[100]);
        assertThat(blobs.get(userKey)).hasSize(100);
    }

    @Test
    void aListLargerThanTheMaxEntrySizeIsRefusedNamingTheStateAndChangesNothing()
    {
        final ChronicleKeyedStateStore store = open(config().withMaxEntrySize(1_024));
        final ListState<String> lines = store.getListState(new ListStateDescriptor<>("lines", String.class));
        store.setCurrentKey(1L);
        final String line = "x".repeat(92);
        int added = 0;
        IllegalArgumentException refused = null;
        while (refused == null)
        {
            try
            {
                lines.add(line);
                added++;
            }
            catch (final IllegalArgumentException ex)
            {
                refused = ex;
            }
        }

        assertThat(refused).hasMessageContaining("'lines'").hasMessageContaining("maxEntrySize");
        assertThat(added).as("elements of 4 + 4 + 92 bytes after the count, with the key's 8, in 1024").isEqualTo(10);
        assertThat(lines.get()).hasSize(10);
        assertThatThrownBy(() -> lines.update(java.util.Collections.nCopies(11, line)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'lines'");
        assertThat(lines.get()).hasSize(10);
    }

    /**
     * Restored counters in the map (no hot-key front to keep them in) are not read again when their state is declared
     * with the built-in codecs, which decode any 8 bytes; other values are, and so are counters declared with a codec
     * registered in the built-in's place, which may refuse them.
     */
    @Test
    void restoredCountersAreNotScannedAtDeclarationUnlessADeclaredCodecMightRefuseThem()
    {
        final HeapKeyedStateStore heap = new HeapKeyedStateStore();
        final ValueState<Long> heapCounts = heap.getValueState(new ValueStateDescriptor<>("counts", Long.class));
        final ValueState<String> heapNames = heap.getValueState(new ValueStateDescriptor<>("names", String.class));
        for (long key = 0; key < 5_000; key++)
        {
            heap.setCurrentKey(key);
            heapCounts.update(key * 3);
            heapNames.update("n" + key);
        }
        final byte[] bytes = SnapshotContents.take(heap, 1);

        final ChronicleKeyedStateStore builtIn = open(config().withHotKeysPerState(0));
        builtIn.restore(List.of(SnapshotContents.reader(bytes)));
        final ValueState<Long> counts = builtIn.getValueState(new ValueStateDescriptor<>("counts", Long.class));
        assertThat(builtIn.restoredEntriesChecked()).as("counters read at declaration").isZero();
        final ValueState<String> names = builtIn.getValueState(new ValueStateDescriptor<>("names", String.class));
        assertThat(builtIn.restoredEntriesChecked()).as("strings read at declaration").isEqualTo(5_000);
        builtIn.setCurrentKey(4_321L);
        assertThat(counts.value()).isEqualTo(4_321L * 3);
        assertThat(names.value()).isEqualTo("n4321");

        final CodecRegistry narrowLongs = CodecRegistry.withBuiltIns().register(Long.class,
            new io.ringflow.state.codec.Codec<Long>()
            {
                @Override
                public Class<Long> type()
                {
                    return Long.class;
                }

                @Override
                public int encode(final Long value, final io.ringflow.state.codec.CodecBuffer buffer,
                    final int offset)
                {
                    buffer.putInt(offset, value.intValue());
                    return Integer.BYTES;
                }

                @Override
                public Long decode(final io.ringflow.state.codec.CodecBuffer buffer, final int offset,
                    final int length)
                {
                    if (length != Integer.BYTES)
                    {
                        throw new IllegalArgumentException("a narrow long has 4 bytes, not " + length);
                    }
                    return (long)buffer.getInt(offset);
                }
            });
        final ChronicleKeyedStateStore replaced =
            new ChronicleKeyedStateStore(config().withHotKeysPerState(0), narrowLongs, MAX_PARALLELISM, ALL);
        stores.add(replaced);
        replaced.restore(List.of(SnapshotContents.reader(bytes)));

        assertThatThrownBy(() -> replaced.getValueState(new ValueStateDescriptor<>("counts", Long.class)))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("'counts'")
            .hasMessageContaining("cannot decode");
    }

    @Test
    void aRestoredMapLargerThanTheMaxEntrySizeIsRefusedNamingTheState()
    {
        final HeapKeyedStateStore heap = new HeapKeyedStateStore();
        final MapState<Long, byte[]> blobs = heap.getMapState(new MapStateDescriptor<>("blobs", Long.class,
            byte[].class));
        heap.setCurrentKey(1L);
        for (long userKey = 0; userKey < 20; userKey++)
        {
            blobs.put(userKey, new byte[100]);
        }
        final byte[] bytes = SnapshotContents.take(heap, 1);
        final ChronicleKeyedStateStore store = open(config().withMaxEntrySize(1_024));

        assertThatThrownBy(() -> store.restore(List.of(SnapshotContents.reader(bytes))))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("'blobs'")
            .hasMessageContaining("whole map").hasMessageContaining("raise maxEntrySize");
    }

    // ------------------------------------------------------------------------------------------------ copy-on-write

    /**
     * The flusher is stopped after two segments of the live map (the middle one, and the next, which the task has
     * emptied meanwhile); at each stop the task updates, deletes, re-inserts and inserts keys in segments already read
     * and not yet read. The snapshot must be the state at the barrier, each key once. With as many keys at the barrier
     * as {@link PendingStateSnapshot#FILTER_FROM_ENTRIES} or more, the copies are also marked in its filter of
     * preserved keys, which both the task and the flusher consult before the map of copies.
     */
    @ParameterizedTest(name = "{0} keys at the barrier")
    @ValueSource(ints = {4_000, 70_000})
    void writesBeforeDuringAndAfterTheFlushersVisitOfTheirSegmentLeaveTheBarrierIntact(final int keysAtBarrier)
        throws Exception
    {
        // every write reaches the map: no hot-key front (HotKeyFrontTest interleaves write backs with the flusher)
        final ChronicleKeyedStateStore store = open(config().withHotKeysPerState(0)
            .withExpectedEntriesPerState(Math.max(50_000, 3 * keysAtBarrier)));
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final StateMap map = ((ChronicleValueState<Long>)counts).map();
        final int segments = map.created().segments();
        assertThat(segments).as("segments of a map of 50,000 entries or more").isGreaterThanOrEqualTo(4);
        final int paused = segments / 2;
        final int emptied = paused + 1;
        assertThat(keysAtBarrier < 10_000 || keysAtBarrier >= PendingStateSnapshot.FILTER_FROM_ENTRIES)
            .as("each size is on its side of the filter's threshold").isTrue();
        final Map<Object, Object> atBarrier = countUpTo(store, counts, keysAtBarrier);
        final long inserted = keysAtBarrier + 200;
        final long refilled = 2L * keysAtBarrier;
        final KeyedStateSnapshot snapshot = store.snapshot(1);

        // before the flush starts
        for (long key = 0; key < inserted; key++)
        {
            store.setCurrentKey(key);
            switch ((int)(key % 10))
            {
                case 0 -> counts.update(counts.value() + 1_000);
                case 1 -> counts.clear();
                default ->
                {
                }
            }
        }
        final SynchronousQueue<Integer> stopped = new SynchronousQueue<>();
        final SynchronousQueue<Boolean> resume = new SynchronousQueue<>();
        final CompletableFuture<byte[]> written = CompletableFuture.supplyAsync(() ->
        {
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            try
            {
                ((ChronicleKeyedStateSnapshot)snapshot).writeTo(out, (stateIndex, segment) ->
                {
                    if (segment == paused || segment == emptied)
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

        // the flusher has read segments 0..paused
        assertThat(stopped.poll(60, TimeUnit.SECONDS)).isEqualTo(paused);
        for (long key = 0; key < keysAtBarrier * 3L / 2; key++)
        {
            store.setCurrentKey(key);
            if (segmentOf(store, map, key) == emptied)
            {
                counts.clear();
                continue;
            }
            switch ((int)(key % 10))
            {
                case 1 -> counts.update(-1L);
                case 2 -> counts.update(counts.value() + 2_000);
                case 3 -> counts.clear();
                default ->
                {
                    if (key >= inserted)
                    {
                        counts.update(key);
                    }
                }
            }
        }
        try (MapSegmentContext<EncodedBytes, EncodedBytes, ?> segment = map.map().segmentContext(emptied))
        {
            assertThat(segment.size()).as("the segment about to be read is empty").isZero();
        }
        resume.put(true);

        // the flusher has read the emptied segment: refill it, with keys it had at the barrier and new ones
        assertThat(stopped.poll(60, TimeUnit.SECONDS)).isEqualTo(emptied);
        for (long key = 0; key < refilled; key++)
        {
            store.setCurrentKey(key);
            if (segmentOf(store, map, key) == emptied)
            {
                counts.update(-key);
            }
        }
        resume.put(true);
        final byte[] bytes = written.get(60, TimeUnit.SECONDS);

        assertThat(SnapshotContents.decode(bytes, CodecRegistry.withBuiltIns()))
            .isEqualTo(SnapshotContents.expected(Map.of("counts", atBarrier)));
        // and the live state is the task's
        store.setCurrentKey(2L);
        assertThat(counts.value()).isEqualTo(segmentOf(store, map, 2L) == emptied ? -2L : 2_002L);
    }

    /**
     * With a budget of a few dozen preserved copies, the task changes random keys (seeded: updates, clears, new keys)
     * while the flusher writes a full snapshot of 20,000 keys. The flusher waits at the middle segment until a write
     * has waited for it, so the task must cross the budget: the copies a part being written holds never exceed it by
     * more than one entry, and the snapshot is still the state at the barrier.
     */
    @ParameterizedTest
    @ValueSource(longs = {1L, 2L, 3L})
    void aFullSnapshotBeingWrittenHoldsNoMorePreservedCopiesThanItsBudgetTheWritesWaitingForTheFlusher(
        final long seed) throws Exception
    {
        final long budget = 8 << 10;
        final ChronicleKeyedStateStore store =
            open(config().withHotKeysPerState(0).withMaxEntrySize(1_024).withPreservedCopyBytesPerState(budget));
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final StateMap map = ((ChronicleValueState<Long>)counts).map();
        final int keys = 20_000;
        final Map<Object, Object> atBarrier = countUpTo(store, counts, keys);
        final KeyedStateSnapshot snapshot = store.snapshot(1);
        final int paused = map.created().segments() / 2;
        final java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
        final CompletableFuture<byte[]> written = CompletableFuture.supplyAsync(() ->
        {
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            try
            {
                ((ChronicleKeyedStateSnapshot)snapshot).writeTo(out, (stateIndex, segment) ->
                {
                    started.countDown();
                    if (segment == paused)
                    {
                        org.awaitility.Awaitility.await("a write waiting for the flusher")
                            .atMost(60, TimeUnit.SECONDS).pollInterval(java.time.Duration.ofMillis(1))
                            .until(() -> map.preservationWaits() > 0);
                    }
                });
            }
            catch (final Exception ex)
            {
                throw new IllegalStateException(ex);
            }
            return out.toByteArray();
        });
        assertThat(started.await(60, TimeUnit.SECONDS)).as("the flusher started").isTrue();

        final Random random = new Random(seed);
        final Map<Long, Long> live = new HashMap<>();
        atBarrier.forEach((key, value) -> live.put((Long)key, (Long)value));
        for (int write = 0; write < 20_000; write++)
        {
            final long key = random.nextInt(keys + keys / 4);
            store.setCurrentKey(key);
            if (random.nextInt(8) == 0)
            {
                counts.clear();
                live.remove(key);
            }
            else
            {
                final long value = random.nextLong();
                counts.update(value);
                live.put(key, value);
            }
        }
        final byte[] bytes = written.get(60, TimeUnit.SECONDS);

        assertThat(map.preservationWaits()).as("writes that waited for the flusher").isPositive();
        assertThat(map.peakPreservedBytes()).as("the most preserved copies held, in estimated bytes")
            .isPositive()
            .isLessThanOrEqualTo(budget + PendingStatePart.preservedSize(StoredKeyLayout.KEY_OFFSET + 8, new byte[8]));
        assertThat(SnapshotContents.decode(bytes, CodecRegistry.withBuiltIns()))
            .isEqualTo(SnapshotContents.expected(Map.of("counts", atBarrier)));
        for (long key = 0; key < keys + keys / 4; key++)
        {
            store.setCurrentKey(key);
            assertThat(counts.value()).as("key %d", key).isEqualTo(live.getOrDefault(key, 0L));
        }
    }

    /**
     * A write waiting for a flusher that does not move (here held at a segment by the test) returns when its thread
     * is interrupted, as a task's is when its job stops; the snapshot, let go afterwards, is still the barrier's.
     */
    @Test
    void aWriteWaitingForTheFlusherReturnsWhenItsThreadIsInterrupted() throws Exception
    {
        final ChronicleKeyedStateStore store = open(config().withHotKeysPerState(0));
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final StateMap map = ((ChronicleValueState<Long>)counts).map();
        store.limitPreservedBytes(1);
        final Map<Object, Object> atBarrier = countUpTo(store, counts, 4_000);
        final KeyedStateSnapshot snapshot = store.snapshot(1);
        final java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
        final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        final CompletableFuture<byte[]> written = CompletableFuture.supplyAsync(() ->
        {
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            try
            {
                ((ChronicleKeyedStateSnapshot)snapshot).writeTo(out, (stateIndex, segment) ->
                {
                    if (held.getCount() > 0)
                    {
                        held.countDown();
                        try
                        {
                            release.await(60, TimeUnit.SECONDS);
                        }
                        catch (final InterruptedException ex)
                        {
                            Thread.currentThread().interrupt();
                        }
                    }
                });
            }
            catch (final Exception ex)
            {
                throw new IllegalStateException(ex);
            }
            return out.toByteArray();
        });
        assertThat(held.await(60, TimeUnit.SECONDS)).as("the flusher read its first segment").isTrue();
        // the store's thread from here on: every key changed, the first preserved copy is over the budget
        final CompletableFuture<Boolean> interruptedWrite = new CompletableFuture<>();
        final Thread task = new Thread(() ->
        {
            for (long key = 3_999; key >= 0 && !Thread.currentThread().isInterrupted(); key--)
            {
                store.setCurrentKey(key);
                counts.update(-key);
            }
            interruptedWrite.complete(Thread.currentThread().isInterrupted());
        }, "test-task");
        task.start();
        org.awaitility.Awaitility.await("a write waiting for the flusher").atMost(60, TimeUnit.SECONDS)
            .until(() -> map.preservationWaits() > 0);
        task.interrupt();

        assertThat(interruptedWrite.get(60, TimeUnit.SECONDS)).as("the writer saw its interrupt").isTrue();
        task.join(TimeUnit.SECONDS.toMillis(60));
        release.countDown();
        assertThat(SnapshotContents.decode(written.get(60, TimeUnit.SECONDS), CodecRegistry.withBuiltIns()))
            .isEqualTo(SnapshotContents.expected(Map.of("counts", atBarrier)));
    }

    /**
     * A lookup held open in one state's map (a read waiting for its write) while a write to a second state crosses the
     * budget, with the flusher still on the first state and about to reach the held segment: the task must not wait
     * for a flusher that waits for it. The write returns, and both states' snapshots are the barrier's. The store is
     * used from one thread of the test's, so that a hang fails the test instead of stopping it.
     */
    @Test
    void aWriteOverTheBudgetNeverWaitsForAFlusherThatWaitsForALookupTheTaskHolds() throws Exception
    {
        final ChronicleKeyedStateStore store = open(config().withHotKeysPerState(0));
        store.holdLookups();
        final ValueState<Long> first = store.getValueState(new ValueStateDescriptor<>("first", Long.class, 0L));
        final ValueState<Long> second = store.getValueState(new ValueStateDescriptor<>("second", Long.class, 0L));
        store.limitPreservedBytes(1);
        final Map<Object, Object> atBarrier = countUpTo(store, first, 4_000);
        countUpTo(store, second, 4_000);
        // the held key lives in the first state's last occupied segment: the flusher reads others before it
        final StateMap firstMap = ((ChronicleValueState<Long>)first).map();
        long heldKey = 0;
        int heldSegment = -1;
        int lowestSegment = Integer.MAX_VALUE;
        for (long key = 0; key < 4_000; key++)
        {
            final int segment = segmentOf(store, firstMap, key);
            lowestSegment = Math.min(lowestSegment, segment);
            if (segment > heldSegment)
            {
                heldSegment = segment;
                heldKey = key;
            }
        }
        assertThat(heldSegment).as("the first state's keys span several segments").isGreaterThan(lowestSegment);
        final KeyedStateSnapshot snapshot = store.snapshot(1);
        final long held = heldKey;
        final CompletableFuture<byte[]> written = new CompletableFuture<>();
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final Thread task = new Thread(() ->
        {
            try
            {
                store.setCurrentKey(held);
                assertThat(first.value()).isEqualTo(held);
                final java.util.concurrent.CountDownLatch reading = new java.util.concurrent.CountDownLatch(1);
                CompletableFuture.runAsync(() ->
                {
                    final ByteArrayOutputStream out = new ByteArrayOutputStream();
                    try
                    {
                        ((ChronicleKeyedStateSnapshot)snapshot).writeTo(out, (stateIndex, segment) ->
                            reading.countDown());
                        written.complete(out.toByteArray());
                    }
                    catch (final Exception | Error ex)
                    {
                        written.completeExceptionally(ex);
                    }
                });
                assertThat(reading.await(60, TimeUnit.SECONDS)).as("the flusher read a segment").isTrue();
                second.update(-1L);
                first.update(-1L);
                store.setCurrentKey(null);
                done.complete(null);
            }
            catch (final Throwable ex)
            {
                done.completeExceptionally(ex);
            }
        }, "test-task");
        task.start();
        try
        {
            done.get(60, TimeUnit.SECONDS);
        }
        finally
        {
            // a write still waiting (the failure this test looks for) ends at the interrupt
            task.interrupt();
            task.join(TimeUnit.SECONDS.toMillis(60));
        }

        final Map<String, Map<Object, Object>> decoded =
            SnapshotContents.decode(written.get(60, TimeUnit.SECONDS), CodecRegistry.withBuiltIns());
        assertThat(decoded.get("first")).isEqualTo(atBarrier);
        assertThat(decoded.get("second")).isEqualTo(atBarrier);
    }

    @Test
    void keyGroupsAreStoredWithTheKeysSoTheFlusherNeverDecodesOne()
    {
        final ChronicleKeyedStateStore store = open(config());
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class));
        store.setCurrentKey("some key");
        counts.update(1L);

        final EncodedBytes key = store.encodedCurrentKey("counts");

        assertThat(StoredKeyLayout.keyGroup(key.array()))
            .isEqualTo(KeyGroups.keyGroupOf("some key", MAX_PARALLELISM));
        assertThat(key.length()).isEqualTo(StoredKeyLayout.KEY_OFFSET + 4 + "some key".length());
    }

    // ------------------------------------------------------------------------------------------------ support

    /** Sets each key in [0, keys) to itself; returns that state as a model. */
    private static Map<Object, Object> countUpTo(final ChronicleKeyedStateStore store, final ValueState<Long> counts,
        final long keys)
    {
        final Map<Object, Object> model = new HashMap<>();
        for (long key = 0; key < keys; key++)
        {
            store.setCurrentKey(key);
            counts.update(key);
            model.put(key, key);
        }
        return model;
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

    private static int segmentOf(final ChronicleKeyedStateStore store, final StateMap map, final long key)
    {
        store.setCurrentKey(key);
        try (ExternalMapQueryContext<EncodedBytes, EncodedBytes, ?> context =
            map.map().queryContext(store.encodedCurrentKey("test")))
        {
            return context.segmentIndex();
        }
    }

    @Test
    void aFullSnapshotVisitsOnlyTheSegmentsThatHeldEntriesNotTheMapsCapacity() throws Exception
    {
        // a map sized for a million entries has thousands of segments; ten keys sit in at most ten of them
        final ChronicleKeyedStateStore store = open(ChronicleStateConfig.defaults().withHotKeysPerState(0));
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final int segments = ((ChronicleValueState<Long>)counts).map().created().segments();
        assertThat(segments).isGreaterThan(100);
        final Map<Object, Object> expected = new HashMap<>();
        for (long key = 0; key < 10; key++)
        {
            store.setCurrentKey(key);
            counts.update(key * 7);
            expected.put(key, key * 7);
        }
        final KeyedStateSnapshot snapshot = store.snapshot(1);
        // inserted after the barrier: not in the snapshot, wherever they land
        for (long key = 10; key < 5_000; key++)
        {
            store.setCurrentKey(key);
            counts.update(key);
        }
        final java.util.Set<Integer> visited = new java.util.HashSet<>();
        assertThat(writtenVisiting(snapshot, visited)).isEqualTo(Map.of("counts", expected));
        assertThat(visited).hasSizeLessThanOrEqualTo(10);
        store.close();
    }

    /**
     * @param snapshot a snapshot of this store's kind.
     * @param visited  receives every segment the flusher reads.
     * @return what the snapshot holds, decoded.
     */
    private static Map<String, Map<Object, Object>> writtenVisiting(final KeyedStateSnapshot snapshot,
        final java.util.Set<Integer> visited) throws Exception
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        ((ChronicleKeyedStateSnapshot)snapshot).writeTo(out, (stateIndex, segment) -> visited.add(segment));
        return SnapshotContents.decode(out.toByteArray(), CodecRegistry.withBuiltIns());
    }

    @Test
    void aStatesDescriptionIsBuiltOnceAndAgainWhenTheStoresKeyTypeOrTheDeclarationChanges()
    {
        final ChronicleKeyedStateStore store = open(config());
        final ValueStateDescriptor<Long> descriptor = new ValueStateDescriptor<>("counts", Long.class, 0L);
        final ChronicleState counts = (ChronicleState)store.getValueState(descriptor);
        final io.ringflow.state.codec.Codec<Long> longs = CodecRegistry.withBuiltIns().codecFor(Long.class);

        final io.ringflow.state.snapshot.StateMeta beforeAnyKey = counts.meta(null, null);
        assertThat(beforeAnyKey.keyType()).isEmpty();
        assertThat(counts.meta(null, null)).isSameAs(beforeAnyKey);
        final io.ringflow.state.snapshot.StateMeta withKeys = counts.meta(Long.class, longs);
        assertThat(withKeys.keyType()).isEqualTo("java.lang.Long");
        assertThat(withKeys.keyCodecVersion()).isEqualTo(longs.version());
        assertThat(counts.meta(Long.class, longs)).isSameAs(withKeys);
        counts.rebind(descriptor);
        assertThat(counts.meta(Long.class, longs)).isNotSameAs(withKeys).isEqualTo(withKeys);
        store.close();
    }

    @Test
    void snapshotsSharingTheOccupiedSegmentsKeepThemAsAtTheirBarriersWhenLaterInsertsReachNewSegments()
        throws Exception
    {
        // two barriers with no new segment between them share one bitmap; the inserts after them set their bits in a
        // copy, so neither snapshot visits a segment that only later keys occupy, and a third sees them all
        final ChronicleKeyedStateStore store = open(ChronicleStateConfig.defaults().withHotKeysPerState(0));
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final Map<Object, Object> early = new HashMap<>();
        for (long key = 0; key < 10; key++)
        {
            store.setCurrentKey(key);
            counts.update(key);
            early.put(key, key);
        }
        final KeyedStateSnapshot first = store.snapshot(1);
        final KeyedStateSnapshot second = store.snapshot(2);
        final Map<Object, Object> all = new HashMap<>(early);
        for (long key = 10; key < 5_000; key++)
        {
            store.setCurrentKey(key);
            counts.update(key);
            all.put(key, key);
        }
        final KeyedStateSnapshot third = store.snapshot(3);
        for (final KeyedStateSnapshot earlier : List.of(first, second))
        {
            final java.util.Set<Integer> visited = new java.util.HashSet<>();
            assertThat(writtenVisiting(earlier, visited)).isEqualTo(Map.of("counts", early));
            assertThat(visited).hasSizeLessThanOrEqualTo(10);
        }
        final java.util.Set<Integer> visited = new java.util.HashSet<>();
        assertThat(writtenVisiting(third, visited)).isEqualTo(Map.of("counts", all));
        assertThat(visited).hasSizeGreaterThan(10);
        store.close();
    }

    @Test
    void aSnapshotOfAStateHeldWhollyInItsFrontIsTheFrontAtTheBarrierWhateverChangesAfter() throws Exception
    {
        // 500 keys fit the 1,024-key front: the map stays empty and the snapshot is written from the front alone
        final ChronicleKeyedStateStore store = open(config());
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final Map<Object, Object> expected = new HashMap<>();
        for (long key = 0; key < 500; key++)
        {
            store.setCurrentKey(key);
            counts.update(key * 3);
            expected.put(key, key * 3);
        }
        assertThat(((ChronicleValueState<Long>)counts).map().entryCount()).isZero();
        final KeyedStateSnapshot snapshot = store.snapshot(1);
        // after the barrier: every key changed, some removed, new keys beyond the front's capacity reach the map,
        // and the front is written back to the map (as a turnover does), copy-on-write against the snapshot
        for (long key = 0; key < 5_000; key++)
        {
            store.setCurrentKey(key);
            if (key % 7 == 0)
            {
                counts.clear();
            }
            else
            {
                counts.update(-key);
            }
        }
        store.writeBackHotKeys();
        assertThat(((ChronicleValueState<Long>)counts).map().entryCount()).isPositive();
        for (long key = 0; key < 600; key++)
        {
            store.setCurrentKey(key);
            counts.update(key + 1_000_000);
        }
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        snapshot.writeTo(out);
        snapshot.release();
        assertThat(SnapshotContents.decode(out.toByteArray(), CodecRegistry.withBuiltIns()))
            .isEqualTo(Map.of("counts", expected));
        // each entry sits in its key's own key group, as the general path writes it (a restore reads by group)
        final List<Long> placed = new ArrayList<>();
        SnapshotContents.reader(out.toByteArray()).read(ALL, (keyGroup, stateIndex, bytes, keyOffset, keyLength,
            subKeyOffset, subKeyLength, valueOffset, valueLength) ->
        {
            final long key = io.ringflow.state.codec.LongCodec.INSTANCE.decode(bytes, keyOffset, keyLength);
            assertThat(keyGroup).as("key group of key %d", key).isEqualTo(KeyGroups.keyGroupOf(key, MAX_PARALLELISM));
            placed.add(key);
        });
        assertThat(placed).containsExactlyInAnyOrderElementsOf(expected.keySet().stream().map(k -> (Long)k).toList());
        store.close();
    }

    private static ChronicleStateConfig config()
    {
        return ChronicleStateConfig.defaults().withExpectedEntriesPerState(50_000);
    }

    private ChronicleKeyedStateStore open(final ChronicleStateConfig config)
    {
        final ChronicleKeyedStateStore store =
            new ChronicleKeyedStateStore(config, CodecRegistry.withBuiltIns(), MAX_PARALLELISM, ALL);
        stores.add(store);
        return store;
    }
}
