package io.ringflow.engine.checkpoint;

import io.ringflow.engine.checkpoint.barrier.AbortReason;
import io.ringflow.state.checkpoint.CheckpointStorage;

/**
 * What a task, and the flusher that writes its snapshots, tell the {@link CheckpointCoordinator}, and the little they
 * ask it: the one interface from the task side to the coordinator.
 *
 * <p>Thread contract: every method may be called from a task thread or the snapshot flusher, concurrently; each takes
 * the coordinator's lock briefly, never per record.
 */
public interface CheckpointGateway
{
    /** @return where state files go. */
    CheckpointStorage storage();

    /**
     * How a task snapshots its keyed state for a checkpoint, fixed when the checkpoint was registered. At the barrier.
     *
     * @param checkpointId the checkpoint.
     * @return null for full, self-contained snapshots in the checkpoint's own folder; else the plan for shared chains.
     */
    KeyedSnapshotPlan keyedSnapshotPlan(long checkpointId);

    /**
     * A snapshot write of a checkpoint starts; while writes are under way its files are never deleted.
     *
     * @param checkpointId the checkpoint.
     * @return false when the checkpoint has ended: nothing may be written for it.
     */
    boolean beginWrite(long checkpointId);

    /**
     * A write begun with {@link #beginWrite} is over; if the checkpoint ended meanwhile, the last write's end deletes
     * its files.
     *
     * @param checkpointId the checkpoint.
     */
    void endWrite(long checkpointId);

    /**
     * A task's snapshot of a checkpoint is complete and durable.
     *
     * @param task the task.
     * @param ack  what it stored, and its statistics.
     */
    void acknowledge(CheckpointParticipant task, TaskAcknowledgement ack);

    /**
     * A task could not write its snapshot: the checkpoint fails (and counts against the tolerable failures).
     *
     * @param task         the task.
     * @param checkpointId the checkpoint.
     * @param cause        why.
     */
    void decline(CheckpointParticipant task, long checkpointId, Throwable cause);

    /**
     * A task gave a checkpoint up on its own (a newer barrier overtook it, or its snapshot was declined at the
     * barrier): it can no longer complete, nor complete later because the task finished.
     *
     * @param task         the task.
     * @param checkpointId the checkpoint.
     * @param reason       why.
     */
    void abortedByTask(CheckpointParticipant task, long checkpointId, AbortReason reason);

    /**
     * A task reached the end of its input: it stands for its barrier in every checkpoint it did not acknowledge.
     *
     * @param task     the task.
     * @param position a source task's end position, -1 for other tasks.
     */
    void taskFinished(CheckpointParticipant task, long position);

    /**
     * A task that reached the end of its input still holds output that only a completed checkpoint may release (a
     * transactional sink's last transaction): asks for a checkpoint now, obeying the usual trigger rules.
     *
     * @return completes with the checkpoint, or exceptionally when it was refused or failed (the task asks again).
     */
    java.util.concurrent.CompletableFuture<io.ringflow.engine.api.CompletedCheckpoint> requestCheckpoint();
}
