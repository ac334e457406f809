package io.ringflow.bench.state;

import io.ringflow.state.checkpoint.DirectoryCheckpointStorage;
import io.ringflow.state.checkpoint.StateHandle;
import io.ringflow.state.checkpoint.StateOutput;
import io.ringflow.state.chronicle.ChronicleKeyedStateStore;
import io.ringflow.state.chronicle.ChronicleStateConfig;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.KeyGroups;
import io.ringflow.state.keyed.LongValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;
import io.ringflow.state.snapshot.KeyedSnapshotChain;
import io.ringflow.state.snapshot.KeyedSnapshotReader;
import io.ringflow.state.snapshot.KeyedStateSnapshot;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Keyed state larger than the heap, through the bounded-memory paths: a Chronicle store on memory-mapped files holds
 * {@code --keys} counters; a full snapshot and then a delta ({@code --changed} keys changed; a full snapshot when
 * more changed than the store's change sets track on this heap) are flushed to a checkpoint
 * directory (the flusher spills past its budget instead of buffering the snapshot); a new store then restores the
 * chain read by position and merged one key group at a time. Every key's value is checked after the restore. Prints
 * each phase's time, the files' sizes and the heap's peak use per phase; run it with a heap smaller than a snapshot
 * (for example {@code -Xms256m -Xmx256m} at 20,000,000 keys, whose full snapshot is 640 MB).
 *
 * <p>Not JMH: each phase runs once on gigabytes of state.
 */
public final class LargerThanHeapHarness
{
    private static final ValueStateDescriptor<Long> COUNTS = new ValueStateDescriptor<>("counts", Long.class, 0L);
    private static final int MAX_PARALLELISM = KeyGroups.DEFAULT_MAX_PARALLELISM;
    private static final KeyGroupRange ALL = new KeyGroupRange(0, MAX_PARALLELISM - 1);
    private static final long CHANGE = 1_000_000_000L;

    private LargerThanHeapHarness()
    {
    }

    /**
     * @param args {@code --keys N} (default 20,000,000), {@code --changed N} keys changed after the full snapshot (default
     *             100,000), {@code --dir DIR} (default a new directory under the JVM's
     *             temporary directory; its state maps and checkpoints are deleted at the end).
     * @throws Exception when a check fails.
     */
    public static void main(final String[] args) throws Exception
    {
        int keys = 20_000_000;
        int changed = 100_000;
        Path dir = null;
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--keys" -> keys = Integer.parseInt(args[++i].replace("_", ""));
                case "--changed" -> changed = Integer.parseInt(args[++i].replace("_", ""));
                case "--dir" -> dir = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i] +
                    "; use --keys N --changed N --dir DIR");
            }
        }
        final Path root = dir != null ? Files.createDirectories(dir) :
            Files.createTempDirectory("ringflow-larger-than-heap");
        try
        {
            run(keys, changed, root, System.out);
        }
        finally
        {
            deleteRecursively(root);
        }
    }

    static void run(final int keys, final int changed, final Path root, final PrintStream out) throws IOException
    {
        out.printf(Locale.ROOT, "%,d keys, max heap %,d MB, in %s%n", keys,
            Runtime.getRuntime().maxMemory() >> 20, root);
        final DirectoryCheckpointStorage storage = new DirectoryCheckpointStorage(root.resolve("checkpoints"));
        final ChronicleStateConfig config = ChronicleStateConfig.defaults().withExpectedEntriesPerState(keys);
        final ChronicleKeyedStateStore store = open(config.withDirectory(root.resolve("state-a")));
        store.trackChanges();
        final LongValueState counts = store.getLongValueState(COUNTS);

        long start = phase();
        for (long key = 0; key < keys; key++)
        {
            set(store, key);
            counts.update(key);
        }
        report(out, "load", start, null);

        start = phase();
        final StateHandle full = write(storage, 1, "keyed-full", store.snapshot(1));
        report(out, "full snapshot flushed", start, full);

        start = phase();
        for (long key = 0; key < changed; key++)
        {
            set(store, key * 10);
            counts.update(counts.value() + CHANGE);
        }
        // past the keys the change sets can track on this heap, the second snapshot is full (docs/state.md)
        final boolean incremental = store.canSnapshotIncrementally(1);
        final StateHandle delta = write(storage, 2, "keyed-2", incremental ? store.incrementalSnapshot(2, 1) :
            store.snapshot(2));
        report(out, String.format(Locale.ROOT, "%,d keys changed, %s flushed", changed,
            incremental ? "delta" : "full snapshot (more changes than tracked)"), start, delta);
        store.close();

        start = phase();
        final ChronicleKeyedStateStore restored = open(config.withDirectory(root.resolve("state-b")));
        final List<KeyedSnapshotReader> chain = new ArrayList<>();
        if (incremental)
        {
            chain.add(KeyedSnapshotReader.open(storage.openState(1, full)));
        }
        chain.add(KeyedSnapshotReader.open(storage.openState(2, delta)));
        try (KeyedSnapshotReader merged = KeyedSnapshotChain.merge(chain, ALL))
        {
            restored.restore(List.of(merged));
        }
        report(out, "chain checked, read by position, merged and restored", start, null);

        final LongValueState restoredCounts = restored.getLongValueState(COUNTS);
        for (long key = 0; key < keys; key++)
        {
            set(restored, key);
            final long expected = key % 10 == 0 && key / 10 < changed ? key + CHANGE : key;
            if (restoredCounts.value() != expected)
            {
                throw new IllegalStateException("key " + key + " restored as " + restoredCounts.value() +
                    ", expected " + expected);
            }
        }
        if (restored.entryCount() != keys)
        {
            throw new IllegalStateException(restored.entryCount() + " entries restored, expected " + keys);
        }
        out.printf(Locale.ROOT, "checked: all %,d keys restored with their values%n", keys);
        restored.close();
    }

    private static StateHandle write(final DirectoryCheckpointStorage storage, final long checkpointId,
        final String name, final KeyedStateSnapshot snapshot) throws IOException
    {
        try
        {
            final StateOutput output = storage.createStateOutput(checkpointId, name);
            snapshot.writeTo(output);
            return output.closeAndGetHandle();
        }
        finally
        {
            snapshot.release();
        }
    }

    private static ChronicleKeyedStateStore open(final ChronicleStateConfig config)
    {
        return new ChronicleKeyedStateStore(config, CodecRegistry.withBuiltIns(), MAX_PARALLELISM, ALL);
    }

    private static void set(final ChronicleKeyedStateStore store, final long key)
    {
        store.setCurrentKey(key, KeyGroups.keyGroupOfHash(Long.hashCode(key), MAX_PARALLELISM));
    }

    /** @return now, after resetting the heap pools' peaks. */
    private static long phase()
    {
        for (final MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans())
        {
            if (pool.getType() == MemoryType.HEAP)
            {
                pool.resetPeakUsage();
            }
        }
        return System.nanoTime();
    }

    private static void report(final PrintStream out, final String phase, final long start, final StateHandle file)
    {
        final long nanos = System.nanoTime() - start;
        long peak = 0;
        for (final MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans())
        {
            if (pool.getType() == MemoryType.HEAP)
            {
                peak += pool.getPeakUsage().getUsed();
            }
        }
        out.printf(Locale.ROOT, "%-55s %8.2f s, heap peak %,5d MB%s%n", phase, nanos / 1e9, peak >> 20,
            file == null ? "" : String.format(Locale.ROOT, ", file %,d MB", file.length() >> 20));
    }

    private static void deleteRecursively(final Path root) throws IOException
    {
        try (var paths = Files.walk(root))
        {
            for (final Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(path);
            }
        }
    }
}
