package io.ringflow.state.checkpoint;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Keeps checkpoints in a directory:
 *
 * <pre>
 *   &lt;dir&gt;/chk-&lt;n&gt;/_metadata      written last and atomically: its presence is the commit point
 * </pre>
 *
 * Writing: to {@code _metadata.inprogress}, fsync, rename to {@code _metadata}, fsync the folder. A crash leaves
 * either no {@code _metadata} or a complete one. Retention deletes the oldest {@code chk-*} folders beyond the
 * retained count, only after the new one is committed. Thread-safe: {@link #store} is serialized.
 */
public final class DirectoryCheckpointStorage implements CheckpointStorage
{
    /** Name of the metadata file inside a checkpoint folder. */
    public static final String METADATA = "_metadata";
    private static final String PREFIX = "chk-";

    private final Path directory;

    /**
     * @param directory where checkpoints go; created if missing.
     * @throws IOException when it cannot be created or is not writable, naming the directory.
     */
    public DirectoryCheckpointStorage(final Path directory) throws IOException
    {
        this.directory = directory.toAbsolutePath();
        try
        {
            Files.createDirectories(this.directory);
        }
        catch (final IOException ex)
        {
            throw new IOException("cannot create checkpoint directory " + this.directory + ": " + ex, ex);
        }
        if (!Files.isDirectory(this.directory) || !Files.isWritable(this.directory))
        {
            throw new AccessDeniedException(this.directory.toString(), null, "checkpoint directory is not writable");
        }
    }

    /** @return the directory. */
    public Path directory()
    {
        return directory;
    }

    @Override
    public synchronized void store(final CheckpointMetadata metadata, final int retained) throws IOException
    {
        final Path folder = directory.resolve(PREFIX + metadata.checkpointId());
        Files.createDirectories(folder);
        final Path temp = folder.resolve(METADATA + ".inprogress");
        try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING))
        {
            final ByteBuffer bytes = ByteBuffer.wrap(MetadataFormat.encode(metadata));
            while (bytes.hasRemaining())
            {
                channel.write(bytes);
            }
            channel.force(true);
        }
        Files.move(temp, folder.resolve(METADATA), StandardCopyOption.ATOMIC_MOVE);
        fsyncDirectory(folder);
        final List<Long> ids = checkpointIds();
        for (int i = 0; i < ids.size() - Math.max(1, retained); i++)
        {
            if (ids.get(i) != metadata.checkpointId())
            {
                deleteRecursively(directory.resolve(PREFIX + ids.get(i)));
            }
        }
    }

    @Override
    public synchronized void discardAll() throws IOException
    {
        for (final long id : checkpointIds())
        {
            deleteRecursively(directory.resolve(PREFIX + id));
        }
    }

    @Override
    public List<Long> checkpointIds() throws IOException
    {
        final List<Long> ids = new ArrayList<>();
        try (DirectoryStream<Path> folders = Files.newDirectoryStream(directory, PREFIX + "*"))
        {
            for (final Path folder : folders)
            {
                try
                {
                    ids.add(Long.parseLong(folder.getFileName().toString().substring(PREFIX.length())));
                }
                catch (final NumberFormatException notOurs)
                {
                    // a folder named chk-something that is not a checkpoint: not ours to touch
                }
            }
        }
        ids.sort(null);
        return ids;
    }

    @Override
    public CheckpointMetadata load(final long checkpointId) throws IOException
    {
        final Path file = directory.resolve(PREFIX + checkpointId).resolve(METADATA);
        final byte[] bytes;
        try
        {
            bytes = Files.readAllBytes(file);
        }
        catch (final NoSuchFileException ex)
        {
            throw new CorruptCheckpointException(file.toString(), "missing (the checkpoint never committed)");
        }
        return MetadataFormat.decode(bytes, file.toString());
    }

    private static void fsyncDirectory(final Path folder)
    {
        try (FileChannel channel = FileChannel.open(folder, StandardOpenOption.READ))
        {
            channel.force(true);
        }
        catch (final IOException notSupported)
        {
            // some file systems cannot open a folder for fsync; the rename is still atomic
        }
    }

    private static void deleteRecursively(final Path folder) throws IOException
    {
        try (Stream<Path> paths = Files.walk(folder))
        {
            for (final Path path : (Iterable<Path>)paths.sorted(Comparator.reverseOrder())::iterator)
            {
                Files.deleteIfExists(path);
            }
        }
    }
}
