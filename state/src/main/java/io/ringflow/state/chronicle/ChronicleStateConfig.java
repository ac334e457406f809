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
    /** Default {@link #hotKeysPerState()}. */
    public static final int DEFAULT_HOT_KEYS_PER_STATE = 1024;
    /** Largest {@link #hotKeysPerState()}. */
    public static final int MAX_HOT_KEYS_PER_STATE = 1 << 20;

    private static final ChronicleStateConfig DEFAULTS = new ChronicleStateConfig(DEFAULT_EXPECTED_ENTRIES,
        DEFAULT_AVERAGE_KEY_SIZE, DEFAULT_AVERAGE_VALUE_SIZE, DEFAULT_MAX_ENTRY_SIZE, DEFAULT_MAX_GROWTH_FACTOR, null,
        DEFAULT_HOT_KEYS_PER_STATE);

    private final long expectedEntriesPerState;
    private final int averageKeySize;
    private final int averageValueSize;
    private final int maxEntrySize;
    private final double maxGrowthFactor;
    private final Path directory;
    private final int hotKeysPerState;

    private ChronicleStateConfig(
        final long expectedEntriesPerState, final int averageKeySize, final int averageValueSize,
        final int maxEntrySize, final double maxGrowthFactor, final Path directory, final int hotKeysPerState)
    {
        if (hotKeysPerState < 0 || hotKeysPerState > MAX_HOT_KEYS_PER_STATE)
        {
            throw new IllegalArgumentException("hotKeysPerState must be in [0, " + MAX_HOT_KEYS_PER_STATE +
                "], not " + hotKeysPerState);
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
    }

    /**
     * @return 1,000,000 entries per state, 8-byte keys, 16-byte values, entries up to 16 KiB, growth to 4 times,
     * in memory, 1,024 hot keys per value state on the heap.
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
            directory, hotKeysPerState);
    }

    /**
     * @param bytes the average encoded key size, at least 1.
     * @return a copy with that option.
     */
    public ChronicleStateConfig withAverageKeySize(final int bytes)
    {
        return new ChronicleStateConfig(expectedEntriesPerState, bytes, averageValueSize, maxEntrySize,
            maxGrowthFactor, directory, hotKeysPerState);
    }

    /**
     * @param bytes the average encoded value size, at least 1.
     * @return a copy with that option.
     */
    public ChronicleStateConfig withAverageValueSize(final int bytes)
    {
        return new ChronicleStateConfig(expectedEntriesPerState, averageKeySize, bytes, maxEntrySize,
            maxGrowthFactor, directory, hotKeysPerState);
    }

    /**
     * @param bytes the largest encoded key plus value accepted, in [2, 2^30], at least the two averages together.
     * @return a copy with that option.
     */
    public ChronicleStateConfig withMaxEntrySize(final int bytes)
    {
        return new ChronicleStateConfig(expectedEntriesPerState, averageKeySize, averageValueSize, bytes,
            maxGrowthFactor, directory, hotKeysPerState);
    }

    /**
     * @param factor how many times the expected entries a map may grow to, in [1, 1000].
     * @return a copy with that option.
     */
    public ChronicleStateConfig withMaxGrowthFactor(final double factor)
    {
        return new ChronicleStateConfig(expectedEntriesPerState, averageKeySize, averageValueSize, maxEntrySize,
            factor, directory, hotKeysPerState);
    }

    /**
     * @param path where to create memory-mapped map files, or null for anonymous off-heap memory.
     * @return a copy with that option.
     */
    public ChronicleStateConfig withDirectory(final Path path)
    {
        return new ChronicleStateConfig(expectedEntriesPerState, averageKeySize, averageValueSize, maxEntrySize,
            maxGrowthFactor, path, hotKeysPerState);
    }

    /**
     * @return how many keys of each value state (without time-to-live) the hot-key front keeps on the heap, decoded,
     * in front of Chronicle Map: reads and writes of those keys never reach the map until they are written back (all
     * at once, when the front turns over because its keys are not hot, or on
     * {@link ChronicleKeyedStateStore#writeBackHotKeys()}). 0 disables the front. The synchronous part of a snapshot
     * copies the front, so its cost grows with this bound, not with the state's size.
     */
    public int hotKeysPerState()
    {
        return hotKeysPerState;
    }

    /**
     * @param keys how many keys of each value state the hot-key front keeps on the heap, in [0, 2^20]; 0 disables it.
     * @return a copy with that option.
     */
    public ChronicleStateConfig withHotKeysPerState(final int keys)
    {
        return new ChronicleStateConfig(expectedEntriesPerState, averageKeySize, averageValueSize, maxEntrySize,
            maxGrowthFactor, directory, keys);
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
            ", hotKeysPerState=" + hotKeysPerState + '}';
    }
}
