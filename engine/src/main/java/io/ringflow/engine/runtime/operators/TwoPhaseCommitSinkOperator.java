package io.ringflow.engine.runtime.operators;

import io.ringflow.engine.api.functions.OperatorListState;
import io.ringflow.engine.api.sink.CommitFailedException;
import io.ringflow.engine.api.sink.CommittableDataException;
import io.ringflow.engine.api.sink.Committer;
import io.ringflow.engine.api.sink.TransactionalWriter;
import io.ringflow.engine.api.sink.TwoPhaseCommitSink;
import io.ringflow.engine.runtime.task.StreamOperator;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a {@link TwoPhaseCommitSink}: records go to the writer; at each barrier the writer pre-commits and the
 * committables join the operator state (the snapshot taken right after holds them); a completion notification commits
 * every committable of that checkpoint and older ones, in order, and drops them from the state. On restore the
 * committables of the restored checkpoint are committed before the first record. After the attempt's first completed
 * checkpoint, subtask 0 aborts earlier attempts' leftovers.
 *
 * <p>Invariant: the operator state list holds the committables not yet committed, oldest checkpoint first, encoded; a
 * committable leaves it only after its commit returned (decoding it again per commit costs a few per checkpoint, never
 * per record). Task thread only.
 */
public final class TwoPhaseCommitSinkOperator extends StreamOperator
{
    /** The operator state holding the committables not yet committed. */
    public static final String COMMITTABLES_STATE = "ringflow.sink.pending-committables";
    static final int COMMIT_TRIES = 5;
    static final long FIRST_RETRY_DELAY_MILLIS = 5;

    private final TwoPhaseCommitSink<Object, Object> sink;
    private TransactionalWriter<Object, Object> writer;
    private Committer<Object> committer;
    private Codec<Object> codec;
    private OperatorListState<PendingCommittable> state;
    private final CodecBuffer buffer = CodecBuffer.growable(256);
    /** Set at end of input until the next barrier pre-commits the last transaction. */
    private boolean lastTransactionOpen;
    private boolean leftoversToAbort;

    /** @param sink the user's sink, shared by all subtasks; each subtask creates its own writer and committer. */
    @SuppressWarnings("unchecked")
    public TwoPhaseCommitSinkOperator(final TwoPhaseCommitSink<?, ?> sink)
    {
        this.sink = (TwoPhaseCommitSink<Object, Object>)sink;
    }

    @Override
    public void initializeState()
    {
        // the writer does not exist yet: open() initializes it
    }

    @Override
    @SuppressWarnings("unchecked")
    public void open() throws Exception
    {
        codec = (Codec<Object>)runtime.operatorStateStore().codecFor(sink.committableType());
        committer = sink.createCommitter(runtime);
        state = runtime.operatorStateStore().getListState(COMMITTABLES_STATE, PendingCommittable.class);
        // committables of the restored checkpoint: committed again (idempotent), before anything new is written
        for (final PendingCommittable restored : state.get())
        {
            commit(decode(restored), restored.checkpointId());
        }
        state.clear();
        leftoversToAbort = runtime.subtaskIndex() == 0;
        writer = sink.createWriter(runtime);
        initializeListenerState();
    }

    @Override
    public void processElement(final Object record) throws Exception
    {
        writer.write(record);
    }

    @Override
    public void onBarrier(final long checkpointId) throws Exception
    {
        preCommit(checkpointId);
        lastTransactionOpen = false;
        snapshotListener(checkpointId);
    }

    @Override
    public void endInput()
    {
        // the last transaction is pre-committed by the checkpoint the task asks for next: at its onBarrier, with
        // that checkpoint's id (a guessed id could repeat one of an earlier attempt)
        lastTransactionOpen = true;
    }

    @Override
    public boolean holdsUncommittedOutput()
    {
        return lastTransactionOpen || !state.get().isEmpty() || leftoversToAbort;
    }

    @Override
    public void notifyCheckpointComplete(final long checkpointId) throws Exception
    {
        // a skipped notification is covered by this one: every committable at or before it is released
        final List<PendingCommittable> stored = state.get();
        int committed = 0;
        while (committed < stored.size() && stored.get(committed).checkpointId() <= checkpointId)
        {
            commit(decode(stored.get(committed)), stored.get(committed).checkpointId());
            committed++;
        }
        stored.subList(0, committed).clear();
        if (leftoversToAbort)
        {
            committer.abortLeftovers(runtime.attemptId());
            leftoversToAbort = false;
        }
        super.notifyCheckpointComplete(checkpointId);
    }

    @Override
    public void close() throws Exception
    {
        if (writer != null)
        {
            writer.close();
        }
    }

    @Override
    protected Object listener()
    {
        return writer;
    }

    private void preCommit(final long checkpointId) throws Exception
    {
        final List<Object> committables = writer.preCommit(checkpointId);
        for (final Object committable : committables)
        {
            final int length = codec.encode(committable, buffer, 0);
            if (buffer.overflowed())
            {
                throw new IllegalStateException("a committable of " + runtime.describe() + " encodes to more than a " +
                    "buffer can hold");
            }
            final byte[] bytes = new byte[length];
            buffer.getBytes(0, bytes, 0, length);
            state.add(new PendingCommittable(checkpointId, bytes));
        }
    }

    private Object decode(final PendingCommittable stored)
    {
        return codec.decode(CodecBuffer.wrap(stored.committable()), 0, stored.committable().length);
    }

    /** Commits with back-off retries; the last failure fails the attempt, naming the checkpoint and committable. */
    private void commit(final Object committable, final long checkpointId) throws Exception
    {
        long delay = FIRST_RETRY_DELAY_MILLIS;
        for (int attempt = 1; ; attempt++)
        {
            try
            {
                committer.commit(committable, checkpointId);
                return;
            }
            catch (final Exception ex)
            {
                if (attempt == COMMIT_TRIES || ex instanceof CommittableDataException)
                {
                    throw new CommitFailedException(checkpointId, runtime.describe() + " could not commit " +
                        committable + " of checkpoint " + checkpointId + " (" + attempt + " tries): " + ex.getMessage(),
                        ex);
                }
                TimeUnit.MILLISECONDS.sleep(delay);
                delay *= 4;
            }
        }
    }
}
