package io.ringflow.state.checkpoint;

import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.collections.LongHashSet;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps checkpoints in memory, encoded exactly as on disk (so the format and its checks are exercised): for tests and
 * for the lowest latency when durability is not needed. State files live in memory too, and are dropped with their
 * checkpoint: their arrays go back to a {@link ChunkPool} for the files of later checkpoints, so checkpoints of a
 * steady size allocate no state-file arrays once the first are dropped (a restore's read copies a file out). Shared
 * files live in one map, reference-counted like a directory's {@code shared/} folder: after each store (and discard),
 * a shared file that no stored checkpoint references and that was not created for a pending checkpoint is dropped;
 * nothing is dropped while a stored checkpoint's metadata cannot be decoded.
 *
 * <p>Thread-safe: {@link #store}, {@link #discardPending}, {@link #discardAll}, the registration of shared files, the
 * checkpoints' bookkeeping and every lookup or addition of a file are serialized on this object; the bytes of state
 * files are written and read concurrently, outside the lock. A task finishing a small in-memory state file may so
 * wait for a prune under way: with the files of a few checkpoints, microseconds; with shared files (incremental
 * checkpoints), the prune decodes every stored metadata to find the ones still referenced, under the lock.
 */
public final class InMemoryCheckpointStorage implements CheckpointStorage
{
    private static final System.Logger LOG = System.getLogger(InMemoryCheckpointStorage.class.getName());

    /*
     * The checkpoints' bookkeeping is keyed by primitive ids in open-addressing maps, under this object's lock: the
     * concurrent maps it replaced boxed the id and built nodes at every checkpoint, on the acknowledging task thread.
     */
    /** Per stored checkpoint, its encoded metadata. Under the lock. */
    private final Long2ObjectHashMap<byte[]> metadataFiles = new Long2ObjectHashMap<>();
    /** Per checkpoint, its state files by name, committed or pending. Under the lock. */
    private final Long2ObjectHashMap<CheckpointFiles> stateFiles = new Long2ObjectHashMap<>();
    /** The ids of the stored savepoints (a regular checkpoint adds nothing here). Under the lock. */
    private final LongHashSet savepoints = new LongHashSet();
    /**
     * A dropped checkpoint's metadata, for the next commit's encoding when it is as long; or null. Under the lock, as
     * every read of a stored metadata is (a reader outside it could decode another checkpoint's bytes).
     */
    private byte[] spareMetadata;
    /** A dropped checkpoint's emptied file table, for the next checkpoint's first file; or null. Under the lock. */
    private CheckpointFiles spareFiles;
    /** {@link #storedIds}' working array. Under the lock. */
    private long[] idScratch = new long[8];
    /** The shared area: complete shared files by name. */
    private final Map<String, InMemoryFile> sharedFiles = new ConcurrentHashMap<>();
    /** Each shared file created for a checkpoint not yet stored nor discarded, by name: that checkpoint's id. */
    private final Map<String, Long> pendingShared = new HashMap<>();
    /** The arrays of dropped files, for the files of later checkpoints. */
    private final ChunkPool chunkPool = new ChunkPool();
    /** What one {@link #prune} drops, empty between calls; under the lock. */
    private final List<InMemoryFile> droppedFiles = new ArrayList<>();

    @Override
    public StateOutput createStateOutput(final long checkpointId, final String name)
    {
        return new StateOutput(name)
        {
            private final InMemoryFile file = new InMemoryFile(chunkPool);

            @Override
            protected void writeBytes(final byte[] bytes, final int offset, final int count)
            {
                file.write(bytes, offset, count);
            }

            @Override
            protected void finish()
            {
                file.finish();
                addFile(checkpointId, name, file);
            }

            @Override
            protected void discard()
            {
                file.recycle();
            }
        };
    }

    @Override
    public synchronized StateOutput createSharedStateOutput(final long checkpointId, final String name)
        throws IOException
    {
        StateHandle.requirePlainName(name);
        if (name.endsWith(".inprogress"))
        {
            throw new IllegalArgumentException("shared state file name must not end in .inprogress, was '" + name +
                "'");
        }
        final String file = sharedFileName(name);
        if (metadataFiles.containsKey(checkpointId))
        {
            throw new IOException("cannot create shared state file " + file + " for checkpoint " + checkpointId +
                ": that checkpoint is already stored");
        }
        final Long owner = pendingShared.get(name);
        if (owner != null)
        {
            throw new IOException("cannot create shared state file " + file + ": the name is already in use by " +
                "pending checkpoint " + owner + " (names must be unique in the shared area)");
        }
        if (sharedFiles.containsKey(name))
        {
            throw new IOException("cannot create shared state file " + file + ": it already exists (names must be " +
                "unique in the shared area)");
        }
        pendingShared.put(name, checkpointId);
        return new StateOutput(name, true)
        {
            private final InMemoryFile file = new InMemoryFile(chunkPool);

            @Override
            protected void writeBytes(final byte[] bytes, final int offset, final int count)
            {
                file.write(bytes, offset, count);
            }

            @Override
            protected void finish()
            {
                file.finish();
                sharedFiles.put(name, file);
            }

            @Override
            protected void discard()
            {
                file.recycle();
                release(checkpointId, name);
            }
        };
    }

    /**
     * Adds a finished state file to its checkpoint's table, made (or a dropped checkpoint's reused) with the first.
     * Under the lock, as every use of a table is: a table is reused only once dropped, and no one holds it then.
     */
    private synchronized void addFile(final long checkpointId, final String name, final InMemoryFile file)
    {
        CheckpointFiles files = stateFiles.get(checkpointId);
        if (files == null)
        {
            files = spareFiles != null ? spareFiles : new CheckpointFiles();
            spareFiles = null;
            stateFiles.put(checkpointId, files);
        }
        files.put(name, file);
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

    @Override
    public byte[] readState(final long checkpointId, final StateHandle handle)
    {
        final String file;
        final InMemoryFile stored;
        if (handle.shared())
        {
            file = sharedFileName(handle.name());
            stored = sharedFiles.get(handle.name());
        }
        else
        {
            file = fileName(checkpointId, handle.name());
            stored = stateFile(checkpointId, handle.name());
        }
        final byte[] bytes = stored == null ? null : stored.bytes();
        if (bytes == null)
        {
            throw new CorruptCheckpointException(file, "missing");
        }
        return MetadataFormat.verifyState(bytes, handle, file);
    }

    /**
     * {@inheritDoc} In memory, storing never fails.
     */
    @Override
    public void store(final CheckpointMetadata metadata, final int retained)
    {
        store(metadata, retained, Set.of());
    }

    @Override
    public synchronized void store(final CheckpointMetadata metadata, final int retained, final Set<Long> pinned)
    {
        commit(metadata);
        prune(metadata.checkpointId(), retained, pinned);
    }

    /** {@inheritDoc} In memory, committing never fails. */
    @Override
    public synchronized void commit(final CheckpointMetadata metadata)
    {
        final long id = metadata.checkpointId();
        final byte[] encoded = MetadataFormat.encode(metadata, spareMetadata);
        if (encoded == spareMetadata)
        {
            spareMetadata = null;
        }
        metadataFiles.put(id, encoded);
        if (metadata.savepoint())
        {
            savepoints.add(id);
        }
        if (!pendingShared.isEmpty())
        {
            pendingShared.values().removeIf(owner -> owner == id);
        }
    }

    /**
     * {@inheritDoc} {@code pinned} is asked only {@code contains}, under this storage's lock, while retention walks a
     * kept array of the stored ids: it must not call back into this storage.
     */
    @Override
    public synchronized void prune(final long newest, final int retained, final Set<Long> pinned)
    {
        Objects.requireNonNull(pinned, "pinned");
        final List<InMemoryFile> dropped = droppedFiles;
        try
        {
            dropRetired(newest, retained, pinned, dropped);
            collectSharedGarbage(dropped);
            // what this commit dropped, together, is what the pool may hold: about one checkpoint, for the next
            recycleAsPool(dropped);
        }
        finally
        {
            dropped.clear();
        }
    }

    /**
     * From the newest down: the newest counts as one of the retained, the next {@code retained - 1} checkpoints that
     * are not savepoints are kept too, and every older one not pinned is dropped. Walked over a sorted copy of the ids
     * in a kept array, with no view or list built (only an id asked of {@code pinned} is boxed): in-memory commits
     * prune on the acknowledging task thread. Caller holds the lock.
     */
    private void dropRetired(final long newest, final int retained, final Set<Long> pinned,
        final List<InMemoryFile> dropped)
    {
        int keep = Math.max(1, retained) - 1;
        final int count = storedIds();
        final long[] ids = idScratch;
        for (int i = count - 1; i >= 0; i--)
        {
            final long id = ids[i];
            if (id >= newest || savepoints.contains(id))
            {
                continue;
            }
            if (keep > 0)
            {
                keep--;
            }
            else if (!pinned.contains(id))
            {
                drop(id, dropped);
            }
        }
    }

    /**
     * Caller holds the lock.
     *
     * @return how many checkpoints are stored; their ids are the first that many of {@link #idScratch}, ascending
     */
    private int storedIds()
    {
        if (idScratch.length < metadataFiles.size())
        {
            idScratch = new long[Math.max(metadataFiles.size(), 2 * idScratch.length)];
        }
        int count = 0;
        // the map's key iterator is kept by the map: walking it allocates nothing
        for (final Long2ObjectHashMap<byte[]>.KeyIterator it = metadataFiles.keySet().iterator(); it.hasNext(); )
        {
            idScratch[count++] = it.nextLong();
        }
        Arrays.sort(idScratch, 0, count);
        return count;
    }

    @Override
    public synchronized void discardPending(final long checkpointId)
    {
        final List<InMemoryFile> dropped = new ArrayList<>();
        if (!metadataFiles.containsKey(checkpointId))
        {
            addFiles(stateFiles.remove(checkpointId), dropped);
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
        final Set<String> referenced = owned.isEmpty() ? null : referencedSharedFiles();
        if (referenced != null)
        {
            for (final String name : owned)
            {
                if (!referenced.contains(name))
                {
                    final InMemoryFile removed = sharedFiles.remove(name);
                    if (removed != null)
                    {
                        dropped.add(removed);
                    }
                }
            }
        }
        // an abort's files go to the pool within the limit the last commit set: an aborted checkpoint is no measure of
        // what the next ones need
        dropped.forEach(InMemoryFile::recycle);
    }

    @Override
    public synchronized void discardAll()
    {
        final int count = storedIds();
        final long[] ids = Arrays.copyOf(idScratch, count);
        for (final long id : ids)
        {
            if (!savepoints.contains(id))
            {
                drop(id, new ArrayList<>());
            }
        }
        collectSharedGarbage(new ArrayList<>());
        // nothing more will be written: the pool keeps nothing, and the dropped files' arrays go to the collector
        chunkPool.limitTo(0);
    }

    @Override
    public synchronized List<Long> checkpointIds()
    {
        final int count = storedIds();
        final List<Long> ids = new ArrayList<>(count);
        for (int i = 0; i < count; i++)
        {
            ids.add(idScratch[i]);
        }
        return ids;
    }

    @Override
    public synchronized CheckpointMetadata load(final long checkpointId)
    {
        // decoded under the lock: a dropped checkpoint's array is overwritten by a later commit
        final byte[] bytes = metadataFiles.get(checkpointId);
        final String file = fileName(checkpointId, DirectoryCheckpointStorage.METADATA);
        if (bytes == null)
        {
            throw new CorruptCheckpointException(file, "missing");
        }
        return MetadataFormat.decode(bytes, file);
    }

    @Override
    public boolean isDurable()
    {
        return false;
    }

    @Override
    public String describe()
    {
        return "in-memory checkpoint storage";
    }

    /**
     * Overwrites a byte of a stored file, for tests of corruption detection.
     *
     * @param checkpointId the checkpoint.
     * @param name         {@code _metadata} or a state file's name.
     * @param index        which byte.
     */
    public synchronized void corrupt(final long checkpointId, final String name, final int index)
    {
        if (DirectoryCheckpointStorage.METADATA.equals(name))
        {
            metadataFiles.get(checkpointId)[index] ^= 0x5A;
        }
        else
        {
            stateFiles.get(checkpointId).get(name).corrupt(index);
        }
    }

    /**
     * Drops the shared files nothing keeps, unless a stored metadata cannot be decoded. Caller holds the lock.
     *
     * @param dropped where the dropped files are added, for the caller to recycle.
     */
    private void collectSharedGarbage(final List<InMemoryFile> dropped)
    {
        if (sharedFiles.isEmpty())
        {
            // nothing to drop (no incremental checkpoints): skip decoding every stored metadata
            return;
        }
        final Set<String> referenced = referencedSharedFiles();
        if (referenced != null)
        {
            sharedFiles.entrySet().removeIf(entry ->
            {
                if (!referenced.contains(entry.getKey()) && !pendingShared.containsKey(entry.getKey()))
                {
                    dropped.add(entry.getValue());
                    return true;
                }
                return false;
            });
        }
    }

    /**
     * Caller holds the lock.
     *
     * @return the names of the shared files some stored checkpoint references, or null when a stored metadata cannot
     *     be decoded (then nothing may be dropped; logged as a warning).
     */
    private Set<String> referencedSharedFiles()
    {
        final Set<String> referenced = new HashSet<>();
        final int count = storedIds();
        final long[] ids = Arrays.copyOf(idScratch, count);
        for (final long id : ids)
        {
            try
            {
                referenced.addAll(load(id).sharedFiles());
            }
            catch (final CorruptCheckpointException ex)
            {
                LOG.log(System.Logger.Level.WARNING, "keeping every shared state file of " + describe() + ": " +
                    ex.getMessage());
                return null;
            }
        }
        return referenced;
    }

    /**
     * Forgets a stored checkpoint. Caller holds the lock.
     *
     * @param checkpointId the checkpoint.
     * @param dropped      where its state files are added, for the caller to recycle.
     */
    private void drop(final long checkpointId, final List<InMemoryFile> dropped)
    {
        final byte[] metadata = metadataFiles.remove(checkpointId);
        if (metadata != null)
        {
            spareMetadata = metadata;
        }
        addFiles(stateFiles.remove(checkpointId), dropped);
        savepoints.remove(checkpointId);
    }

    /** Adds a dropped checkpoint's files to {@code dropped}; keeps its emptied table for the next. Under the lock. */
    private void addFiles(final CheckpointFiles files, final List<InMemoryFile> dropped)
    {
        if (files != null)
        {
            files.addAllTo(dropped);
            files.clear();
            spareFiles = files;
        }
    }

    /**
     * Gives the arrays of the files one commit dropped (already removed from this storage's maps, so no new reader
     * finds them) to the pool, which from now on holds at most their bytes and an eighth: those of the checkpoint that
     * retention let go, and of the shared files no checkpoint refers to any more. Nothing dropped leaves the limit as
     * it was. Caller holds the lock.
     *
     * @param dropped the files.
     */
    private void recycleAsPool(final List<InMemoryFile> dropped)
    {
        if (dropped.isEmpty())
        {
            return;
        }
        long bytes = 0;
        for (int i = 0; i < dropped.size(); i++)
        {
            bytes += dropped.get(i).heldBytes();
        }
        // an eighth of headroom: a checkpoint a little larger than the one dropped still finds every array it needs
        chunkPool.limitTo(bytes + bytes / 8);
        for (int i = 0; i < dropped.size(); i++)
        {
            dropped.get(i).recycle();
        }
    }

    /**
     * @param checkpointId a checkpoint.
     * @return the bytes of the arrays its state files hold, used or not; for tests of how much room is kept.
     */
    synchronized long heldBytes(final long checkpointId)
    {
        final CheckpointFiles files = stateFiles.get(checkpointId);
        return files == null ? 0 : files.heldBytes();
    }

    /** @return how many private state files the table of a checkpoint holds; for tests of the tables' reuse. */
    synchronized int fileCount(final long checkpointId)
    {
        final CheckpointFiles files = stateFiles.get(checkpointId);
        return files == null ? 0 : files.size();
    }

    /** @return a checkpoint's private state file of that name, or null. */
    private synchronized InMemoryFile stateFile(final long checkpointId, final String name)
    {
        final CheckpointFiles files = stateFiles.get(checkpointId);
        return files == null ? null : files.get(name);
    }

    /** @return the pool of dropped files' arrays, for tests that count what it allocates. */
    ChunkPool chunkPool()
    {
        return chunkPool;
    }

    private static String fileName(final long checkpointId, final String name)
    {
        return "chk-" + checkpointId + "/" + name + " (in memory)";
    }

    private static String sharedFileName(final String name)
    {
        return DirectoryCheckpointStorage.SHARED + "/" + name + " (in memory)";
    }
}
