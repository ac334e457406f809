package io.ringflow.state.checkpoint;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * Where completed checkpoints are kept. Implementations are thread-safe.
 */
public interface CheckpointStorage
{
    /**
     * Stores a completed checkpoint durably; when this returns, the checkpoint is committed. Then removes the oldest
     * checkpoints beyond {@code retained}, never the one just stored.
     *
     * @param metadata the checkpoint.
     * @param retained how many completed checkpoints to keep, at least 1.
     * @throws IOException when it cannot be stored; the checkpoint is then not complete.
     */
    void store(CheckpointMetadata metadata, int retained) throws IOException;

    /**
     * @return the ids of the stored checkpoints, ascending.
     * @throws IOException when the storage cannot be listed.
     */
    List<Long> checkpointIds() throws IOException;

    /**
     * @param checkpointId a stored checkpoint.
     * @return its metadata.
     * @throws IOException                when it cannot be read.
     * @throws CorruptCheckpointException when it is missing, torn or corrupt.
     */
    CheckpointMetadata load(long checkpointId) throws IOException;

    /**
     * Deletes every stored checkpoint (a cancelled job that does not retain its checkpoints).
     *
     * @throws IOException when some could not be deleted.
     */
    void discardAll() throws IOException;

    /**
     * @return the newest checkpoint that reads back intact, skipping (and never returning) corrupt ones.
     * @throws IOException when the storage cannot be listed.
     */
    default Optional<CheckpointMetadata> latestIntact() throws IOException
    {
        final List<Long> ids = checkpointIds();
        for (int i = ids.size() - 1; i >= 0; i--)
        {
            try
            {
                return Optional.of(load(ids.get(i)));
            }
            catch (final CorruptCheckpointException skipped)
            {
                // an older checkpoint may still be intact
            }
        }
        return Optional.empty();
    }
}
