package io.ringflow.engine.runtime.operators;

import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.sink.Committer;
import io.ringflow.engine.api.sink.TransactionalWriter;
import io.ringflow.engine.api.sink.TwoPhaseCommitSink;
import io.ringflow.engine.runtime.task.OperatorRuntime;
import io.ringflow.engine.runtime.task.OperatorStateStore;
import io.ringflow.state.codec.CodecRegistry;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sink operator's side of two-phase commit, driven by hand: a skipped notification is covered by a later one,
 * a repeated or stale one commits nothing, what is not committed stays in the snapshot, and a restore commits what
 * the snapshot held before anything new is written.
 */
class TwoPhaseCommitSinkOperatorTest
{
    /** A transaction is the list of records since the last pre-commit; its committable is their concatenation. */
    static final class RecordingSink implements TwoPhaseCommitSink<String, String>
    {
        final List<String> committed = new ArrayList<>();
        final List<String> aborts = new ArrayList<>();

        @Override
        public TransactionalWriter<String, String> createWriter(final SubtaskInfo subtask)
        {
            return new TransactionalWriter<>()
            {
                private final StringBuilder open = new StringBuilder();

                @Override
                public void write(final String record)
                {
                    open.append(record);
                }

                @Override
                public List<String> preCommit(final long checkpointId)
                {
                    if (open.length() == 0)
                    {
                        return List.of();
                    }
                    final String committable = checkpointId + ":" + open;
                    open.setLength(0);
                    return List.of(committable);
                }
            };
        }

        @Override
        public Committer<String> createCommitter(final SubtaskInfo subtask)
        {
            return new Committer<>()
            {
                @Override
                public void commit(final String committable, final long checkpointId)
                {
                    committed.add(committable);
                }

                @Override
                public void abortLeftovers(final String currentAttemptId)
                {
                    aborts.add(currentAttemptId);
                }
            };
        }

        @Override
        public Class<String> committableType()
        {
            return String.class;
        }
    }

    private static OperatorRuntime runtime(final OperatorStateStore store, final String attempt)
    {
        return new OperatorRuntime("job", "sink", "sink", 0, 1, 128, null, store, attempt);
    }

    @Test
    void notificationsSkippedRepeatedOrStaleCommitEachTransactionOnceInOrder() throws Exception
    {
        final RecordingSink sink = new RecordingSink();
        final TwoPhaseCommitSinkOperator operator = new TwoPhaseCommitSinkOperator(sink);
        final OperatorStateStore store = new OperatorStateStore(CodecRegistry.withBuiltIns());
        operator.setup(runtime(store, "a1"), record -> { });
        operator.initializeState();
        operator.open();

        operator.processElement("a");
        operator.onBarrier(1);
        operator.processElement("b");
        operator.onBarrier(2);
        operator.processElement("c");
        operator.onBarrier(3);
        assertThat(sink.committed).isEmpty();
        assertThat(operator.holdsUncommittedOutput()).isTrue();

        // checkpoint 1's notification is lost; 2's covers it
        operator.notifyCheckpointComplete(2);
        assertThat(sink.committed).containsExactly("1:a", "2:b");
        assertThat(sink.aborts).as("subtask 0 aborts leftovers once, after the attempt's first completion")
            .containsExactly("a1");
        // repeated, and stale: nothing more
        operator.notifyCheckpointComplete(2);
        operator.notifyCheckpointComplete(1);
        operator.notifyCheckpointAborted(3);
        assertThat(sink.committed).containsExactly("1:a", "2:b");
        assertThat(operator.holdsUncommittedOutput()).as("checkpoint 3's transaction waits").isTrue();
        operator.notifyCheckpointComplete(4);
        assertThat(sink.committed).containsExactly("1:a", "2:b", "3:c");
        assertThat(operator.holdsUncommittedOutput()).isFalse();
        assertThat(sink.aborts).containsExactly("a1");
    }

    @Test
    void aRestoreCommitsTheSnapshotsTransactionsBeforeAnythingNew() throws Exception
    {
        final RecordingSink before = new RecordingSink();
        final TwoPhaseCommitSinkOperator failed = new TwoPhaseCommitSinkOperator(before);
        final OperatorStateStore store = new OperatorStateStore(CodecRegistry.withBuiltIns());
        failed.setup(runtime(store, "a1"), record -> { });
        failed.initializeState();
        failed.open();
        failed.processElement("x");
        failed.onBarrier(5);
        failed.processElement("y");
        failed.onBarrier(6);
        failed.notifyCheckpointComplete(5);
        // the snapshot of checkpoint 6, taken right after its barrier: 6's transaction only (5's was committed)
        final byte[] snapshot = store.snapshot();
        failed.processElement("lost in the failure");

        final RecordingSink after = new RecordingSink();
        final TwoPhaseCommitSinkOperator restored = new TwoPhaseCommitSinkOperator(after);
        final OperatorStateStore restoredStore = new OperatorStateStore(CodecRegistry.withBuiltIns());
        restoredStore.restore(List.of(Map.entry("sink-0", snapshot)), 0, -1);
        restored.setup(runtime(restoredStore, "a2"), record -> { });
        restored.initializeState();
        restored.open();
        assertThat(after.committed).containsExactly("6:y");
        assertThat(restored.holdsUncommittedOutput()).as("leftovers of attempt a1 still to abort").isTrue();
        restored.processElement("z");
        restored.onBarrier(7);
        restored.notifyCheckpointComplete(7);
        assertThat(after.committed).containsExactly("6:y", "7:z");
        assertThat(after.aborts).containsExactly("a2");
    }

    @Test
    void theLastTransactionWaitsForTheCheckpointTheTaskAsksFor() throws Exception
    {
        final RecordingSink sink = new RecordingSink();
        final TwoPhaseCommitSinkOperator operator = new TwoPhaseCommitSinkOperator(sink);
        operator.setup(runtime(new OperatorStateStore(CodecRegistry.withBuiltIns()), "a1"), record -> { });
        operator.initializeState();
        operator.open();
        operator.processElement("end");
        operator.endInput();
        assertThat(operator.holdsUncommittedOutput()).isTrue();
        // the task takes checkpoint 9 by itself: the transaction is named by it
        operator.onBarrier(9);
        operator.notifyCheckpointComplete(9);
        assertThat(sink.committed).containsExactly("9:end");
        assertThat(operator.holdsUncommittedOutput()).isFalse();
    }
}
