package io.ringflow.engine.api.sink;

import java.util.List;

/**
 * The writing half of a {@link TwoPhaseCommitSink}: writes records into the open transaction, opening one when the
 * first record after a pre-commit arrives. Used by its subtask's task thread only.
 *
 * @param <T> the record type.
 * @param <C> the committable type.
 */
public interface TransactionalWriter<T, C> extends SinkWriter<T>
{
    /**
     * Ends the open transaction at a barrier: makes what it holds durable but not visible (flush, fsync), and
     * returns what commits it. Every record written before this call belongs to the transaction; none after.
     *
     * @param checkpointId the checkpoint whose barrier passes (after end of input: the checkpoint the subtask took
     *                     part in by itself to release its last transaction).
     * @return the committables of the transaction, in the order they must be committed; empty when nothing was
     *     written since the last pre-commit.
     * @throws Exception declines the checkpoint and fails the job attempt; the transaction is then aborted on
     *                   restore.
     */
    List<C> preCommit(long checkpointId) throws Exception;

    /** Not used by a transactional writer: {@link #preCommit} is its flush. */
    @Override
    default void flush()
    {
    }

    /**
     * The subtask stops. A transaction still open is abandoned here or aborted on restore, never committed.
     *
     * @throws Exception reported, but does not hide an earlier failure.
     */
    @Override
    default void close() throws Exception
    {
    }
}
