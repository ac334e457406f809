package io.ringflow.state.chronicle;

import java.nio.file.Path;

/**
 * How the Chronicle Map keyed state backend sizes its maps: one Chronicle Map per declared state, each sized for
 * {@link #expectedEntriesPerState()} entries of the average sizes given, allowed to grow to
 * {@link #maxGrowthFactor()} times that before a write is refused, and either off-heap in memory or memory-mapped
 * from a file in {@link #directory()}.
 *
 * <p>Sizes are of <em>encoded</em> keys and values, as their codecs write them (a {@code Long} is 8 bytes, a
 * {@code String} 4 plus its UTF-8 bytes). Chronicle Map reserves address space for the configured size up front and
 * touches memory only as entries arrive, so generous sizing costs little; undersizing costs extra segment tiers
 * (slower lookups) and, past the growth factor, refused writes.
 *
 * <p>Immutable. Every option is checked when it is set: a bad value throws {@link IllegalArgumentException} naming
 * the option. Whether {@link #directory()} is usable is checked when a store is built from the configuration.
 */
public final class ChronicleStateConfig
{
    /** Default {@link #expectedEntriesPerState()}. */
    public static final long DEFAULT_EXPECTED_ENTRIES = 1_000_000;
    /** Default {@link #averageKeySize()}: a {@code Long} key. */
    public static final int DEFAULT_AVERAGE_KEY_SIZE = 8;
    /** Default {@link #averageValueSize()}. */
    public static final int DEFAULT_AVERAGE_VALUE_SIZE = 16;
    /** Default {@link #maxEntrySize()}: 16 KiB. */
    public static final int DEFAULT_MAX_ENTRY_SIZE = 16 * 1024;
    /** Default {@link #maxGrowthFactor()}. */
    public static final double DEFAULT_MAX_GROWTH_FACTOR = 4.0;
    /** Largest {@link #maxGrowthFactor()} Chronicle Map accepts. */
    public static final double MAX_GROWTH_FACTOR_LIMIT = 1_000.0;
    /** Default {@link #hotKeysPerState()}: the front's capacity follows from {@link #hotFrontBytesPerState()}. */
    public static final int HOT_KEYS_FROM_BUDGET = -1;
    /** Largest {@link #hotKeysPerState()}. */
    public static final int MAX_HOT_KEYS_PER_STATE = 1 << 27;
    /** The largest default {@link #hotFrontBytesPerState()}: 64 MiB. */
    public static final long DEFAULT_HOT_FRONT_BYTES_PER_STATE = 64L << 20;
    /**
     * Default {@link #hotFrontBytesPerState()} in this JVM: 64 MiB, or a sixteenth of the maximum heap when that is
     * less (at least the smallest front), so that a small heap is not filled by fronts.
     */
    static final long HOT_FRONT_BYTES_FOR_THIS_HEAP = Math.max(
        2 * ChronicleStateConfig.UNBOXED_FRONT_BYTES_PER_SLOT * 1024L, Math.min(DEFAULT_HOT_FRONT_BYTES_PER_STATE, Runtime.getRuntime().maxMemory() / 16));
    /**
     * Default {@link #preservedCopyBytesPerState()} in this JVM: a sixteenth of the maximum heap, at least 1 MiB (about
     * 32 MiB, some 200,000 copies of small entries, in a 512 MB heap).
     */
    public static final long PRESERVED_COPY_BYTES_FOR_THIS_HEAP = Math.max(1 << 20,
        Runtime.getRuntime().maxMemory() / 16);
    /**
     * Heap bytes per key of a front of {@code Long} keys and values: two slots of 16 bytes (load at most one half),
     * 24 when change stamps are kept for incremental checkpoints.
     */
    static final int UNBOXED_FRONT_BYTES_PER_SLOT = 16;
    /**
     * The most keys of a front of boxed keys or values sized by the budget: such a front is copied at every barrier
     * (O(keys)) and turns over whole, so it stays small; {@link #withHotKeysPerState} can still ask for more.
     */
    public static final int BOXED_HOT_KEYS = 1024;
    /** Heap bytes per entry of a front of boxed keys or values, besides the encoded sizes: map node, boxes, table. */
    static final int BOXED_FRONT_OVERHEAD_BYTES = 96;

    private static final ChronicleStateConfig DEFAULTS = new ChronicleStateConfig(DEFAULT_EXPECTED_ENTRIES,
        DEFAULT_AVERAGE_KEY_SIZE, DEFAULT_AVERAGE_VALUE_SIZE, DEFAULT_MAX_ENTRY_SIZE, DEFAULT_MAX_GROWTH_FACTOR, null,
        HOT_KEYS_FROM_BUDGET, HOT_FRONT_BYTES_FOR_THIS_HEAP, PRESERVED_COPY_BYTES_FOR_THIS_HEAP);

    private final long expectedEntriesPerState;
    private final int averageKeySize;
    private final int averageValueSize;
    private final int maxEntrySize;
    private final double maxGrowthFactor;
    private final Path directory;
    private final int hotKeysPerState;
    private final long hotFrontBytesPerState;
    private final long preservedCopyBytesPerState;

    private ChronicleStateConfig(
        final long expectedEntriesPerState, final int averageKeySize, final int averageValueSize,
        final int maxEntrySize, final double maxGrowthFactor, final Path directory, final int hotKeysPerState,
        final long hotFrontBytesPerState, final long preservedCopyBytesPerState)
    {
        if ((hotKeysPerState < 0 && hotKeysPerState != HOT_KEYS_FROM_BUDGET) ||
            hotKeysPerState > MAX_HOT_KEYS_PER_STATE)
        {
            throw new IllegalArgumentException("hotKeysPerState must be in [0, " + MAX_HOT_KEYS_PER_STATE +
                "], or HOT_KEYS_FROM_BUDGET (-1), not " + hotKeysPerState);
        }
        if (hotFrontBytesPerState != 0 && hotFrontBytesPerState < 2 * UNBOXED_FRONT_BYTES_PER_SLOT * 1024L)
        {
            throw new IllegalArgumentException("hotFrontBytesPerState " + hotFrontBytesPerState + " is below the " +
                "smallest front, " + 2 * UNBOXED_FRONT_BYTES_PER_SLOT * 1024 + " bytes (1,024 keys of two slots of " +
                UNBOXED_FRONT_BYTES_PER_SLOT + " bytes); 0 turns the front off");
        }
        final long maxHeap = Runtime.getRuntime().maxMemory();
        if (hotFrontBytesPerState > maxHeap / 2)
        {
            throw new IllegalArgumentException("hotFrontBytesPerState " + hotFrontBytesPerState + " is more than " +
                "half of this JVM's maximum heap (" + maxHeap + " bytes): the front lives on the heap; lower it or " +
                "raise -Xmx");
        }
        if (expectedEntriesPerState < 1 || expectedEntriesPerState > 1L << 40)
        {
            throw new IllegalArgumentException("expectedEntriesPerState must be in [1, 2^40], not " +
                expectedEntriesPerState);
        }
        if (averageKeySize < 1)
        {
            throw new IllegalArgumentException("averageKeySize must be at least 1 byte, not " + averageKeySize);
        }
        if (averageValueSize < 1)
        {
            throw new IllegalArgumentException("averageValueSize must be at least 1 byte, not " + averageValueSize);
        }
        if (maxEntrySize < 2 || maxEntrySize > 1 << 30)
        {
            throw new IllegalArgumentException("maxEntrySize must be in [2, 2^30] bytes, not " + maxEntrySize);
        }
        if (averageKeySize + averageValueSize > maxEntrySize)
        {
            throw new IllegalArgumentException("averageKeySize + averageValueSize (" + averageKeySize + " + " +
                averageValueSize + ") must not exceed maxEntrySize (" + maxEntrySize + ")");
        }
        if (!(maxGrowthFactor >= 1.0 && maxGrowthFactor <= MAX_GROWTH_FACTOR_LIMIT))
        {
            throw new IllegalArgumentException("maxGrowthFactor must be in [1, " + MAX_GROWTH_FACTOR_LIMIT +
                "], not " + maxGrowthFactor);
        }
        this.expectedEntriesPerState = expectedEntriesPerState;
        this.averageKeySize = averageKeySize;
        this.averageValueSize = averageValueSize;
        this.maxEntrySize = maxEntrySize;
        this.maxGrowthFactor = maxGrowthFactor;
        this.directory = directory;
        this.hotKeysPerState = hotKeysPerState;
        this.hotFrontBytesPerState = hotFrontBytesPerState;
        final long oneCopy = (long)maxEntrySize + PendingStatePart.PRESERVED_ENTRY_OVERHEAD;
        if (preservedCopyBytesPerState < oneCopy)
        {
            throw new IllegalArgumentException("preservedCopyBytesPerState " + preservedCopyBytesPerState +
                " is less than one copy of the largest entry (maxEntrySize " + maxEntrySize + " + " +
                PendingStatePart.PRESERVED_ENTRY_OVERHEAD + " bytes of overhead = " + oneCopy + ")");
        }
        if (preservedCopyBytesPerState > maxHeap / 2)
        {
            throw new IllegalArgumentException("preservedCopyBytesPerState " + preservedCopyBytesPerState +
                " is more than half of this JVM's maximum heap (" + maxHeap + " bytes): the copies live on the " +
                "heap; lower it or raise -Xmx");
        }
        this.preservedCopyBytesPerState = preservedCopyBytesPerState;
    }

    /**
     * @return 1,000,000 entries per state, 8-byte keys, 16-byte values, entries up to 16 KiB, growth to 4 times,
     * in memory, a hot-key front of up to 64 MiB (or a sixteenth of the maximum heap, if less) per value state on the
     * heap (about 2 million {@code Long} counters).
     */
    public static ChronicleStateConfig defaults()
    {
        return DEFAULTS;
    }

    /**
     * @return whether the maps are sized as by {@link #defaults()} (entries, key, value and entry sizes, growth),
     *     which Chronicle Map is known to accept; directory and hot keys do not change the sizing.
     */
    boolean sizedAsDefaults()
    {
        return expectedEntriesPerState == DEFAULTS.expectedEntriesPerState &&
            averageKeySize == DEFAULTS.averageKeySize && averageValueSize == DEFAULTS.averageValueSize &&
            maxEntrySize == DEFAULTS.maxEntrySize && maxGrowthFactor == DEFAULTS.maxGrowthFactor;
    }

    /** @return the number of entries each state's map is sized for. */
    public long expectedEntriesPerState()
    {
        return expectedEntriesPerState;
    }

    /** @return the average encoded key size, in bytes, used for sizing. */
    public int averageKeySize()
    {
        return averageKeySize;
    }

    /** @return the average encoded value size, in bytes, used for sizing. */
    public int averageValueSize()
    {
        return averageValueSize;
    }

    /**
     * @return the largest entry accepted, in bytes: encoded key plus encoded value. A larger one is refused with an
     * {@link IllegalArgumentException} naming its state, before anything changes.
     */
    public int maxEntrySize()
    {
        return maxEntrySize;
    }

    /**
     * @return how many times {@link #expectedEntriesPerState()} a map may grow to (Chronicle Map's "max bloat
     * factor": extra segment tiers, allocated on demand); beyond it a write is refused with an
     * {@link IllegalStateException} naming the state, before anything changes.
     */
    public double maxGrowthFactor()
    {
        return maxGrowthFactor;
    }

    /**
     * @return the directory in which each store creates its own subdirectory of memory-mapped map files (deleted
     * when the store is closed), or null to keep the maps in anonymous off-heap memory.
     */
    public Path directory()
    {
        return directory;
    }

    /**
     * @param entries the number of entries each state's map is sized for, in [1, 2^40].
     * @return a copy with that option.
     */
    public ChronicleStateConfig withExpectedEntriesPerState(final long entries)
    {
        return new ChronicleStateConfig(entries, averageKeySize, averageValueSize, maxEntrySize, maxGrowthFactor,
            directory, hotKeysPerState, hotFrontBytesPerState, preservedCopyBytesPerState);
    }

    /**
     * @param bytes the average encoded key size, at least 1.
     * @return a copy with that option.
     */
    public ChronicleStateConfig withAverageKeySize(final int bytes)
    {
        return new ChronicleStateConfig(expectedEntriesPerState, bytes, averageValueSize, maxEntrySize,
            maxGrowthFactor, directory, hotKeysPerState, hotFrontBytesPerState, preservedCopyBytesPerState);
    }

    /**
     * @param bytes the average encoded value size, at least 1.
     * @return a copy with that option.
     */
    public ChronicleStateConfig withAverageValueSize(final int bytes)
    {
        return new ChronicleStateConfig(expectedEntriesPerState, averageKeySize, bytes, maxEntrySize,
            maxGrowthFactor, directory, hotKeysPerState, hotFrontBytesPerState, preservedCopyBytesPerState);
    }

    /**
     * @param bytes the largest encoded key plus value accepted, in [2, 2^30], at least the two averages together.
     * @return a copy with that option.
     */
    public ChronicleStateConfig withMaxEntrySize(final int bytes)
    {
        return new ChronicleStateConfig(expectedEntriesPerState, averageKeySize, averageValueSize, bytes,
            maxGrowthFactor, directory, hotKeysPerState, hotFrontBytesPerState, preservedCopyBytesPerState);
    }

    /**
     * @param factor how many times the expected entries a map may grow to, in [1, 1000].
     * @return a copy with that option.
     */
    public ChronicleStateConfig withMaxGrowthFactor(final double factor)
    {
        return new ChronicleStateConfig(expectedEntriesPerState, averageKeySize, averageValueSize, maxEntrySize,
            factor, directory, hotKeysPerState, hotFrontBytesPerState, preservedCopyBytesPerState);
    }

    /**
     * @param path where to create memory-mapped map files, or null for anonymous off-heap memory.
     * @return a copy with that option.
     */
    public ChronicleStateConfig withDirectory(final Path path)
    {
        return new ChronicleStateConfig(expectedEntriesPerState, averageKeySize, averageValueSize, maxEntrySize,
            maxGrowthFactor, path, hotKeysPerState, hotFrontBytesPerState, preservedCopyBytesPerState);
    }

    /**
     * @return how many keys of each value state (without time-to-live) the hot-key front keeps on the heap, decoded,
     * in front of Chronicle Map: reads and writes of those keys never reach the map until they are written back (all
     * at once, when a front of at most 65,536 keys turns over because its keys are not hot, or on
     * {@link ChronicleKeyedStateStore#writeBackHotKeys()}). 0 disables the front; {@link #HOT_KEYS_FROM_BUDGET} (the
     * default) derives it from {@link #hotFrontBytesPerState()}.
     */
    public int hotKeysPerState()
    {
        return hotKeysPerState;
    }

    /**
     * @return the heap each value state's hot-key front may use, in bytes, when {@link #hotKeysPerState()} is
     * {@link #HOT_KEYS_FROM_BUDGET}: a front of {@code Long} keys and values holds a key per 32 bytes (48 with the
     * change stamps of incremental checkpoints), rounded down to a power of two; other fronts a key per
     * {@code 96 + averageKeySize + averageValueSize} bytes, at most {@link #BOXED_HOT_KEYS}. A front grows as keys
     * arrive, so a small state uses little of it. While a checkpoint is written the table of {@code Long} counters
     * can need up to about twice its size (the flusher's gathered entries, chunk copies); the chunk copies are
     * recycled rather than collected, so once checkpoints have copied the whole table that second copy stays for the
     * store's life. 0 disables the front.
     */
    public long hotFrontBytesPerState()
    {
        return hotFrontBytesPerState;
    }

    /**
     * The capacity of one value state's hot-key front.
     *
     * @param unboxedLongs  whether keys and values are both {@code Long}s (kept unboxed).
     * @param tracksChanges whether change stamps are kept (incremental checkpoints).
     * @return the most keys it holds; 0 for no front.
     */
    int hotKeyCapacity(final boolean unboxedLongs, final boolean tracksChanges)
    {
        if (hotKeysPerState != HOT_KEYS_FROM_BUDGET)
        {
            return hotKeysPerState;
        }
        if (hotFrontBytesPerState == 0)
        {
            return 0;
        }
        if (unboxedLongs)
        {
            final long slots = Long.highestOneBit(hotFrontBytesPerState /
                (UNBOXED_FRONT_BYTES_PER_SLOT + (tracksChanges ? Long.BYTES : 0)));
            return (int)Math.min(MAX_HOT_KEYS_PER_STATE, slots / 2);
        }
        // a boxed front is copied at every barrier and turns over whole: kept at most BOXED_HOT_KEYS, so that neither
        // grows with the budget
        return (int)Math.max(1, Math.min(BOXED_HOT_KEYS,
            hotFrontBytesPerState / (BOXED_FRONT_OVERHEAD_BYTES + averageKeySize + averageValueSize)));
    }

    /**
     * @param bytes the heap each value state's hot-key front may use: 0 (no front), or at least 32 KiB and at most
     *              half of this JVM's maximum heap. Used when {@link #hotKeysPerState()} is
     *              {@link #HOT_KEYS_FROM_BUDGET}.
     * @return a copy with that option.
     */
    public ChronicleStateConfig withHotFrontBytesPerState(final long bytes)
    {
        return new ChronicleStateConfig(expectedEntriesPerState, averageKeySize, averageValueSize, maxEntrySize,
            maxGrowthFactor, directory, hotKeysPerState, bytes, preservedCopyBytesPerState);
    }

    /**
     * @param keys how many keys of each value state the hot-key front keeps on the heap, in [0, 2^27]; 0 disables it;
     *             {@link #HOT_KEYS_FROM_BUDGET} sizes it from {@link #hotFrontBytesPerState()}.
     * @return a copy with that option.
     */
    public ChronicleStateConfig withHotKeysPerState(final int keys)
    {
        return new ChronicleStateConfig(expectedEntriesPerState, averageKeySize, averageValueSize, maxEntrySize,
            maxGrowthFactor, directory, keys, hotFrontBytesPerState, preservedCopyBytesPerState);
    }

    /**
     * @param bytes the heap a full snapshot being written may hold, per state, in copies of the values the task
     *              changed before the flusher read them (copy-on-write), counted as key and value bytes plus
     *              {@value PendingStatePart#PRESERVED_ENTRY_OVERHEAD} bytes a copy: at least one copy of the largest
     *              entry ({@link #maxEntrySize()} plus that overhead), at most half of this JVM's maximum heap. Past it
     *              a write waits, outside any lock, until the flusher has freed a quarter of the copies or finished:
     *              the record path slows to the flusher's pace instead of filling the heap.
     * @return a copy with that option.
     */
    public ChronicleStateConfig withPreservedCopyBytesPerState(final long bytes)
    {
        return new ChronicleStateConfig(expectedEntriesPerState, averageKeySize, averageValueSize, maxEntrySize,
            maxGrowthFactor, directory, hotKeysPerState, hotFrontBytesPerState, bytes);
    }

    /**
     * @return the heap a full snapshot being written may hold per state in copies of old values before a write waits
     *     for its flusher; see {@link #withPreservedCopyBytesPerState}.
     */
    public long preservedCopyBytesPerState()
    {
        return preservedCopyBytesPerState;
    }

    @Override
    public String toString()
    {
        return "ChronicleStateConfig{expectedEntriesPerState=" + expectedEntriesPerState +
            ", averageKeySize=" + averageKeySize +
            ", averageValueSize=" + averageValueSize +
            ", maxEntrySize=" + maxEntrySize +
            ", maxGrowthFactor=" + maxGrowthFactor +
            ", directory=" + directory +
            ", hotKeysPerState=" + hotKeysPerState +
            ", hotFrontBytesPerState=" + hotFrontBytesPerState +
            ", preservedCopyBytesPerState=" + preservedCopyBytesPerState + '}';
    }
}
