package io.ringflow.state.checkpoint;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Keeps checkpoints in a directory:
 *
 * <pre>
 *   &lt;dir&gt;/chk-&lt;n&gt;/_metadata      written last and atomically: its presence is the commit point
 *   &lt;dir&gt;/chk-&lt;n&gt;/&lt;state files&gt;  written (and fsynced) by the snapshot flushers before the metadata
 *   &lt;dir&gt;/shared/&lt;state files&gt;   shared files (keyed chains), referenced by the metadata of one or more
 *                                checkpoints
 * </pre>
 *
 * State files are written under a temporary name, fsynced, then renamed to their final name, so a file that exists
 * under its final name is complete; the metadata additionally records each one's length and CRC32C. Shared files
 * likewise, and the {@code shared} folder is fsynced after each rename (a checkpoint's own files are made durable by
 * the fsync of its folder when its metadata is written). Writing the metadata: to {@code _metadata.inprogress},
 * fsync, rename to {@code _metadata}, fsync the folder. A crash leaves either no {@code _metadata} or a complete one.
 * Retention deletes the oldest {@code chk-*} folders beyond the retained count, only after the new one is committed
 * ({@link #prune}, separate from the commit so that the deletions are not part of a checkpoint's duration). Which
 * folders hold committed checkpoints, and which of those are savepoints, is read from the folders at the first prune
 * and then kept by this object's own commits and deletions: the directory belongs to one job, whose storage object
 * is the only writer.
 *
 * <p>Shared files are reference-counted by scanning: after pruning, the metadata of every {@code chk-*} folder left
 * (they are few) says which shared files are still referenced; every other file in {@code shared/} is deleted unless
 * it was created for a checkpoint still pending in this storage object (pending registrations live in memory only, so
 * after a crash the files of unfinished checkpoints are orphans and go too). A folder without {@code _metadata} never
 * committed and references nothing; a {@code _metadata} that cannot be read stops the collection (never delete on
 * doubt). The {@code shared} folder is created when the first shared file is.
 *
 * <p>Thread-safe: {@link #commit}, {@link #prune}, {@link #discardPending}, {@link #discardAll} and the registration
 * of shared files are serialized on this object; state files are written and read concurrently.
 */
public final class DirectoryCheckpointStorage implements CheckpointStorage
{
    /** Name of the metadata file inside a checkpoint folder. */
    public static final String METADATA = "_metadata";
    /** Name of the folder, beside the checkpoint folders, that holds the shared state files. */
    public static final String SHARED = "shared";
    private static final String PREFIX = "chk-";
    private static final String IN_PROGRESS = ".inprogress";
    private static final System.Logger LOG = System.getLogger(DirectoryCheckpointStorage.class.getName());

    private final Path directory;
    private final Path sharedDirectory;
    /** Each shared file created for a checkpoint not yet stored nor discarded, by name: that checkpoint's id. */
    private final Map<String, Long> pendingShared = new HashMap<>();
    /**
     * The committed checkpoints in the directory, by id: whether each is a savepoint. Read from the folders (listing
     * them, reading each metadata) at the first prune, then kept by this object's commits and deletions, so a prune
     * neither lists the directory nor reads a metadata file again. Null until then, and after {@link #discardAll}.
     * Under this object's lock.
     */
    private TreeMap<Long, Boolean> committed;

    /**
     * @param directory where checkpoints go; created if missing.
     * @throws IOException when it cannot be created or is not writable, naming the directory.
     */
    public DirectoryCheckpointStorage(final Path directory) throws IOException
    {
        this.directory = directory.toAbsolutePath();
        this.sharedDirectory = this.directory.resolve(SHARED);
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

    /** @return the folder of the shared state files, {@code <directory>/shared}; it may not exist yet. */
    public Path sharedDirectory()
    {
        return sharedDirectory;
    }

    @Override
    public StateOutput createStateOutput(final long checkpointId, final String name) throws IOException
    {
        final Path folder = directory.resolve(PREFIX + checkpointId);
        final Path temp = folder.resolve(name + ".inprogress");
        try
        {
            createFolder(folder);
            return new FileStateOutput(name, false, temp, folder.resolve(name));
        }
        catch (final IOException ex)
        {
            throw new IOException("cannot create state file " + temp + ": " + ex, ex);
        }
    }

    @Override
    public synchronized StateOutput createSharedStateOutput(final long checkpointId, final String name)
        throws IOException
    {
        StateHandle.requirePlainName(name);
        if (name.endsWith(IN_PROGRESS))
        {
            throw new IllegalArgumentException("shared state file name must not end in " + IN_PROGRESS + ", was '" +
                name + "'");
        }
        final Path target = sharedDirectory.resolve(name);
        final Path temp = sharedDirectory.resolve(name + IN_PROGRESS);
        if (Files.exists(directory.resolve(PREFIX + checkpointId).resolve(METADATA)))
        {
            throw new IOException("cannot create shared state file " + target + " for checkpoint " + checkpointId +
                ": that checkpoint is already stored");
        }
        final Long owner = pendingShared.get(name);
        if (owner != null)
        {
            throw new FileAlreadyExistsException(target.toString(), null, "shared state file name already in use by " +
                "pending checkpoint " + owner + " (names must be unique in the shared area)");
        }
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS))
        {
            throw new FileAlreadyExistsException(target.toString(), null, "shared state file already exists (names " +
                "must be unique in the shared area)");
        }
        final StateOutput output;
        try
        {
            ensureSharedDirectory();
            output = new FileStateOutput(name, true, temp, target)
            {
                @Override
                protected void moveIntoPlace(final Path from, final Path to) throws IOException
                {
                    try
                    {
                        super.moveIntoPlace(from, to);
                    }
                    catch (final NoSuchFileException ex)
                    {
                        throw new IOException("shared state file " + from + " vanished before it was complete " +
                            "(checkpoint " + checkpointId + " discarded meanwhile?)", ex);
                    }
                    fsyncDirectory(sharedDirectory);
                }

                @Override
                protected void discarded()
                {
                    release(checkpointId, name);
                }
            };
        }
        catch (final IOException ex)
        {
            throw new IOException("cannot create shared state file " + temp + ": " + ex, ex);
        }
        pendingShared.put(name, checkpointId);
        return output;
    }

    /**
     * Forgets that a shared file name belongs to a pending checkpoint, when its output was abandoned unwritten.
     *
     * @param checkpointId the checkpoint it was created for.
     * @param name         the file's name.
     */
    private synchronized void release(final long checkpointId, final String name)
    {
        pendingShared.remove(name, checkpointId);
    }

    private void ensureSharedDirectory() throws IOException
    {
        if (!Files.isDirectory(sharedDirectory))
        {
            Files.createDirectories(sharedDirectory);
            fsyncDirectory(directory);
        }
    }

    @Override
    public byte[] readState(final long checkpointId, final StateHandle handle) throws IOException
    {
        final Path file = pathOf(checkpointId, handle);
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

    /**
     * {@inheritDoc} The file is checked as it is streamed through CRC32C, then read by position from the same open
     * file: it is never held whole.
     */
    @Override
    public StateFile openState(final long checkpointId, final StateHandle handle) throws IOException
    {
        final Path file = pathOf(checkpointId, handle);
        final FileChannel channel = openChecked(file, handle);
        return StateFile.of(channel, handle.length(), file.toString());
    }

    /** {@inheritDoc} Only the file's length is compared with the handle's. */
    @Override
    public StateFile openVerifiedState(final long checkpointId, final StateHandle handle) throws IOException
    {
        final Path file = pathOf(checkpointId, handle);
        final FileChannel channel = open(file);
        try
        {
            final String problem = MetadataFormat.lengthProblemOf(channel.size(), handle);
            if (problem != null)
            {
                throw new CorruptCheckpointException(file.toString(), problem);
            }
            return StateFile.of(channel, handle.length(), file.toString());
        }
        catch (final IOException | RuntimeException ex)
        {
            channel.close();
            throw ex;
        }
    }

    /** {@inheritDoc} The file is streamed through CRC32C, never held whole. */
    @Override
    public void verifyState(final long checkpointId, final StateHandle handle) throws IOException
    {
        openChecked(pathOf(checkpointId, handle), handle).close();
    }

    /** @return the file open for reading, once its length and CRC32C matched {@code handle}. */
    private static FileChannel openChecked(final Path file, final StateHandle handle) throws IOException
    {
        final FileChannel channel = open(file);
        try
        {
            final String problem = MetadataFormat.problemOf(channel, handle);
            if (problem != null)
            {
                throw new CorruptCheckpointException(file.toString(), problem);
            }
            return channel;
        }
        catch (final IOException | RuntimeException ex)
        {
            channel.close();
            throw ex;
        }
    }

    private static FileChannel open(final Path file) throws IOException
    {
        try
        {
            return FileChannel.open(file, StandardOpenOption.READ);
        }
        catch (final NoSuchFileException ex)
        {
            throw new CorruptCheckpointException(file.toString(), "missing");
        }
    }

    private Path pathOf(final long checkpointId, final StateHandle handle)
    {
        return handle.shared() ? sharedDirectory.resolve(handle.name()) :
            directory.resolve(PREFIX + checkpointId).resolve(handle.name());
    }

    @Override
    public synchronized void discardPending(final long checkpointId) throws IOException
    {
        final Path folder = directory.resolve(PREFIX + checkpointId);
        if (Files.isDirectory(folder) && !Files.exists(folder.resolve(METADATA)))
        {
            deleteRecursively(folder);
        }
        final List<String> owned = new ArrayList<>();
        pendingShared.entrySet().removeIf(entry ->
        {
            if (entry.getValue() == checkpointId)
            {
                owned.add(entry.getKey());
                return true;
            }
            return false;
        });
        if (owned.isEmpty())
        {
            return;
        }
        final Set<String> referenced = referencedSharedFiles();
        if (referenced == null)
        {
            // never delete on doubt: they are orphans now, removed by a later collection once the metadata reads
            return;
        }
        for (final String name : owned)
        {
            if (!referenced.contains(name))
            {
                Files.deleteIfExists(sharedDirectory.resolve(name + IN_PROGRESS));
                Files.deleteIfExists(sharedDirectory.resolve(name));
            }
        }
    }

    @Override
    public boolean sameAs(final CheckpointStorage other)
    {
        if (other == this)
        {
            return true;
        }
        if (!(other instanceof DirectoryCheckpointStorage that))
        {
            return false;
        }
        try
        {
            return directory.toRealPath().equals(that.directory.toRealPath());
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    @Override
    public String describe()
    {
        return "checkpoint directory " + directory;
    }

    @Override
    public synchronized void commit(final CheckpointMetadata metadata) throws IOException
    {
        final Path folder = directory.resolve(PREFIX + metadata.checkpointId());
        createFolder(folder);
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
        if (committed != null)
        {
            committed.put(metadata.checkpointId(), metadata.savepoint());
        }
        if (!pendingShared.isEmpty())
        {
            pendingShared.values().removeIf(id -> id == metadata.checkpointId());
        }
    }

    /**
     * {@inheritDoc} Deleting a folder costs about half a millisecond here, with a tail of milliseconds (measured on
     * ext4), which is why it is not part of {@link #commit}.
     */
    @Override
    public synchronized void prune(final long newest, final int retained, final Set<Long> pinned)
    {
        Objects.requireNonNull(pinned, "pinned");
        // after the commit point: a failure to clean up is logged and retried at the next prune, never thrown (the
        // caller would take a stored checkpoint for a failed one)
        try
        {
            final TreeMap<Long, Boolean> stored = committedCheckpoints();
            // the regular checkpoints older than the newest, which counts as one of the retained
            int regular = 0;
            for (final Map.Entry<Long, Boolean> entry : stored.headMap(newest, false).entrySet())
            {
                regular += entry.getValue() ? 0 : 1;
            }
            int toDelete = regular - (Math.max(1, retained) - 1);
            for (final Iterator<Map.Entry<Long, Boolean>> it = stored.headMap(newest, false).entrySet().iterator();
                toDelete > 0 && it.hasNext();)
            {
                final Map.Entry<Long, Boolean> entry = it.next();
                if (entry.getValue())
                {
                    // a savepoint is never pruned
                    continue;
                }
                toDelete--;
                if (!pinned.contains(entry.getKey()))
                {
                    deleteFolder(directory.resolve(PREFIX + entry.getKey()));
                    it.remove();
                }
            }
            collectSharedGarbage();
        }
        catch (final IOException | RuntimeException ex)
        {
            LOG.log(System.Logger.Level.WARNING, "checkpoint " + newest + " is stored, but older checkpoints or " +
                "unreferenced shared files in " + directory + " could not all be deleted; retried at the next " +
                "checkpoint", ex);
        }
    }

    /**
     * Deletes every file in the shared area that no stored checkpoint references and that was not created for a
     * pending checkpoint (including the temporary files of outputs never finished), or nothing when a stored
     * checkpoint's metadata cannot be read. Caller holds the lock.
     */
    private void collectSharedGarbage() throws IOException
    {
        if (!Files.isDirectory(sharedDirectory))
        {
            return;
        }
        final Set<String> referenced = referencedSharedFiles();
        if (referenced == null)
        {
            return;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(sharedDirectory))
        {
            for (final Path file : files)
            {
                final String name = file.getFileName().toString();
                final String base = name.endsWith(IN_PROGRESS) ?
                    name.substring(0, name.length() - IN_PROGRESS.length()) : name;
                if (!referenced.contains(name) && !pendingShared.containsKey(base) &&
                    !Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS))
                {
                    try
                    {
                        Files.deleteIfExists(file);
                    }
                    catch (final IOException ex)
                    {
                        // after the commit point: a file left behind is retried at the next prune, never an error
                        System.getLogger(DirectoryCheckpointStorage.class.getName()).log(
                            System.Logger.Level.WARNING, "cannot delete unreferenced shared state file " + file, ex);
                    }
                }
            }
        }
    }

    /**
     * Scans the metadata of every checkpoint folder. Caller holds the lock.
     *
     * @return the names of the shared files some stored checkpoint references, or null when some folder's
     *     {@code _metadata} exists but cannot be read (then nothing may be deleted; logged as a warning).
     * @throws IOException when the directory cannot be listed.
     */
    private Set<String> referencedSharedFiles() throws IOException
    {
        final Set<String> referenced = new HashSet<>();
        for (final long id : checkpointIds())
        {
            final Path file = directory.resolve(PREFIX + id).resolve(METADATA);
            if (Files.notExists(file))
            {
                continue; // never committed: nothing can be restored from it, so it keeps no shared file
            }
            try
            {
                referenced.addAll(load(id).sharedFiles());
            }
            catch (final IOException | CorruptCheckpointException ex)
            {
                LOG.log(System.Logger.Level.WARNING, "keeping every shared state file in " + sharedDirectory +
                    ": cannot learn which ones " + file + " references: " + ex.getMessage());
                return null;
            }
        }
        return referenced;
    }

    /**
     * @return the committed checkpoints, read from the folders the first time (a folder whose metadata is missing,
     *     a newer pending checkpoint, or cannot be read, a corrupt one, is not ours to prune and is left out).
     * @throws IOException when the directory cannot be listed.
     */
    private TreeMap<Long, Boolean> committedCheckpoints() throws IOException
    {
        if (committed == null)
        {
            final TreeMap<Long, Boolean> found = new TreeMap<>();
            for (final long id : checkpointIds())
            {
                try
                {
                    found.put(id, load(id).savepoint());
                }
                catch (final IOException | CorruptCheckpointException ex)
                {
                    // not committed, or corrupt: never pruned
                }
            }
            committed = found;
        }
        return committed;
    }

    @Override
    public synchronized void discardAll() throws IOException
    {
        // read from the folders again at the next prune
        committed = null;
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
        collectSharedGarbage();
    }

    @Override
    public synchronized List<Long> discardIncomplete() throws IOException
    {
        final List<Long> removed = new ArrayList<>();
        for (final long id : checkpointIds())
        {
            final Path folder = directory.resolve(PREFIX + id);
            if (Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS) && !Files.exists(folder.resolve(METADATA)))
            {
                deleteRecursively(folder);
                removed.add(id);
            }
        }
        return removed;
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

    /**
     * Creates a checkpoint's folder unless it exists: {@link Files#createDirectories} builds and drops an exception
     * when it does, which is every call but a checkpoint's first.
     */
    private static void createFolder(final Path folder) throws IOException
    {
        if (!Files.isDirectory(folder))
        {
            Files.createDirectories(folder);
        }
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

    /**
     * Deletes a checkpoint's folder: its files (a folder inside it, which the engine never makes, recursively), then
     * the folder. One listing, no walk or sort: retention does this at every checkpoint. A folder already gone is
     * no error.
     */
    private static void deleteFolder(final Path folder) throws IOException
    {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(folder))
        {
            for (final Path file : files)
            {
                try
                {
                    Files.deleteIfExists(file);
                }
                catch (final DirectoryNotEmptyException nested)
                {
                    deleteRecursively(file);
                }
            }
        }
        catch (final NoSuchFileException gone)
        {
            return;
        }
        Files.deleteIfExists(folder);
    }
}
