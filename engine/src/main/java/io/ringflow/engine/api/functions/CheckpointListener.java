package io.ringflow.engine.api.functions;

/**
 * Told, on the function's task thread, when a checkpoint it took part in completes or is aborted. A two-phase-commit
 * sink commits in {@link #notifyCheckpointComplete}. Implemented by functions, sources' readers and sinks' writers.
 */
public interface CheckpointListener
{
    /**
     * Every task acknowledged checkpoint {@code checkpointId} and it is stored. Notifications may be skipped when a
     * newer checkpoint completes first; a newer completion subsumes older ones.
     *
     * @param checkpointId the completed checkpoint.
     * @throws Exception fails the job attempt.
     */
    void notifyCheckpointComplete(long checkpointId) throws Exception;

    /**
     * The checkpoint will not complete (timeout, decline, subsumed, failure).
     *
     * @param checkpointId the aborted checkpoint.
     * @throws Exception fails the job attempt.
     */
    default void notifyCheckpointAborted(final long checkpointId) throws Exception
    {
    }
}
