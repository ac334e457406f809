package io.ringflow.state.checkpoint;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Where checkpoints are kept: their state files, written while the checkpoint is pending, and their metadata, written
 * last as the commit point. Implementations are thread-safe.
 *
 * <p><b>Shared files.</b> Besides each checkpoint's own files, a storage has a shared area for files that later
 * checkpoints reference again (the base and delta files of a keyed chain). A shared file is created for one pending
 * checkpoint ({@link #createSharedStateOutput}) and belongs to it until that checkpoint is stored or discarded; from
 * then on it lives exactly as long as some stored checkpoint references it (reference counting by scanning the stored
 * metadata): {@link #store}, {@link #discardPending} and {@link #discardAll} delete a shared file once no stored
 * checkpoint (retained, pinned or savepoint) references it and it does not belong to a pending checkpoint. The same
 * scan removes files left by a crash. When a stored checkpoint's metadata cannot be read, nothing in the shared area
 * is deleted: a file is never deleted on doubt.
 *
 * <p>Contract for callers: a pending checkpoint that references shared files written for an earlier, stored
 * checkpoint {@code m} must keep {@code m} in the {@code pinned} set of every {@link #store(CheckpointMetadata, int,
 * Set)} until the pending checkpoint is stored or discarded, unless a retained checkpoint is known to reference the
 * same files; otherwise retention may prune {@code m} and the files with it.
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
     * Opens a new file in the shared area, created for a pending checkpoint: it belongs to that checkpoint (and is
     * never garbage-collected) until the checkpoint is stored, after which its metadata's references keep it, or
     * discarded, which deletes it unless a stored checkpoint references it. Its handle is a shared one. Any thread;
     * usually a snapshot flusher.
     *
     * @param checkpointId the pending checkpoint, not yet stored.
     * @param name         a plain file name, unique in the whole shared area (not just within the checkpoint), not
     *                     ending in {@code .inprogress}.
     * @return where to write it; {@link StateOutput#closeAndGetHandle()} makes it durable.
     * @throws IOException when it cannot be created, when the name is already used in the shared area (by an existing
     *                     file or by an output still open), or when the checkpoint is already stored; naming the file.
     */
    StateOutput createSharedStateOutput(long checkpointId, String name) throws IOException;

    /**
     * Reads a state file back, checking its length and checksum before returning a single byte. A shared handle is
     * read from the shared area, whichever checkpoint wrote it.
     *
     * @param checkpointId the checkpoint that points to it.
     * @param handle       the handle from its metadata.
     * @return its bytes.
     * @throws IOException                when it cannot be read.
     * @throws CorruptCheckpointException when it is missing, truncated or fails its checksum, naming the file.
     */
    byte[] readState(long checkpointId, StateHandle handle) throws IOException;

    /**
     * Opens a state file to be read by position, once its length and checksum matched its handle: a keyed snapshot
     * is restored one key group at a time from it, so it need not fit in the heap. The default reads it whole
     * ({@link #readState}); a storage on disk streams it through the checksum and keeps it on disk.
     *
     * @param checkpointId the checkpoint that points to it.
     * @param handle       the handle from its metadata.
     * @return the file, to be closed by the caller.
     * @throws IOException                when it cannot be read.
     * @throws CorruptCheckpointException when it is missing, truncated or fails its checksum, naming the file.
     */
    default StateFile openState(final long checkpointId, final StateHandle handle) throws IOException
    {
        return StateFile.of(readState(checkpointId, handle), handle.name());
    }

    /**
     * Opens a state file that {@link #verifyStateFiles} (or {@link #verifyState}) read through its checksum moments
     * ago, in this process, for a restore about to read it: a storage on disk then checks that it is still there with
     * its length, without reading it all a second time (a restart at ten million keys reads hundreds of megabytes to
     * verify them). A storage whose open reads the file whole anyway checks it again; that is the default.
     *
     * @param checkpointId the checkpoint that points to it.
     * @param handle       the handle from its metadata.
     * @return the file, to be closed by the caller.
     * @throws IOException                when it cannot be read.
     * @throws CorruptCheckpointException when it is missing or no longer has its handle's length, naming the file.
     */
    default StateFile openVerifiedState(final long checkpointId, final StateHandle handle) throws IOException
    {
        return openState(checkpointId, handle);
    }

    /**
     * Checks a state file's length and checksum against its handle. The default reads it whole
     * ({@link #readState}); a storage on disk streams it.
     *
     * @param checkpointId the checkpoint that points to it.
     * @param handle       the handle from its metadata.
     * @throws IOException                when it cannot be read.
     * @throws CorruptCheckpointException when it is missing, truncated or fails its checksum, naming the file.
     */
    default void verifyState(final long checkpointId, final StateHandle handle) throws IOException
    {
        readState(checkpointId, handle);
    }

    /**
     * Stores a completed checkpoint, with no checkpoint pinned: {@code store(metadata, retained, Set.of())}.
     *
     * @param metadata the checkpoint; its state files must already be durable.
     * @param retained how many completed checkpoints to keep, at least 1.
     * @throws IOException when it cannot be stored; the checkpoint is then not complete.
     */
    default void store(final CheckpointMetadata metadata, final int retained) throws IOException
    {
        store(metadata, retained, Set.of());
    }

    /**
     * Stores a completed checkpoint durably; when this returns, the checkpoint is committed and the shared files
     * created for it no longer belong to a pending checkpoint (its metadata's references keep those it uses). Then,
     * in this order: removes the oldest checkpoints beyond {@code retained}, never the one just stored, never a
     * savepoint and not, this time, one in {@code pinned} (a later store prunes it once it is no longer pinned and is
     * beyond retention); then deletes every shared file that no stored checkpoint references and that does not
     * belong to a pending checkpoint (none at all when a stored checkpoint's metadata cannot be read).
     *
     * @param metadata the checkpoint; its state files, private and shared, must already be durable.
     * @param retained how many completed checkpoints to keep, at least 1.
     * @param pinned   ids of stored checkpoints retention must not prune now, e.g. those whose shared files a pending
     *                 checkpoint references; not null, may name checkpoints that do not exist.
     * @throws IOException when it cannot be stored; the checkpoint is then not complete.
     */
    default void store(final CheckpointMetadata metadata, final int retained, final Set<Long> pinned)
        throws IOException
    {
        commit(metadata);
        prune(metadata.checkpointId(), retained, pinned);
    }

    /**
     * The commit point of {@link #store(CheckpointMetadata, int, Set)} alone: stores the metadata durably; when this
     * returns, the checkpoint is committed and the shared files created for it no longer belong to a pending
     * checkpoint. Nothing is deleted: that is {@link #prune}'s, which the coordinator runs after it has announced the
     * checkpoint complete, so deleting older checkpoints' files does not lengthen a checkpoint.
     *
     * @param metadata the checkpoint; its state files, private and shared, must already be durable.
     * @throws IOException when it cannot be stored; the checkpoint is then not complete.
     */
    void commit(CheckpointMetadata metadata) throws IOException;

    /**
     * The clean-up of {@link #store(CheckpointMetadata, int, Set)} after {@link #commit} of checkpoint
     * {@code newest}: removes the oldest checkpoints beyond {@code retained} older than {@code newest}, never
     * {@code newest}, never a savepoint, not this time one in {@code pinned}; then deletes every shared file that no
     * stored checkpoint references and that does not belong to a pending checkpoint (none at all when a stored
     * checkpoint's metadata cannot be read). A checkpoint committed after {@code newest} is never pruned here (it is
     * not counted either, so this keeps one more than {@code retained} until its own prune). A failure to delete is
     * logged and left to the next prune, never thrown: the checkpoint is committed already.
     *
     * @param newest   the checkpoint just committed, counted as one of the retained.
     * @param retained how many completed checkpoints to keep, at least 1.
     * @param pinned   ids of stored checkpoints not to prune now; not null, may name checkpoints that do not exist.
     */
    void prune(long newest, int retained, Set<Long> pinned);

    /**
     * Deletes what a checkpoint that will never complete (aborted, declined, expired) has written: its own files and
     * the shared files created for it, except those a stored checkpoint references. Never deletes a committed
     * checkpoint. A shared output of the checkpoint still open may fail to finish afterwards, or leave a file that the
     * next {@link #store} removes.
     *
     * @param checkpointId the aborted checkpoint.
     * @throws IOException when its files cannot be deleted.
     */
    void discardPending(long checkpointId) throws IOException;

    /**
     * Deletes what earlier runs left of checkpoints that never committed: a folder without metadata (the JVM died, or
     * the run stopped, while the checkpoint was written). Called once when a run starts, before it writes anything,
     * so it never deletes a checkpoint being written by this storage's user; one running job per storage.
     *
     * @return the ids of the incomplete checkpoints deleted, ascending; empty for storage that keeps nothing across
     *     runs.
     * @throws IOException when the storage cannot be listed or a folder cannot be deleted.
     */
    default List<Long> discardIncomplete() throws IOException
    {
        return List.of();
    }

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
     * Deletes every stored checkpoint except savepoints (a cancelled job that does not retain its checkpoints), then
     * every shared file no remaining checkpoint references, except those of pending checkpoints.
     *
     * @throws IOException when some could not be deleted.
     */
    void discardAll() throws IOException;

    /**
     * @return a description for messages: the directory, or "in memory".
     */
    String describe();

    /**
     * @param other another storage.
     * @return whether both are the same place: a checkpoint stored in {@code other} is one of this storage's, whose
     *     shared files this storage's checkpoints may refer to. By default only the same object.
     */
    default boolean sameAs(final CheckpointStorage other)
    {
        return this == other;
    }

    /**
     * @return whether what is stored outlives the JVM (a directory) or not (memory): a storage that is not durable
     *     has nothing to make durable, so its writes and commits may run inline instead of on an I/O thread.
     */
    default boolean isDurable()
    {
        return true;
    }

    /**
     * Reads back every state file a checkpoint points to (including each keyed chain's increments and its shared
     * files), checking each one's length and checksum.
     *
     * @param metadata a stored checkpoint's metadata.
     * @throws IOException                when a file cannot be read.
     * @throws CorruptCheckpointException when one is missing, truncated or corrupt, naming it.
     */
    default void verifyStateFiles(final CheckpointMetadata metadata) throws IOException
    {
        for (final StateHandle handle : metadata.stateHandles())
        {
            verifyState(metadata.checkpointId(), handle);
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
