package io.ringflow.engine.runtime.recovery;

import io.ringflow.state.checkpoint.CheckpointMetadata;
import io.ringflow.state.checkpoint.CheckpointStorage;

import java.util.Objects;

/**
 * What a job attempt restores from: a completed checkpoint or savepoint, the storage that holds its state files, and
 * whether state of operators the job no longer has may be dropped.
 *
 * @param checkpoint            the checkpoint's metadata.
 * @param storage               where its state files are.
 * @param allowNonRestoredState true to ignore state of uids the job does not have; false to refuse to start.
 * @param stateFilesVerified    true when whoever made this spec has just read every state file it points to through
 *                              its checksum ({@link CheckpointStorage#verifyStateFiles}), right before the attempt
 *                              that restores it is deployed: the restore then opens them with
 *                              {@link CheckpointStorage#openVerifiedState} (length checked, not read twice). False
 *                              to check each one as it is opened.
 */
public record RestoreSpec(CheckpointMetadata checkpoint, CheckpointStorage storage, boolean allowNonRestoredState,
                          boolean stateFilesVerified)
{
    /** Checks the parts are present. */
    public RestoreSpec
    {
        Objects.requireNonNull(checkpoint, "checkpoint");
        Objects.requireNonNull(storage, "storage");
    }

    /**
     * A spec whose state files are checked as they are opened.
     *
     * @param checkpoint            the checkpoint's metadata.
     * @param storage               where its state files are.
     * @param allowNonRestoredState true to ignore state of uids the job does not have; false to refuse to start.
     */
    public RestoreSpec(final CheckpointMetadata checkpoint, final CheckpointStorage storage,
        final boolean allowNonRestoredState)
    {
        this(checkpoint, storage, allowNonRestoredState, false);
    }

    /** @return this spec, its state files to be checked again as they are opened (it is used later than made). */
    public RestoreSpec checkedWhenOpened()
    {
        return stateFilesVerified ? new RestoreSpec(checkpoint, storage, allowNonRestoredState, false) : this;
    }
}
