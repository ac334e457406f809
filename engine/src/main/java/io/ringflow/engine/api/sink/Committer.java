package io.ringflow.engine.api.sink;

/**
 * The committing half of a {@link TwoPhaseCommitSink}. Used by its subtask's task thread only.
 *
 * @param <C> the committable type.
 */
public interface Committer<C>
{
    /**
     * Makes a pre-committed transaction visible. Must be idempotent: after a restore, the committables of the
     * restored checkpoint are committed again, some of which may have been committed before the failure. Must not
     * commit data it cannot verify: a committable whose data is missing or corrupt throws.
     *
     * @param committable  what {@link TransactionalWriter#preCommit} returned.
     * @param checkpointId the checkpoint that stored it.
     * @throws Exception retried with back-off; after the last try the job attempt fails naming the checkpoint and
     *                   the committable, and the restarted job commits it again from the restored checkpoint.
     */
    void commit(C committable, long checkpointId) throws Exception;

    /**
     * Aborts the transactions of earlier attempts that were never committed: called once per attempt on subtask 0,
     * after the first checkpoint of the attempt completed (by then every subtask has committed what it restored, so
     * anything of an earlier attempt still uncommitted belongs to no completed checkpoint).
     *
     * @param currentAttemptId the attempt now running ({@link io.ringflow.engine.api.functions.SubtaskInfo#attemptId}):
     *                         its own transactions must be kept.
     * @throws Exception fails the job attempt.
     */
    default void abortLeftovers(final String currentAttemptId) throws Exception
    {
    }
}
