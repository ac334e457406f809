package io.ringflow.state.chronicle;

import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Creates one store's Chronicle Maps, one per state, of the configured sizing: in anonymous memory, or memory-mapped
 * from files in the store's own subdirectory of {@link ChronicleStateConfig#directory()}, which {@link #deleteFiles}
 * removes. Also checks, once per JVM and sizing, that Chronicle can take entries of {@code maxEntrySize}.
 *
 * <p>Thread contract: the store's task thread; {@link #checkEntryCapacity} any thread.
 */
final class StateMapFactory
{
    /** Bytes Chronicle Map adds to an entry beyond the key and value: their sizes, stop-bit encoded, and slack. */
    private static final int ENTRY_OVERHEAD = 16;

    /**
     * Per map sizing (entries, average key and value sizes, growth factor), the largest entry Chronicle Map takes:
     * probed once per JVM, since every subtask and every restart of a job builds stores of one sizing.
     */
    private static final ConcurrentHashMap<String, Long> ENTRY_CAPACITY_BY_SIZING = new ConcurrentHashMap<>();

    private final ChronicleStateConfig config;
    /** This store's own subdirectory of map files, or null for in-memory maps. */
    private final Path files;
    /** Map files created so far; names the next. */
    private int mapFilesCreated;

    /**
     * @param config the sizing and location of the maps.
     * @throws IllegalArgumentException when {@code maxEntrySize} cannot fit in a map of the configured size, or the
     *                                  directory cannot be used; the message names the option or the directory.
     */
    StateMapFactory(final ChronicleStateConfig config)
    {
        this.config = config;
        if (!config.sizedAsDefaults())
        {
            // the default sizing is known to hold maxEntrySize (a test builds it); a probe map costs ~0.1 s of start-up
            checkEntryCapacity(config);
        }
        this.files = createFilesDirectory(config.directory());
    }

    /**
     * @param name           the state's name.
     * @param trackingChanges whether the map records its changed keys from the start (incremental snapshots).
     * @return a new, empty map for the state; its Chronicle Map is created at its first write (which throws
     *     {@link UncheckedIOException} when its file cannot be created).
     */
    StateMap create(final String name, final boolean trackingChanges)
    {
        // created at the state's first write: a state that lives in its hot-key front never initialises Chronicle
        final StateMap state = new StateMap(name, () -> createMap(name), config);
        if (trackingChanges)
        {
            state.trackChanges();
        }
        return state;
    }

    private ChronicleMap<EncodedBytes, EncodedBytes> createMap(final String name)
    {
        final ChronicleMapBuilder<EncodedBytes, EncodedBytes> builder = builder(config, name);
        if (files == null)
        {
            return builder.create();
        }
        // numbered by a counter, never reused: a map removed after a failed declaration leaves its file
        final Path file = files.resolve("state-" + mapFilesCreated++ + ".cm");
        try
        {
            return builder.createPersistedTo(file.toFile());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot create the map file " + file + " of state '" + name + "'", ex);
        }
    }

    /** @return the store's directory of map files, or null when its maps are in memory. */
    Path filesDirectory()
    {
        return files;
    }

    /**
     * Deletes the store's directory of map files, if it has one; after its maps are closed.
     *
     * @throws UncheckedIOException when a file cannot be deleted.
     */
    void deleteFiles()
    {
        if (files == null)
        {
            return;
        }
        try (Stream<Path> paths = Files.walk(files))
        {
            for (final Path path : (Iterable<Path>)paths.sorted(Comparator.reverseOrder())::iterator)
            {
                Files.deleteIfExists(path);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot delete the state files in " + files, ex);
        }
    }

    private static ChronicleMapBuilder<EncodedBytes, EncodedBytes> builder(
        final ChronicleStateConfig config, final String name)
    {
        return ChronicleMapBuilder.of(EncodedBytes.class, EncodedBytes.class)
            .name("ringflow-state:" + name)
            .keyReaderAndDataAccess(EncodedBytesReader.INSTANCE, new EncodedBytesAccess())
            .valueReaderAndDataAccess(EncodedBytesReader.INSTANCE, new EncodedBytesAccess())
            .entries(config.expectedEntriesPerState())
            .averageKeySize(config.averageKeySize() + StoredKeyLayout.KEY_OFFSET)
            .averageValueSize(config.averageValueSize())
            .maxBloatFactor(config.maxGrowthFactor())
            // the files are scratch space, never reopened after a crash: no per-entry checksums
            .checksumEntries(false);
    }

    /**
     * Chronicle Map refuses an entry larger than one segment tier; a map of the configured size is built once per JVM
     * and sizing, in memory, to learn that bound, so a {@code maxEntrySize} it cannot honour fails here rather than
     * on a write.
     *
     * @param config the configuration to check.
     * @throws IllegalArgumentException naming the options to change.
     */
    static void checkEntryCapacity(final ChronicleStateConfig config)
    {
        final String sizing = config.expectedEntriesPerState() + "/" + config.averageKeySize() + "/" +
            config.averageValueSize() + "/" + config.maxGrowthFactor();
        final Long known = ENTRY_CAPACITY_BY_SIZING.get(sizing);
        final long capacity;
        if (known != null)
        {
            capacity = known;
        }
        else
        {
            try (ChronicleMap<EncodedBytes, EncodedBytes> probe = builder(config, "sizing probe").create())
            {
                final VanillaChronicleHash<?, ?, ?, ?> hash = (VanillaChronicleHash<?, ?, ?, ?>)probe;
                capacity = hash.chunkSize * hash.maxChunksPerEntry;
            }
            catch (final IllegalArgumentException | IllegalStateException ex)
            {
                throw new IllegalArgumentException("Chronicle Map cannot be sized by " + config + ": " +
                    ex.getMessage(), ex);
            }
            ENTRY_CAPACITY_BY_SIZING.put(sizing, capacity);
        }
        final long needed = (long)config.maxEntrySize() + StoredKeyLayout.KEY_OFFSET + ENTRY_OVERHEAD;
        if (capacity < needed)
        {
            throw new IllegalArgumentException("maxEntrySize " + config.maxEntrySize() + " is too large for maps " +
                "sized for expectedEntriesPerState " + config.expectedEntriesPerState() + " (averageKeySize " +
                config.averageKeySize() + ", averageValueSize " + config.averageValueSize() + "): Chronicle Map " +
                "then takes entries of at most " + (capacity - StoredKeyLayout.KEY_OFFSET - ENTRY_OVERHEAD) +
                " bytes; lower maxEntrySize or raise expectedEntriesPerState");
        }
    }

    private static Path createFilesDirectory(final Path directory)
    {
        if (directory == null)
        {
            return null;
        }
        try
        {
            Files.createDirectories(directory);
        }
        catch (final IOException | SecurityException ex)
        {
            throw new IllegalArgumentException("the state directory " + directory + " (ChronicleStateConfig." +
                "directory) cannot be created: " + ex, ex);
        }
        if (!Files.isDirectory(directory))
        {
            throw new IllegalArgumentException("the state directory " + directory + " (ChronicleStateConfig." +
                "directory) is not a directory");
        }
        if (!Files.isWritable(directory))
        {
            throw new IllegalArgumentException("the state directory " + directory + " (ChronicleStateConfig." +
                "directory) is not writable");
        }
        try
        {
            return Files.createTempDirectory(directory, "ringflow-state-");
        }
        catch (final IOException | SecurityException ex)
        {
            throw new IllegalArgumentException("the state directory " + directory + " (ChronicleStateConfig." +
                "directory) is not writable: " + ex, ex);
        }
    }
}
