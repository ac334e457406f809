package io.ringflow.state.chronicle;

import io.ringflow.state.checkpoint.CorruptCheckpointException;
import io.ringflow.state.checkpoint.StateFile;
import io.ringflow.state.codec.CodecRegistry;
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
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bounded-memory paths that let keyed state be larger than the heap: a flusher that spills a snapshot's entries to
 * a file past a budget writes exactly the bytes it writes without spilling; a snapshot read by position from a file
 * (one key group at a time) and a chain merged one key group at a time when read restore exactly what the in-memory
 * paths restore.
 */
class BoundedMemorySnapshotTest
{
    private static final int MAX_PARALLELISM = 128;
    private static final KeyGroupRange ALL = new KeyGroupRange(0, MAX_PARALLELISM - 1);
    private static final CodecRegistry CODECS = CodecRegistry.withBuiltIns();

    private final List<ChronicleKeyedStateStore> stores = new ArrayList<>();

    @AfterEach
    void closeStores()
    {
        stores.forEach(ChronicleKeyedStateStore::close);
    }

    /**
     * Two stores get the same seeded writes (a value state whose front holds only part of the keys, and a map state)
     * and take the same snapshots, full or deltas; one spills past {@code spillBytes}, the other never. Every
     * snapshot's bytes must be equal, the spilling one must have spilled, and no spill file may be left. Then the
     * chains, written to files and read back by position, merged lazily, must restore what they hold.
     */
    @ParameterizedTest(name = "seed {0}, spill after {1} bytes")
    @CsvSource({"11, 256", "20261203, 4096", "77, 1"})
    void aSpillingFlusherWritesTheBytesOfABufferingOne(final long seed, final long spillBytes,
        @TempDir final Path dir) throws IOException
    {
        final Path spillDir = dir.resolve("spilling");
        final ChronicleKeyedStateStore spilling = open(spillDir);
        final ChronicleKeyedStateStore buffering = open(dir.resolve("buffering"));
        spilling.spillSnapshotsAfter(spillBytes);
        spilling.trackChanges();
        buffering.trackChanges();
        final List<ValueState<Long>> counts = new ArrayList<>();
        final List<MapState<Integer, String>> tags = new ArrayList<>();
        for (final ChronicleKeyedStateStore store : List.of(spilling, buffering))
        {
            counts.add(store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L)));
            tags.add(store.getMapState(new MapStateDescriptor<>("tags", Integer.class, String.class)));
        }
        final Map<Long, Long> countModel = new HashMap<>();
        final Map<Object, Map<Integer, String>> tagModel = new HashMap<>();
        final Random random = new Random(seed);
        final List<byte[]> snapshots = new ArrayList<>();
        final List<List<Integer>> chains = new ArrayList<>();
        final List<Map<String, Map<Object, Object>>> atBarrier = new ArrayList<>();
        int spilled = 0;
        final int keys = spillBytes == 1 ? 600 : 4_000;
        for (int round = 0; round < 8; round++)
        {
            final int ops = round == 0 ? keys * 2 : keys / 4;
            for (int op = 0; op < ops; op++)
            {
                final long key = random.nextInt(keys);
                final int kind = random.nextInt(6);
                final int userKey = random.nextInt(3);
                final String tag = "t" + random.nextInt(1_000);
                switch (kind)
                {
                    case 0, 1, 2 -> countModel.merge(key, 1L, Long::sum);
                    case 3 -> countModel.remove(key);
                    case 4 -> tagModel.computeIfAbsent(key, k -> new HashMap<>()).put(userKey, tag);
                    default ->
                    {
                        final Map<Integer, String> map = tagModel.get(key);
                        if (map != null)
                        {
                            map.remove(userKey);
                        }
                    }
                }
                for (int s = 0; s < 2; s++)
                {
                    (s == 0 ? spilling : buffering).setCurrentKey(key);
                    switch (kind)
                    {
                        case 0, 1, 2 -> counts.get(s).update(counts.get(s).value() + 1);
                        case 3 -> counts.get(s).clear();
                        case 4 -> tags.get(s).put(userKey, tag);
                        default -> tags.get(s).remove(userKey);
                    }
                }
            }
            final int id = snapshots.size();
            final boolean delta = id > 0 && random.nextInt(3) != 0;
            final KeyedStateSnapshot fromSpilling = delta ? spilling.incrementalSnapshot(id, id - 1) :
                spilling.snapshot(id);
            final KeyedStateSnapshot fromBuffering = delta ? buffering.incrementalSnapshot(id, id - 1) :
                buffering.snapshot(id);
            final byte[] bytes = SnapshotContents.write(fromSpilling);
            final byte[] buffered = SnapshotContents.write(fromBuffering);
            assertThat(SnapshotContents.rawEntries(bytes)).as("seed %d snapshot %d: entries", seed, id)
                .isEqualTo(SnapshotContents.rawEntries(buffered));
            assertThat(Arrays.equals(bytes, buffered)).as("seed %d snapshot %d: same bytes", seed, id).isTrue();
            spilled += ((ChronicleKeyedStateSnapshot)fromSpilling).spilledRuns();
            snapshots.add(bytes);
            final List<Integer> chain = new ArrayList<>(delta ? chains.get(id - 1) : List.of());
            chain.add(id);
            chains.add(chain);
            atBarrier.add(SnapshotContents.expected(Map.of("counts", countModel, "tags", tagModel)));
        }
        assertThat(spilled).as("the budget was exceeded").isGreaterThan(8);
        try (Stream<Path> left = Files.list(spillDir))
        {
            assertThat(left.filter(p -> p.toString().endsWith(".spill"))).as("spill files left").isEmpty();
        }

        final Path files = Files.createDirectories(dir.resolve("files"));
        for (int i = 0; i < snapshots.size(); i++)
        {
            Files.write(files.resolve("snapshot-" + i), snapshots.get(i));
        }
        for (int i = 0; i < chains.size(); i++)
        {
            final List<KeyedSnapshotReader> onDisk = new ArrayList<>();
            final List<FileChannel> channels = new ArrayList<>();
            final List<KeyedSnapshotReader> inMemory = new ArrayList<>();
            for (final int part : chains.get(i))
            {
                final Path file = files.resolve("snapshot-" + part);
                final FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
                channels.add(channel);
                onDisk.add(KeyedSnapshotReader.open(StateFile.of(channel, Files.size(file), file.toString())));
                inMemory.add(SnapshotContents.reader(snapshots.get(part)));
            }
            final Map<String, Map<Object, Object>> expected = SnapshotContents.decode(
                KeyedSnapshotChain.mergeToBytes(inMemory, ALL), CODECS);
            assertThat(expected).as("seed %d chain %s", seed, chains.get(i)).isEqualTo(atBarrier.get(i));
            try (KeyedSnapshotReader merged = KeyedSnapshotChain.merge(onDisk, ALL))
            {
                assertThat(SnapshotContents.decode(merged, CODECS)).as("seed %d chain %s read by position", seed,
                    chains.get(i)).isEqualTo(expected);
            }
            assertThat(channels).as("closing the merged reader closes its files").noneMatch(FileChannel::isOpen);
        }

        // a restore from the last chain read by position equals the state at its barrier
        final int last = chains.size() - 1;
        final List<KeyedSnapshotReader> onDisk = new ArrayList<>();
        for (final int part : chains.get(last))
        {
            final Path file = files.resolve("snapshot-" + part);
            onDisk.add(KeyedSnapshotReader.open(StateFile.of(FileChannel.open(file, StandardOpenOption.READ),
                Files.size(file), file.toString())));
        }
        final ChronicleKeyedStateStore restored = open(dir.resolve("restored"));
        try (KeyedSnapshotReader merged = KeyedSnapshotChain.merge(onDisk, ALL))
        {
            restored.restore(List.of(merged));
        }
        assertThat(SnapshotContents.decode(SnapshotContents.take(restored, 5_000), CODECS))
            .isEqualTo(atBarrier.get(last));
    }

    /**
     * Every single-byte corruption of a snapshot (checksums aside, which the storage checks first): read by position
     * from a file it is refused as corrupt or reads exactly what the in-memory reader reads; never another exception
     * (an out-of-bounds index, a huge allocation).
     */
    @Test
    void aCorruptFileReadByPositionIsRefusedAsCorruptOrReadAsInMemory(@TempDir final Path dir) throws IOException
    {
        final ChronicleKeyedStateStore store = open(dir.resolve("store"));
        final MapState<Integer, String> tags = store.getMapState(new MapStateDescriptor<>("tags", Integer.class,
            String.class));
        for (long key = 0; key < 12; key++)
        {
            store.setCurrentKey(key);
            tags.put((int)key, "v" + key);
        }
        final byte[] intact = SnapshotContents.take(store, 1);
        final Path file = dir.resolve("corrupt");
        int refused = 0;
        for (int at = 0; at < intact.length; at++)
        {
            for (final int flip : new int[] {0x01, 0x80, 0xFF})
            {
                final byte[] corrupt = intact.clone();
                corrupt[at] ^= (byte)flip;
                Files.write(file, corrupt);
                Object inMemory;
                try
                {
                    inMemory = SnapshotContents.rawEntries(corrupt);
                }
                catch (final CorruptCheckpointException | AssertionError ex)
                {
                    inMemory = ex.getClass();
                }
                Object byPosition;
                try (KeyedSnapshotReader reader = KeyedSnapshotReader.open(StateFile.of(
                    FileChannel.open(file, StandardOpenOption.READ), corrupt.length, file.toString())))
                {
                    byPosition = SnapshotContents.rawEntries(reader);
                }
                catch (final CorruptCheckpointException ex)
                {
                    byPosition = ex.getClass();
                    refused++;
                }
                catch (final AssertionError duplicate)
                {
                    byPosition = duplicate.getClass(); // framing intact, an entry twice: not the reader's to judge
                }
                if (!(byPosition instanceof Class<?>) && !(inMemory instanceof Class<?>))
                {
                    assertThat(byPosition).as("byte %d ^ %x", at, flip).isEqualTo(inMemory);
                }
            }
        }
        assertThat(refused).as("most corruptions are caught by the framing").isGreaterThan(intact.length / 2);
    }

    /**
     * Change sets live on the heap: past the store's limit an interval overflows, and no delta or revert may span it
     * (the next snapshot is full); the intervals after it are tracked again.
     */
    @Test
    void moreChangedKeysThanTrackedMakesTheNextSnapshotFull(@TempDir final Path dir)
    {
        final ChronicleKeyedStateStore store = open(dir.resolve("store"));
        store.limitTrackedChanges(100);
        store.trackChanges();
        final MapState<Integer, String> tags = store.getMapState(new MapStateDescriptor<>("tags", Integer.class,
            String.class));
        final Map<Object, Map<Integer, String>> model = new HashMap<>();
        final java.util.function.LongConsumer put = key ->
        {
            store.setCurrentKey(key);
            tags.put(1, "v" + key);
            model.computeIfAbsent(key, k -> new HashMap<>()).put(1, "v" + key);
        };
        for (long key = 0; key < 50; key++)
        {
            put.accept(key);
        }
        final byte[] first = SnapshotContents.take(store, 1);
        assertThat(store.canSnapshotIncrementally(1)).isTrue();
        for (long key = 0; key < 200; key++)
        {
            put.accept(1_000 + key);
        }
        assertThat(store.canSnapshotIncrementally(1)).as("200 keys changed, 100 tracked").isFalse();
        assertThat(store.canRevertTo(1)).isFalse();
        assertThat(store.whyNotRevertibleTo(1)).contains("more keys changed since its barrier than the store tracks");
        final byte[] second = SnapshotContents.take(store, 2);
        assertThat(SnapshotContents.reader(second).isDelta()).isFalse();
        assertThat(store.canSnapshotIncrementally(1)).as("the overflowed interval is sealed").isFalse();
        for (long key = 0; key < 10; key++)
        {
            put.accept(5_000 + key);
        }
        assertThat(store.canSnapshotIncrementally(2)).as("tracked again after the overflow").isTrue();
        final byte[] delta = SnapshotContents.write(store.incrementalSnapshot(3, 2));
        assertThat(SnapshotContents.rawEntries(delta)).hasSize(20); // a tombstone and the user key of each
        assertThat(SnapshotContents.decode(KeyedSnapshotChain.mergeToBytes(List.of(SnapshotContents.reader(second),
            SnapshotContents.reader(delta)), ALL), CODECS)).isEqualTo(SnapshotContents.expected(Map.of("tags", model)));
        assertThat(first).isNotEmpty();
    }

    private ChronicleKeyedStateStore open(final Path directory)
    {
        // a front of 1,024 keys: most of the 4,000 keys go to the map, whose entries the flusher buffers or spills
        final ChronicleKeyedStateStore store = new ChronicleKeyedStateStore(ChronicleStateConfig.defaults()
            .withExpectedEntriesPerState(20_000).withHotKeysPerState(1_024).withDirectory(directory), CODECS,
            MAX_PARALLELISM, ALL);
        stores.add(store);
        return store;
    }
}
