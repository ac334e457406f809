package io.ringflow.engine.api.functions;

/**
 * A function with state of its own (fields, buffers, a source's offsets) that must survive a failure. Ringflow calls
 * it on the function's task thread:
 * <ol>
 *   <li>{@link #initializeState} once, before {@code open}: declare operator state there, and read it back when the
 *   job was restored from a checkpoint ({@link StateInitializationContext#isRestored()});</li>
 *   <li>{@link #snapshotState} whenever a checkpoint barrier passes the operator (every record before the barrier has
 *   been processed, none after it): copy what must survive into the declared state.</li>
 * </ol>
 * The declared states are encoded when {@link #snapshotState} returns and written with the checkpoint.
 */
public interface CheckpointedFunction
{
    /**
     * Declares the function's operator state, restored or empty.
     *
     * @param context where state is declared.
     * @throws Exception fails the task.
     */
    default void initializeState(final StateInitializationContext context) throws Exception
    {
    }

    /**
     * The synchronous part of the snapshot: keep it short.
     *
     * @param checkpointId the checkpoint.
     * @throws Exception declines the checkpoint and fails the job attempt.
     */
    void snapshotState(long checkpointId) throws Exception;
}
