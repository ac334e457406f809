package io.ringflow.engine.runtime.task;

import io.ringflow.engine.checkpoint.CheckpointGateway;

/**
 * What a task needs from the attempt that runs it: the stop flag, where failures and its end go, the barrier the
 * sources are asked for, and the way to the checkpoint coordinator. Implemented by the attempt.
 *
 * <p>Thread contract: every method may be called from any task thread; the reads are single volatile reads, made once
 * per work cycle (the stop flag also while waiting on a full ring), never per record.
 */
public interface TaskHost
{
    /** @return whether the attempt is stopping (cancelled or failed): tasks leave their loops. */
    boolean isStopping();

    /**
     * A task failed: the attempt stops. A failure after the attempt began stopping is a consequence and ignored.
     *
     * @param cause the task's failure, naming the operator.
     */
    void fail(Throwable cause);

    /**
     * A task that processed all its input failed to close (a sink's last flush): that is output lost, so the attempt
     * fails even if it is already stopping, unless another failure was reported first.
     *
     * @param cause the failure.
     */
    void failAfterFinish(Throwable cause);

    /**
     * A task reached the end of its input and closed its operators. Called once, on the task's thread, last.
     *
     * @param task the task.
     */
    void taskFinished(Task task);

    /**
     * @return the newest barrier the sources are asked to inject, packed: {@code id << 1}, the low bit set for a
     *     savepoint; 0 before any.
     */
    long requestedBarrier();

    /** @return the barrier after which sources emit nothing (a stop with a savepoint), MAX_VALUE when none. */
    long stopSourcesAfter();

    /** @return the checkpoint coordinator, as tasks see it. */
    CheckpointGateway checkpoints();

    /** @return where tasks hand their snapshots to be written. */
    SnapshotFlusher flusher();
}
