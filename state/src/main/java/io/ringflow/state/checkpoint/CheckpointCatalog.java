package io.ringflow.state.checkpoint;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads checkpoints on disk and never writes: lists the {@code chk-<n>} folders of a checkpoint directory and
 * verifies each one, its {@code _metadata} (magic, version, CRC32C, the id it names) and every state file it
 * references, in its own folder or in the directory's {@code shared/} area (length and CRC32C against the metadata's
 * handles, read as a stream, so a file of any size is checked without being held in memory). What the
 * {@code ringflow checkpoints} and {@code ringflow verify} commands print. Stateless; any thread.
 */
public final class CheckpointCatalog
{
    private static final String PREFIX = "chk-";

    private CheckpointCatalog()
    {
    }

    /**
     * What one checkpoint folder holds and whether it can be restored from.
     *
     * @param checkpointId the id its folder name gives.
     * @param folder       the {@code chk-<n>} folder.
     * @param metadata     its decoded metadata, or null when the metadata is missing or corrupt.
     * @param stateFiles   the distinct state files it references (a shared file referenced twice counts once).
     * @param stateBytes   their total length, as the metadata records it.
     * @param problems     why it cannot be restored from, one line each (file, then what is wrong); empty when intact.
     */
    public record Report(long checkpointId, Path folder, CheckpointMetadata metadata, int stateFiles, long stateBytes,
        List<String> problems)
    {
        /**
         * @param checkpointId the id.
         * @param folder       the folder.
         * @param metadata     the metadata, or null.
         * @param stateFiles   distinct files.
         * @param stateBytes   their bytes.
         * @param problems     copied.
         */
        public Report
        {
            Objects.requireNonNull(folder, "folder");
            problems = List.copyOf(problems);
        }

        /** @return whether the metadata and every file it references are present and match their checksums. */
        public boolean intact()
        {
            return problems.isEmpty();
        }

        /** @return whether its metadata says it is a savepoint (false when the metadata cannot be read). */
        public boolean savepoint()
        {
            return metadata != null && metadata.savepoint();
        }

        /**
         * @return the length of its longest keyed state chain: 0 without keyed state, 1 when every subtask's keyed
         *     state is one full snapshot, more when increments are applied on top of a base (an incremental
         *     checkpoint).
         */
        public int longestKeyedChain()
        {
            int longest = 0;
            if (metadata != null)
            {
                for (final OperatorState operator : metadata.operators().values())
                {
                    for (final SubtaskState subtask : operator.subtasks())
                    {
                        longest = Math.max(longest, subtask.keyedChain().size());
                    }
                }
            }
            return longest;
        }
    }

    /**
     * Verifies every checkpoint folder of a directory.
     *
     * @param directory a checkpoint directory: the one given to {@code CheckpointConfig.directory(...)}.
     * @return a report per {@code chk-<n>} folder, oldest first; empty when there is none.
     * @throws NoSuchFileException   when the directory does not exist.
     * @throws NotDirectoryException when it is not a directory.
     * @throws IOException           when it cannot be listed.
     */
    public static List<Report> list(final Path directory) throws IOException
    {
        if (!Files.exists(directory))
        {
            throw new NoSuchFileException(directory.toString(), null, "no such checkpoint directory");
        }
        if (!Files.isDirectory(directory))
        {
            throw new NotDirectoryException(directory.toString());
        }
        final List<Report> reports = new ArrayList<>();
        for (final Path folder : folders(directory))
        {
            reports.add(verifyFolder(folder));
        }
        return reports;
    }

    /**
     * Finds the checkpoint a job resuming from {@code directory} starts from, verifying newest first and stopping at
     * the first intact one (cheaper than {@link #list} when older checkpoints are many).
     *
     * @param directory a checkpoint directory.
     * @param skipped   given each newer checkpoint that was not intact (incomplete or damaged), newest first.
     * @return the newest intact checkpoint, or empty when there is none (or the directory does not exist).
     * @throws NotDirectoryException when it is not a directory.
     * @throws IOException           when it cannot be listed.
     */
    public static Optional<Report> newestIntact(final Path directory, final java.util.function.Consumer<Report> skipped)
        throws IOException
    {
        if (!Files.exists(directory))
        {
            return Optional.empty();
        }
        if (!Files.isDirectory(directory))
        {
            throw new NotDirectoryException(directory.toString());
        }
        final List<Path> folders = folders(directory);
        for (int i = folders.size() - 1; i >= 0; i--)
        {
            final Report report = verifyFolder(folders.get(i));
            if (report.intact())
            {
                return Optional.of(report);
            }
            skipped.accept(report);
        }
        return Optional.empty();
    }

    /** @return the {@code chk-<n>} folders of a directory, by id ascending. */
    private static List<Path> folders(final Path directory) throws IOException
    {
        final List<Path> folders = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory, PREFIX + "*"))
        {
            for (final Path entry : entries)
            {
                if (Files.isDirectory(entry) && idOf(entry) > 0)
                {
                    folders.add(entry);
                }
            }
        }
        folders.sort(Comparator.comparingLong(CheckpointCatalog::idOf));
        return folders;
    }

    /**
     * Verifies one checkpoint.
     *
     * @param checkpoint its {@code chk-<n>} folder or that folder's {@code _metadata} file, as {@code -s} takes it.
     * @return its report.
     * @throws IllegalArgumentException when the path names no {@code chk-<n>} folder, saying what it is instead.
     * @throws NoSuchFileException      when it does not exist.
     * @throws IOException              when it cannot be read at all.
     */
    public static Report verify(final Path checkpoint) throws IOException
    {
        final Path folder = DirectoryCheckpointStorage.METADATA.equals(String.valueOf(checkpoint.getFileName())) ?
            checkpoint.toAbsolutePath().getParent() : checkpoint.toAbsolutePath();
        if (!Files.exists(folder))
        {
            throw new NoSuchFileException(folder.toString(), null, "no such checkpoint");
        }
        if (!Files.isDirectory(folder) || idOf(folder) <= 0)
        {
            throw new IllegalArgumentException("not a checkpoint: " + checkpoint +
                " (expected a chk-<n> folder or its " + DirectoryCheckpointStorage.METADATA + " file)");
        }
        return verifyFolder(folder);
    }

    /**
     * @param reports reports of one directory.
     * @return the intact one with the highest id, the one a restart would pick, if any.
     */
    public static Optional<Report> newestIntact(final List<Report> reports)
    {
        Report newest = null;
        for (final Report report : reports)
        {
            if (report.intact() && (newest == null || report.checkpointId() > newest.checkpointId()))
            {
                newest = report;
            }
        }
        return Optional.ofNullable(newest);
    }

    private static Report verifyFolder(final Path folder) throws IOException
    {
        final long id = idOf(folder);
        final Path metadataFile = folder.resolve(DirectoryCheckpointStorage.METADATA);
        final List<String> problems = new ArrayList<>();
        if (!Files.isRegularFile(metadataFile))
        {
            problems.add(metadataFile + ": missing (the checkpoint never committed)");
            return new Report(id, folder, null, 0, 0, problems);
        }
        final CheckpointMetadata metadata;
        try
        {
            metadata = MetadataFormat.decode(Files.readAllBytes(metadataFile), metadataFile.toString());
        }
        catch (final CorruptCheckpointException ex)
        {
            problems.add(ex.getMessage());
            return new Report(id, folder, null, 0, 0, problems);
        }
        if (metadata.checkpointId() != id)
        {
            problems.add(metadataFile + ": it describes checkpoint " + metadata.checkpointId() + ", not " + id +
                " (a folder copied or renamed by hand?)");
        }
        final Map<Path, StateHandle> files = new LinkedHashMap<>();
        for (final StateHandle handle : metadata.stateHandles())
        {
            files.putIfAbsent(fileOf(folder, handle), handle);
        }
        long bytes = 0;
        for (final Map.Entry<Path, StateHandle> file : files.entrySet())
        {
            bytes += file.getValue().length();
            final String problem = check(file.getKey(), file.getValue());
            if (problem != null)
            {
                problems.add(file.getKey() + ": " + problem);
            }
        }
        return new Report(id, folder, metadata, files.size(), bytes, problems);
    }

    /**
     * @param folder a checkpoint's {@code chk-<n>} folder.
     * @param handle a state file it references.
     * @return where that file is: in the folder, or in the directory's {@code shared/} area.
     */
    public static Path fileOf(final Path folder, final StateHandle handle)
    {
        return handle.shared() ?
            folder.getParent().resolve(DirectoryCheckpointStorage.SHARED).resolve(handle.name()) :
            folder.resolve(handle.name());
    }

    /** @return what is wrong with the file, or null when its length and CRC32C match the handle. */
    private static String check(final Path file, final StateHandle handle) throws IOException
    {
        if (!Files.isRegularFile(file))
        {
            return handle.shared() ? "missing (a shared file of an incremental chain, deleted or never copied)" :
                "missing";
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            return MetadataFormat.problemOf(channel, handle);
        }
    }

    private static long idOf(final Path folder)
    {
        final String name = String.valueOf(folder.getFileName());
        if (!name.startsWith(PREFIX))
        {
            return -1;
        }
        try
        {
            return Long.parseLong(name.substring(PREFIX.length()));
        }
        catch (final NumberFormatException notOurs)
        {
            return -1;
        }
    }
}
