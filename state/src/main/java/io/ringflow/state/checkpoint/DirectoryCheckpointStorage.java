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
 *   &lt;dir&gt;/chk-&lt;n&gt;/&lt;state files&gt;  written (and fsynced) by the snapshot flushers before the metadata
 * </pre>
 *
 * State files are written under a temporary name, fsynced, then renamed to their final name, so a file that exists
 * under its final name is complete; the metadata additionally records each one's length and CRC32C.
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
    public StateOutput createStateOutput(final long checkpointId, final String name) throws IOException
    {
        final Path folder = directory.resolve(PREFIX + checkpointId);
        final Path target = folder.resolve(name);
        final Path temp = folder.resolve(name + ".inprogress");
        final FileChannel channel;
        try
        {
            Files.createDirectories(folder);
            channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        }
        catch (final IOException ex)
        {
            throw new IOException("cannot create state file " + temp + ": " + ex, ex);
        }
        final java.io.OutputStream out = new java.io.BufferedOutputStream(java.nio.channels.Channels.newOutputStream(
            channel), 64 * 1024);
        return new StateOutput(name)
        {
            @Override
            protected void writeBytes(final byte[] bytes, final int offset, final int count) throws IOException
            {
                out.write(bytes, offset, count);
            }

            @Override
            protected void finish() throws IOException
            {
                try (channel)
                {
                    out.flush();
                    channel.force(true);
                }
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
            }

            @Override
            protected void discard()
            {
                try
                {
                    channel.close();
                    Files.deleteIfExists(temp);
                }
                catch (final IOException ignored)
                {
                    // an abandoned file; the checkpoint folder is discarded as a whole too
                }
            }
        };
    }

    @Override
    public byte[] readState(final long checkpointId, final StateHandle handle) throws IOException
    {
        final Path file = directory.resolve(PREFIX + checkpointId).resolve(handle.name());
        final byte[] bytes;
        try
        {
            bytes = Files.readAllBytes(file);
        }
        catch (final NoSuchFileException ex)
        {
            throw new CorruptCheckpointException(file.toString(), "missing");
        }
        return MetadataFormat.verifyState(bytes, handle, file.toString());
    }

    @Override
    public synchronized void discardPending(final long checkpointId) throws IOException
    {
        final Path folder = directory.resolve(PREFIX + checkpointId);
        if (Files.isDirectory(folder) && !Files.exists(folder.resolve(METADATA)))
        {
            deleteRecursively(folder);
        }
    }

    @Override
    public String describe()
    {
        return "checkpoint directory " + directory;
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
        final List<Long> committed = new ArrayList<>();
        for (final long id : checkpointIds())
        {
            if (id < metadata.checkpointId() && isCommittedCheckpoint(id))
            {
                committed.add(id);
            }
        }
        // the new checkpoint counts as one of the retained
        for (int i = 0; i < committed.size() - (Math.max(1, retained) - 1); i++)
        {
            deleteRecursively(directory.resolve(PREFIX + committed.get(i)));
        }
    }

    /** @return whether the folder holds a committed checkpoint that is not a savepoint; savepoints are never pruned. */
    private boolean isCommittedCheckpoint(final long id)
    {
        try
        {
            return !load(id).savepoint();
        }
        catch (final IOException | CorruptCheckpointException ex)
        {
            // a folder still being written (a newer pending checkpoint) or a corrupt one: not ours to prune here
            return false;
        }
    }

    @Override
    public synchronized void discardAll() throws IOException
    {
        for (final long id : checkpointIds())
        {
            final boolean savepoint;
            try
            {
                savepoint = load(id).savepoint();
            }
            catch (final CorruptCheckpointException ex)
            {
                deleteRecursively(directory.resolve(PREFIX + id));
                continue;
            }
            if (!savepoint)
            {
                deleteRecursively(directory.resolve(PREFIX + id));
            }
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
        final CheckpointMetadata metadata = MetadataFormat.decode(bytes, file.toString());
        if (metadata.checkpointId() != checkpointId)
        {
            throw new CorruptCheckpointException(file.toString(), "it describes checkpoint " +
                metadata.checkpointId() + ", not " + checkpointId + " (a folder copied or renamed by hand?)");
        }
        return metadata;
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
