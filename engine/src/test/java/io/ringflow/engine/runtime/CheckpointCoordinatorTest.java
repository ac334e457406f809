package io.ringflow.engine.runtime;

import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.IdleStrategyKind;
import io.ringflow.engine.channel.ChannelWriter;
import io.ringflow.state.checkpoint.InMemoryCheckpointStorage;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The coordinator's protocol driven by hand: two tasks that never run, whose acknowledgements, aborts and finishes
 * the test delivers in a chosen order.
 */
class CheckpointCoordinatorTest
{
    private final InMemoryCheckpointStorage storage = new InMemoryCheckpointStorage();
    private JobExecution execution;
    private CheckpointCoordinator coordinator;
    private Task first;
    private Task second;

    @BeforeEach
    void setUp()
    {
        execution = new JobExecution("coordinator-test", null, 1, storage);
        coordinator = new CheckpointCoordinator(execution, null, 1, storage);
        first = idleTask("first", 0);
        second = idleTask("second", 1);
        coordinator.start(List.of(first, second));
    }

    @Test
    void aNewerCheckpointThatCompletesSubsumesTheOlderPendingOnes() throws Exception
    {
        final PendingCheckpoint older = coordinator.trigger();
        final PendingCheckpoint newer = coordinator.trigger();
        coordinator.acknowledge(first, ack(older.id));
        coordinator.acknowledge(first, ack(newer.id));
        coordinator.acknowledge(second, ack(newer.id));

        assertThat(newer.future.get(1, TimeUnit.MINUTES).checkpointId()).isEqualTo(newer.id);
        assertThatThrownBy(() -> older.future.get(1, TimeUnit.MINUTES))
            .isInstanceOf(ExecutionException.class)
            .hasMessageContaining("checkpoint " + older.id + " subsumed by " + newer.id);
        assertThat(storage.checkpointIds()).containsExactly(newer.id);
        // a late acknowledgement of the subsumed checkpoint changes nothing
        coordinator.acknowledge(second, ack(older.id));
        assertThat(coordinator.completedCheckpoints()).extracting(CompletedCheckpoint::checkpointId)
            .containsExactly(newer.id);
    }

    @Test
    void aFinishedTaskStandsInOnlyForCheckpointsItDidNotAbort() throws Exception
    {
        final PendingCheckpoint dropped = coordinator.trigger();
        final PendingCheckpoint kept = coordinator.trigger();
        coordinator.acknowledge(first, ack(dropped.id));
        // the second task saw a newer barrier first and gave the older checkpoint up, then ended its input
        coordinator.abortedByTask(second, dropped.id, "SUBSUMED");
        coordinator.acknowledge(second, ack(kept.id));
        coordinator.taskFinished(second, -1);

        assertThatThrownBy(() -> dropped.future.get(1, TimeUnit.MINUTES))
            .hasMessageContaining("aborted by task second: SUBSUMED");
        coordinator.acknowledge(first, ack(kept.id));
        assertThat(kept.future.get(1, TimeUnit.MINUTES).checkpointId()).isEqualTo(kept.id);
        assertThat(storage.checkpointIds()).containsExactly(kept.id);
    }

    @Test
    void aSavepointIsNeitherSubsumedNorCountedAgainstTheTolerableFailures() throws Exception
    {
        final CheckpointCoordinator strict = new CheckpointCoordinator(execution,
            io.ringflow.engine.api.CheckpointConfig.every(java.time.Duration.ofDays(1)).tolerableFailures(0).build(),
            1, storage);
        strict.start(List.of(first, second));
        try
        {
            final PendingCheckpoint savepoint = strict.trigger(true);
            final PendingCheckpoint checkpoint = strict.trigger(false);
            strict.acknowledge(first, ack(checkpoint.id));
            strict.acknowledge(second, ack(checkpoint.id));
            assertThat(checkpoint.future.get(1, TimeUnit.MINUTES).savepoint()).isFalse();
            assertThat(strict.isPending(savepoint.id)).as("the savepoint is still pending").isTrue();

            strict.decline(first, savepoint.id, new java.io.IOException("disk full"));
            assertThatThrownBy(() -> savepoint.future.get(1, TimeUnit.MINUTES)).hasMessageContaining("disk full");
            assertThat(execution.isStopping()).as("a failed savepoint does not fail the job").isFalse();
        }
        finally
        {
            strict.stop();
        }
    }

    @Test
    void checkpointIdsStartWhereTheAttemptWasToldAndKeepRising()
    {
        final CheckpointCoordinator later = new CheckpointCoordinator(execution, null, 42, storage);
        later.start(List.of(first));
        assertThat(later.trigger().id).isEqualTo(42);
        assertThat(later.trigger().id).isEqualTo(43);
        assertThat(later.nextCheckpointId()).isEqualTo(44);
    }

    @Test
    void aStoppedCoordinatorRefusesTriggersAndAbortsWhatIsPending()
    {
        final PendingCheckpoint pending = coordinator.trigger();
        coordinator.stop();
        assertThatThrownBy(() -> pending.future.get(1, TimeUnit.MINUTES)).hasMessageContaining("the job stopped");
        assertThatThrownBy(() -> coordinator.trigger().future.get(1, TimeUnit.MINUTES))
            .hasMessageContaining("the job is not running");
    }

    private static TaskAcknowledgement ack(final long checkpointId)
    {
        return new TaskAcknowledgement(checkpointId, -1, System.nanoTime(), 0, 0, 0, 0, 0, 0, false, List.of());
    }

    private Task idleTask(final String name, final int index)
    {
        final Task task = new Task(execution, name, new StreamOperator[0], new ChannelWriter[0],
            Idler.create(IdleStrategyKind.BACKOFF, null, 100_000), 100_000, -1)
        {
            @Override
            int doWork()
            {
                return 0;
            }

            @Override
            void idle(final int work)
            {
            }
        };
        task.index(index);
        return task;
    }
}
