package io.ringflow.engine.checkpoint;

import io.ringflow.state.checkpoint.CheckpointMetadata;
import io.ringflow.state.checkpoint.OperatorState;
import io.ringflow.state.checkpoint.StateHandle;
import io.ringflow.state.checkpoint.SubtaskState;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What a complete checkpoint's metadata says, gathered from its acknowledgements and its finished tasks. */
class PendingCheckpointTest
{
    private record Task(int index, String name, SourceSubtask source) implements CheckpointParticipant
    {
    }

    private static SubtaskState keyed(final String name)
    {
        return new SubtaskState(new StateHandle(name, 10, 7), null, null);
    }

    private static TaskAcknowledgement ack(final long position, final TaskAcknowledgement.OperatorStateAck... states)
    {
        return new TaskAcknowledgement(1, position, 0, 0, 0, 0, 0, 0, 0, false, List.of(states));
    }

    @Test
    void aFinishedSubtaskHasNoStateAndItsSourceTheEndPositionAndSubtasksNoTaskRunsStayUnknown()
    {
        // tasks: source "views" subtasks 0 and 1 (parallelism 3: subtask 2 has no task here), then "count" subtasks 0
        // and 1; source subtask 1 and count subtask 1 finished before the barrier
        final List<CheckpointParticipant> tasks = List.of(
            new Task(0, "views 0", new CheckpointParticipant.SourceSubtask("views", 0, 3)),
            new Task(1, "views 1", new CheckpointParticipant.SourceSubtask("views", 1, 3)),
            new Task(2, "count 0", null),
            new Task(3, "count 1", null));
        final PendingCheckpoint p = new PendingCheckpoint(1, tasks.size(), false, new CompletableFuture<>());
        p.acknowledge(0, ack(500), 1);
        p.acknowledge(2, ack(-1, new TaskAcknowledgement.OperatorStateAck("count", 0, 2, 128, keyed("count-0"))), 2);
        final long[] finishedPositions = {0, 900, 0, 0};

        final CheckpointMetadata metadata = p.metadata(tasks, finishedPositions, new PendingCheckpoint.Scratch());

        assertThat(metadata.sourcePositions()).isEqualTo(Map.of("views", List.of(500L, 900L, -1L)));
        assertThat(metadata.operators()).isEqualTo(Map.of("count",
            new OperatorState(2, 128, List.of(keyed("count-0"), SubtaskState.EMPTY))));
    }

    @Test
    void everySourceOfManyIsInTheCut()
    {
        // more sources than the first guess of their number, one subtask each
        final int sources = 5;
        final List<CheckpointParticipant> tasks = new ArrayList<>();
        for (int i = 0; i < sources; i++)
        {
            tasks.add(new Task(i, "source " + i, new CheckpointParticipant.SourceSubtask("source" + i, 0, 1)));
        }
        final PendingCheckpoint p = new PendingCheckpoint(1, tasks.size(), false, new CompletableFuture<>());
        for (int i = 0; i < sources; i++)
        {
            p.acknowledge(i, ack(1_000L * i), 1);
        }

        final CheckpointMetadata metadata = p.metadata(tasks, new long[sources], new PendingCheckpoint.Scratch());

        assertThat(metadata.sourcePositions()).hasSize(sources);
        for (int i = 0; i < sources; i++)
        {
            assertThat(metadata.sourcePositions().get("source" + i)).containsExactly(1_000L * i);
        }
    }

    @Test
    void everyOperatorOfManyChainsIsGatheredBySubtask()
    {
        // more operators than the first guess of their number, acknowledged by two subtasks in reverse order
        final int operators = 9;
        final List<CheckpointParticipant> tasks = List.of(new Task(0, "chain 0", null), new Task(1, "chain 1", null));
        final PendingCheckpoint p = new PendingCheckpoint(1, tasks.size(), false, new CompletableFuture<>());
        for (int subtask = 1; subtask >= 0; subtask--)
        {
            final List<TaskAcknowledgement.OperatorStateAck> states = new ArrayList<>();
            for (int op = 0; op < operators; op++)
            {
                states.add(new TaskAcknowledgement.OperatorStateAck("op" + op, subtask, 2, 64,
                    keyed("op" + op + "-" + subtask)));
            }
            p.acknowledge(subtask, ack(-1, states.toArray(new TaskAcknowledgement.OperatorStateAck[0])), 1);
        }

        final CheckpointMetadata metadata = p.metadata(tasks, new long[2], new PendingCheckpoint.Scratch());

        assertThat(metadata.sourcePositions()).isEmpty();
        assertThat(metadata.operators()).hasSize(operators);
        for (int op = 0; op < operators; op++)
        {
            assertThat(metadata.operators().get("op" + op)).isEqualTo(new OperatorState(2, 64,
                List.of(keyed("op" + op + "-0"), keyed("op" + op + "-1"))));
        }
    }

    @Test
    void workingArraysKeptFromCheckpointToCheckpointGiveWhatFreshOnesGive()
    {
        // checkpoints of jobs of random shapes, one after another through the same working arrays (as the coordinator
        // keeps them): each metadata equals the one gathered in fresh arrays, so nothing of an earlier checkpoint
        // (a uid, a state, a position, a longer array) shows in a later one
        final SplittableRandom random = new SplittableRandom(20261207L);
        final PendingCheckpoint.Scratch kept = new PendingCheckpoint.Scratch();
        for (int checkpoint = 1; checkpoint <= 2_000; checkpoint++)
        {
            final List<CheckpointParticipant> tasks = new ArrayList<>();
            final List<TaskAcknowledgement> acks = new ArrayList<>();
            final int sources = random.nextInt(4);
            for (int source = 0; source < sources; source++)
            {
                final int parallelism = 1 + random.nextInt(3);
                // uids unique in the job, not from one checkpoint to the next
                final String uid = "source" + (7 * source + random.nextInt(7));
                // a source subtask may have no task here (its index left unknown: -1)
                for (int subtask = 0; subtask < parallelism; subtask++)
                {
                    if (random.nextInt(4) > 0)
                    {
                        tasks.add(new Task(tasks.size(), "s", new CheckpointParticipant.SourceSubtask(uid, subtask,
                            parallelism)));
                        acks.add(random.nextInt(5) == 0 ? null : ack(random.nextLong(1_000_000)));
                    }
                }
            }
            final int operators = random.nextInt(6);
            final int parallelism = 1 + random.nextInt(3);
            for (int subtask = 0; subtask < parallelism; subtask++)
            {
                final List<TaskAcknowledgement.OperatorStateAck> states = new ArrayList<>();
                for (int op = 0; op < operators; op++)
                {
                    // some operator subtasks store nothing (empty in the metadata)
                    if (random.nextInt(3) > 0)
                    {
                        states.add(new TaskAcknowledgement.OperatorStateAck("op" + op, subtask, parallelism, 128,
                            keyed("op" + op + "-" + subtask + "-" + checkpoint)));
                    }
                }
                tasks.add(new Task(tasks.size(), "chain", null));
                acks.add(random.nextInt(5) == 0 ? null :
                    ack(-1, states.toArray(new TaskAcknowledgement.OperatorStateAck[0])));
            }
            final long[] finishedPositions = new long[tasks.size()];
            for (int i = 0; i < finishedPositions.length; i++)
            {
                finishedPositions[i] = random.nextLong(1_000_000);
            }
            final PendingCheckpoint p = new PendingCheckpoint(checkpoint, tasks.size(), false,
                new CompletableFuture<>());
            for (int i = 0; i < acks.size(); i++)
            {
                if (acks.get(i) != null)
                {
                    p.acknowledge(i, acks.get(i), 1);
                }
            }

            final CheckpointMetadata reused = p.metadata(tasks, finishedPositions, kept);
            final CheckpointMetadata fresh = p.metadata(tasks, finishedPositions, new PendingCheckpoint.Scratch());

            assertThat(reused.sourcePositions()).as("checkpoint %d", checkpoint).isEqualTo(fresh.sourcePositions());
            assertThat(reused.operators()).as("checkpoint %d", checkpoint).isEqualTo(fresh.operators());
        }
    }

    @Test
    void aSubtaskBeyondItsOperatorsParallelismIsRefusedEvenWhenTheKeptArraysAreLonger()
    {
        // the kept arrays grew for an operator of parallelism 4; an acknowledgement of subtask 3 of parallelism 2
        // must be refused, not stored where the metadata never reads it
        final PendingCheckpoint.Scratch kept = new PendingCheckpoint.Scratch();
        final List<CheckpointParticipant> wide = List.of(new Task(0, "count 3", null));
        final PendingCheckpoint first = new PendingCheckpoint(1, 1, false, new CompletableFuture<>());
        first.acknowledge(0, ack(-1, new TaskAcknowledgement.OperatorStateAck("count", 3, 4, 128, keyed("c"))), 1);
        first.metadata(wide, new long[1], kept);
        final PendingCheckpoint second = new PendingCheckpoint(2, 1, false, new CompletableFuture<>());
        second.acknowledge(0, ack(-1, new TaskAcknowledgement.OperatorStateAck("count", 3, 2, 128, keyed("d"))), 1);

        assertThatThrownBy(() -> second.metadata(wide, new long[1], kept))
            .isInstanceOf(IndexOutOfBoundsException.class);
        // and the arrays are left clean for the next checkpoint
        final PendingCheckpoint third = new PendingCheckpoint(3, 1, false, new CompletableFuture<>());
        third.acknowledge(0, ack(-1, new TaskAcknowledgement.OperatorStateAck("count", 1, 2, 128, keyed("e"))), 1);
        assertThat(third.metadata(wide, new long[1], kept).operators()).isEqualTo(Map.of("count",
            new OperatorState(2, 128, List.of(SubtaskState.EMPTY, keyed("e")))));
    }
}
