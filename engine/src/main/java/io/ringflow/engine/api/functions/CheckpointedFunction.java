package io.ringflow.engine.api.functions;

/**
 * A function with state of its own to snapshot at each checkpoint barrier. Called on the function's task thread
 * when the barrier passes the operator: every record before the barrier has been processed, none after it.
 */
public interface CheckpointedFunction
{
    /**
     * The synchronous part of the snapshot: keep it short.
     *
     * @param checkpointId the checkpoint.
     * @throws Exception declines the checkpoint and fails the job attempt.
     */
    void snapshotState(long checkpointId) throws Exception;
}
