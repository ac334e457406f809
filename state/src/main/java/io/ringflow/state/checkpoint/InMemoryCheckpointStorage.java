package io.ringflow.state.checkpoint;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * Keeps checkpoints in memory, encoded exactly as on disk (so the format and its checks are exercised): for tests and
 * for the lowest latency when durability is not needed. State files live in memory too, and are dropped with their
 * checkpoint.
 */
public final class InMemoryCheckpointStorage implements CheckpointStorage
{
    private final ConcurrentSkipListMap<Long, byte[]> metadataFiles = new ConcurrentSkipListMap<>();
    /** Per checkpoint, its state files by name, committed or pending. */
    private final Map<Long, Map<String, byte[]>> stateFiles = new ConcurrentHashMap<>();
    private final Map<Long, Boolean> savepoints = new ConcurrentHashMap<>();

    @Override
    public StateOutput createStateOutput(final long checkpointId, final String name)
    {
        final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        return new StateOutput(name)
        {
            @Override
            protected void writeBytes(final byte[] bytes, final int offset, final int count)
            {
                buffer.write(bytes, offset, count);
            }

            @Override
            protected void finish()
            {
                stateFiles.computeIfAbsent(checkpointId, id -> new ConcurrentHashMap<>()).put(name, buffer.toByteArray());
            }

            @Override
            protected void discard()
            {
                buffer.reset();
            }
        };
    }

    @Override
    public byte[] readState(final long checkpointId, final StateHandle handle)
    {
        final String file = fileName(checkpointId, handle.name());
        final Map<String, byte[]> files = stateFiles.get(checkpointId);
        final byte[] bytes = files == null ? null : files.get(handle.name());
        if (bytes == null)
        {
            throw new CorruptCheckpointException(file, "missing");
        }
        return MetadataFormat.verifyState(bytes, handle, file);
    }

    @Override
    public synchronized void store(final CheckpointMetadata metadata, final int retained)
    {
        metadataFiles.put(metadata.checkpointId(), MetadataFormat.encode(metadata));
        savepoints.put(metadata.checkpointId(), metadata.savepoint());
        final List<Long> checkpoints = new ArrayList<>();
        for (final Long id : metadataFiles.keySet())
        {
            if (!savepoints.getOrDefault(id, false))
            {
                checkpoints.add(id);
            }
        }
        for (int i = 0; i < checkpoints.size() - Math.max(1, retained); i++)
        {
            if (checkpoints.get(i) != metadata.checkpointId())
            {
                drop(checkpoints.get(i));
            }
        }
    }

    @Override
    public void discardPending(final long checkpointId)
    {
        if (!metadataFiles.containsKey(checkpointId))
        {
            stateFiles.remove(checkpointId);
        }
    }

    @Override
    public synchronized void discardAll()
    {
        for (final Long id : new ArrayList<>(metadataFiles.keySet()))
        {
            if (!savepoints.getOrDefault(id, false))
            {
                drop(id);
            }
        }
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
        final byte[] bytes = DirectoryCheckpointStorage.METADATA.equals(name) ? metadataFiles.get(checkpointId) :
            stateFiles.get(checkpointId).get(name);
        bytes[index] ^= 0x5A;
    }

    private void drop(final long checkpointId)
    {
        metadataFiles.remove(checkpointId);
        stateFiles.remove(checkpointId);
        savepoints.remove(checkpointId);
    }

    private static String fileName(final long checkpointId, final String name)
    {
        return "chk-" + checkpointId + "/" + name + " (in memory)";
    }
}
