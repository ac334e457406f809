package io.ringflow.state.checkpoint;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Function;

/**
 * Keeps checkpoints in memory, encoded exactly as on disk (so the format and its checks are exercised): for tests and
 * for the lowest latency when durability is not needed. State files live in memory too, and are dropped with their
 * checkpoint: their arrays go back to a {@link ChunkPool} for the files of later checkpoints, so checkpoints of a
 * steady size allocate no state-file arrays once the first are dropped (a restore's read copies a file out). Shared
 * files live in one map, reference-counted like a directory's {@code shared/} folder: after each store (and discard),
 * a shared file that no stored checkpoint references and that was not created for a pending checkpoint is dropped;
 * nothing is dropped while a stored checkpoint's metadata cannot be decoded.
 *
 * <p>Thread-safe: {@link #store}, {@link #discardPending}, {@link #discardAll} and the registration of shared files are
 * serialized on this object; state files are written and read concurrently.
 */
public final class InMemoryCheckpointStorage implements CheckpointStorage
{
    private static final System.Logger LOG = System.getLogger(InMemoryCheckpointStorage.class.getName());
    /** One function for every checkpoint's first finished file, not one a file. */
    private static final Function<Long, CheckpointFiles> NEW_CHECKPOINT_FILES = id -> new CheckpointFiles();

    private final ConcurrentSkipListMap<Long, byte[]> metadataFiles = new ConcurrentSkipListMap<>();
    /** Per checkpoint, its state files by name, committed or pending. */
    private final Map<Long, CheckpointFiles> stateFiles = new ConcurrentHashMap<>();
    /** The ids of the stored savepoints (a regular checkpoint adds nothing here). */
    private final Set<Long> savepoints = ConcurrentHashMap.newKeySet();
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
                stateFiles.computeIfAbsent(checkpointId, NEW_CHECKPOINT_FILES).put(name, file);
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
            final CheckpointFiles files = stateFiles.get(checkpointId);
            stored = files == null ? null : files.get(handle.name());
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
        final Long id = metadata.checkpointId();
        metadataFiles.put(id, MetadataFormat.encode(metadata));
        if (metadata.savepoint())
        {
            savepoints.add(id);
        }
        if (!pendingShared.isEmpty())
        {
            pendingShared.values().removeIf(owner -> owner.longValue() == id.longValue());
        }
    }

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
     * are not savepoints are kept too, and every older one not pinned is dropped. Walked key by key, with no view or
     * list built (the stored keys are reused; only {@code newest} is boxed, once): in-memory commits prune on the
     * acknowledging task thread. Caller holds the lock.
     */
    private void dropRetired(final long newest, final int retained, final Set<Long> pinned,
        final List<InMemoryFile> dropped)
    {
        int keep = Math.max(1, retained) - 1;
        for (Long id = metadataFiles.lowerKey(newest); id != null; id = metadataFiles.lowerKey(id))
        {
            if (savepoints.contains(id))
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
        for (final Long id : new ArrayList<>(metadataFiles.keySet()))
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
    public List<Long> checkpointIds()
    {
        return new ArrayList<>(metadataFiles.keySet());
    }

    @Override
    public CheckpointMetadata load(final long checkpointId)
    {
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
    public void corrupt(final long checkpointId, final String name, final int index)
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
        for (final Long id : metadataFiles.keySet())
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
    private void drop(final Long checkpointId, final List<InMemoryFile> dropped)
    {
        metadataFiles.remove(checkpointId);
        addFiles(stateFiles.remove(checkpointId), dropped);
        savepoints.remove(checkpointId);
    }

    private static void addFiles(final CheckpointFiles files, final List<InMemoryFile> dropped)
    {
        if (files != null)
        {
            files.addAllTo(dropped);
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
    long heldBytes(final long checkpointId)
    {
        final CheckpointFiles files = stateFiles.get(checkpointId);
        return files == null ? 0 : files.heldBytes();
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
