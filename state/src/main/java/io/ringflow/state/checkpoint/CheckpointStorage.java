package io.ringflow.state.checkpoint;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * Where checkpoints are kept: their state files, written while the checkpoint is pending, and their metadata, written
 * last as the commit point. Implementations are thread-safe.
 */
public interface CheckpointStorage
{
    /**
     * Opens a new state file of a pending checkpoint. Any thread; usually a snapshot flusher.
     *
     * @param checkpointId the pending checkpoint.
     * @param name         a plain file name, unique within the checkpoint.
     * @return where to write it.
     * @throws IOException when it cannot be created (e.g. the directory is not writable), naming the file.
     */
    StateOutput createStateOutput(long checkpointId, String name) throws IOException;

    /**
     * Reads a state file back, checking its length and checksum before returning a single byte.
     *
     * @param checkpointId the checkpoint that points to it.
     * @param handle       the handle from its metadata.
     * @return its bytes.
     * @throws IOException                when it cannot be read.
     * @throws CorruptCheckpointException when it is missing, truncated or fails its checksum, naming the file.
     */
    byte[] readState(long checkpointId, StateHandle handle) throws IOException;

    /**
     * Stores a completed checkpoint durably; when this returns, the checkpoint is committed. Then removes the oldest
     * checkpoints beyond {@code retained}, never the one just stored and never a savepoint.
     *
     * @param metadata the checkpoint; its state files must already be durable.
     * @param retained how many completed checkpoints to keep, at least 1.
     * @throws IOException when it cannot be stored; the checkpoint is then not complete.
     */
    void store(CheckpointMetadata metadata, int retained) throws IOException;

    /**
     * Deletes what a checkpoint that will never complete (aborted, declined, expired) has written. Never deletes a
     * committed checkpoint.
     *
     * @param checkpointId the aborted checkpoint.
     * @throws IOException when its files cannot be deleted.
     */
    void discardPending(long checkpointId) throws IOException;

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
     * Deletes every stored checkpoint except savepoints (a cancelled job that does not retain its checkpoints).
     *
     * @throws IOException when some could not be deleted.
     */
    void discardAll() throws IOException;

    /**
     * @return a description for messages: the directory, or "in memory".
     */
    String describe();

    /**
     * Reads back every state file a checkpoint points to, checking each one's length and checksum.
     *
     * @param metadata a stored checkpoint's metadata.
     * @throws IOException                when a file cannot be read.
     * @throws CorruptCheckpointException when one is missing, truncated or corrupt, naming it.
     */
    default void verifyStateFiles(final CheckpointMetadata metadata) throws IOException
    {
        for (final StateHandle handle : metadata.stateHandles())
        {
            readState(metadata.checkpointId(), handle);
        }
    }

    /**
     * @param checkpointId a stored checkpoint.
     * @return its metadata, once it and every state file it points to read back intact.
     * @throws IOException                when a file cannot be read.
     * @throws CorruptCheckpointException when any of them is missing, torn or corrupt, naming it.
     */
    default CheckpointMetadata loadVerified(final long checkpointId) throws IOException
    {
        final CheckpointMetadata metadata = load(checkpointId);
        verifyStateFiles(metadata);
        return metadata;
    }

    /**
     * @return the newest checkpoint whose metadata and state files all read back intact, skipping (and never
     *     returning) corrupt ones.
     * @throws IOException when the storage cannot be listed.
     */
    default Optional<CheckpointMetadata> latestIntact() throws IOException
    {
        final List<Long> ids = checkpointIds();
        for (int i = ids.size() - 1; i >= 0; i--)
        {
            try
            {
                return Optional.of(loadVerified(ids.get(i)));
            }
            catch (final CorruptCheckpointException skipped)
            {
                System.getLogger(CheckpointStorage.class.getName()).log(System.Logger.Level.WARNING,
                    "skipping checkpoint " + ids.get(i) + " of " + describe() + ": " + skipped.getMessage());
            }
        }
        return Optional.empty();
    }
}
