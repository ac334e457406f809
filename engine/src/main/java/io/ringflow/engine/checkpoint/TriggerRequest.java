package io.ringflow.engine.checkpoint;

import io.ringflow.engine.api.CompletedCheckpoint;

import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;

/**
 * One call of {@code triggerCheckpoint}, {@code triggerSavepoint} or {@code stopWithSavepoint}, from the moment it is
 * made until its checkpoint completes or it is refused. It may wait in the coordinator's queue before it starts (see
 * {@link CheckpointCoordinator} for the rules); once started it has an id.
 *
 * <p>Thread contract: created by the caller; {@link #id} is written once, under the coordinator's lock, and read by
 * any thread (volatile); {@link #future} completes on whichever thread finishes the checkpoint.
 */
final class TriggerRequest
{
    /** Whether a savepoint was asked for. */
    final boolean savepoint;
    /** Run after the savepoint is registered and before its barrier is requested; null for none. */
    final LongConsumer beforeRequest;
    final CompletableFuture<CompletedCheckpoint> future = new CompletableFuture<>();
    private volatile long id = -1;

    private TriggerRequest(final boolean savepoint, final LongConsumer beforeRequest)
    {
        this.savepoint = savepoint;
        this.beforeRequest = beforeRequest;
    }

    /** @return a request for a checkpoint on demand. */
    static TriggerRequest checkpoint()
    {
        return new TriggerRequest(false, null);
    }

    /**
     * @param beforeRequest receives the savepoint's id once it is registered, before its barrier is requested (a
     *                      stop-with-savepoint stops the sources there); null for none.
     * @return a request for a savepoint.
     */
    static TriggerRequest savepoint(final LongConsumer beforeRequest)
    {
        return new TriggerRequest(true, beforeRequest);
    }

    /** @return the id of the checkpoint it started, or -1 while it waits (or if it was refused). */
    long id()
    {
        return id;
    }

    void started(final long checkpointId)
    {
        id = checkpointId;
    }

    @Override
    public String toString()
    {
        return (savepoint ? "savepoint" : "checkpoint") + " request" + (id < 0 ? " (waiting)" : " " + id);
    }
}
