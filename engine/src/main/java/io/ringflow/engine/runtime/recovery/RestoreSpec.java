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
 */
public record RestoreSpec(CheckpointMetadata checkpoint, CheckpointStorage storage, boolean allowNonRestoredState)
{
    /** Checks the parts are present. */
    public RestoreSpec
    {
        Objects.requireNonNull(checkpoint, "checkpoint");
        Objects.requireNonNull(storage, "storage");
    }
}
