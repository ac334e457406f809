package io.ringflow.state.checkpoint;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * Keeps checkpoints in memory, encoded exactly as on disk (so the format is exercised): for tests and for the
 * lowest latency when durability is not needed.
 */
public final class InMemoryCheckpointStorage implements CheckpointStorage
{
    private final ConcurrentSkipListMap<Long, byte[]> files = new ConcurrentSkipListMap<>();

    @Override
    public void store(final CheckpointMetadata metadata, final int retained)
    {
        files.put(metadata.checkpointId(), MetadataFormat.encode(metadata));
        while (files.size() > Math.max(1, retained))
        {
            files.pollFirstEntry();
        }
    }

    @Override
    public void discardAll()
    {
        files.clear();
    }

    @Override
    public List<Long> checkpointIds()
    {
        return new ArrayList<>(files.keySet());
    }

    @Override
    public CheckpointMetadata load(final long checkpointId)
    {
        final byte[] bytes = files.get(checkpointId);
        if (bytes == null)
        {
            throw new CorruptCheckpointException("chk-" + checkpointId + "/_metadata (in memory)", "missing");
        }
        return MetadataFormat.decode(bytes, "chk-" + checkpointId + "/_metadata (in memory)");
    }
}
