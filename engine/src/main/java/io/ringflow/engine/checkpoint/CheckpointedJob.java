package io.ringflow.engine.checkpoint;

import io.ringflow.engine.channel.BarrierKind;

/**
 * A job attempt as its {@link CheckpointCoordinator} sees it: where barrier requests, outcome notifications and a
 * fatal checkpoint failure go. Implemented by the attempt.
 *
 * <p>Thread contract: every method may be called from any thread (the coordinator's timer, a caller of the job
 * handle, the committer's I/O thread, a task thread); none may block, none is called under the coordinator's lock.
 */
public interface CheckpointedJob
{
    /** @return the job's name, for messages and thread names. */
    String jobName();

    /**
     * Asks every running source to inject barrier {@code checkpointId} at its next cycle. Sources inject only the
     * newest barrier requested, so a request may make them skip an older one the coordinator still waits for.
     *
     * @param checkpointId the checkpoint, higher than every id requested before.
     * @param kind         checkpoint or savepoint.
     */
    void requestBarrier(long checkpointId, BarrierKind kind);

    /** @param checkpointId a checkpoint every task acknowledged and the storage committed. */
    void notifyCheckpointComplete(long checkpointId);

    /** @param checkpointId a checkpoint that will not complete. */
    void notifyCheckpointAborted(long checkpointId);

    /** @param cause why the job fails: it exceeded its tolerable checkpoint failures. */
    void fail(Throwable cause);
}
