package io.ringflow.engine.api.sink;

import io.ringflow.engine.api.functions.SubtaskInfo;

/**
 * A sink whose output becomes visible exactly once: records go into a transaction; at each checkpoint barrier the
 * writer <em>pre-commits</em> it (durable, not yet visible) and hands back committables, which are stored in the
 * checkpoint; when the checkpoint completes, the {@link Committer} commits every committable of that checkpoint and of
 * any earlier one. After a failure the job restores its newest completed checkpoint: the committables found there are
 * committed again (a commit is idempotent), and transactions opened after it are aborted. With a replayable source,
 * this is exactly-once end to end.
 *
 * <p>Lifecycle per subtask, all on the subtask's task thread: {@link #createWriter} and {@link #createCommitter} when
 * it opens; restored committables are committed before the first record; {@link TransactionalWriter#write} per
 * record; {@link TransactionalWriter#preCommit} at every barrier; {@link Committer#commit} on completion
 * notifications. At end of input the last transaction is pre-committed and the subtask stays up until a checkpoint
 * that holds it completes (the job asks for one at once), so a bounded job's output is committed before the job
 * reports FINISHED. Output of a checkpoint becomes visible one checkpoint interval later than with a plain sink.
 *
 * <p>In at-least-once mode barriers are not aligned, so a transaction may hold records that are replayed after a
 * restore: output is at-least-once there. Mirrors the concepts of Flink's two-phase-committing sink (writer,
 * committables, committer) so a job written against it maps onto a Flink runner.
 *
 * @param <T> the record type.
 * @param <C> the committable type: what a pre-committed transaction leaves to commit it later. Encoded into the
 *            checkpoint by the job's codec registry (a record of primitives and strings needs no registration).
 */
public interface TwoPhaseCommitSink<T, C> extends Sink<T>
{
    /**
     * Creates the writer of one subtask. Task thread.
     *
     * @param subtask which subtask.
     * @return a new writer, with no transaction open.
     * @throws Exception fails the job attempt.
     */
    @Override
    TransactionalWriter<T, C> createWriter(SubtaskInfo subtask) throws Exception;

    /**
     * Creates the committer of one subtask. Task thread.
     *
     * @param subtask which subtask.
     * @return a new committer.
     * @throws Exception fails the job attempt.
     */
    Committer<C> createCommitter(SubtaskInfo subtask) throws Exception;

    /** @return the committable type; its codec writes committables into checkpoints. */
    Class<C> committableType();
}
