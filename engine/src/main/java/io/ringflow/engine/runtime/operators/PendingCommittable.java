package io.ringflow.engine.runtime.operators;

/**
 * A committable a transactional sink's writer pre-committed, waiting in the sink's operator state for its checkpoint
 * to complete.
 *
 * @param checkpointId the checkpoint it was pre-committed for: committed once a checkpoint at or after it completes.
 * @param committable  the committable, encoded by the codec of the sink's committable type.
 */
public record PendingCommittable(long checkpointId, byte[] committable)
{
}
