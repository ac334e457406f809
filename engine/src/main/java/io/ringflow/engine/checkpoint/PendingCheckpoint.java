package io.ringflow.engine.checkpoint;

import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.SubtaskCheckpointStats;
import io.ringflow.state.checkpoint.CheckpointMetadata;
import io.ringflow.state.checkpoint.OperatorState;
import io.ringflow.state.checkpoint.SubtaskState;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * A triggered checkpoint waiting for its acknowledgements, and what it becomes once complete: its metadata (source
 * positions and every operator subtask's state files) and its statistics.
 *
 * <p>Thread contract: guarded by the {@link CheckpointCoordinator}'s lock, except {@link #future}, which completes
 * outside it, and the fields fixed at construction.
 */
final class PendingCheckpoint
{
    final long id;
    /** Whether it is a savepoint: aligned, kept by retention, never deleted on cancel. */
    final boolean savepoint;
    final long triggerNanos = System.nanoTime();
    final long triggerMillis = System.currentTimeMillis();
    /** The future of the request that started it (a fresh one for a periodic checkpoint). */
    final CompletableFuture<CompletedCheckpoint> future;
    private final boolean[] acknowledged;
    private final TaskAcknowledgement[] acks;
    private final long[] acknowledgedAfterNanos;
    /** Every task acknowledged; its metadata is being committed. */
    boolean committing;
    /**
     * With incremental keyed snapshots, the completed checkpoint whose keyed state files this one's deltas build on
     * (the newest committed when it was triggered), pinned against retention until this one ends; else null. Set at
     * registration, before the barrier is requested.
     */
    CheckpointMetadata incrementalBase;

    PendingCheckpoint(final long id, final int taskCount, final boolean savepoint,
        final CompletableFuture<CompletedCheckpoint> future)
    {
        this.id = id;
        this.savepoint = savepoint;
        this.future = future;
        this.acknowledged = new boolean[taskCount];
        this.acks = new TaskAcknowledgement[taskCount];
        this.acknowledgedAfterNanos = new long[taskCount];
    }

    long id()
    {
        return id;
    }

    /**
     * @param task the task's index.
     * @param ack  its acknowledgement.
     * @param now  {@link System#nanoTime()} when it arrived.
     */
    void acknowledge(final int task, final TaskAcknowledgement ack, final long now)
    {
        acknowledged[task] = true;
        acks[task] = ack;
        acknowledgedAfterNanos[task] = now - triggerNanos;
    }

    /** @return whether the task has acknowledged. */
    boolean isAcknowledgedBy(final int task)
    {
        return acknowledged[task];
    }

    /**
     * @param finished per task, whether it finished: its END_OF_INPUT stands for the barriers it never saw.
     * @return whether every task acknowledged or finished.
     */
    boolean isComplete(final boolean[] finished)
    {
        for (int i = 0; i < acknowledged.length; i++)
        {
            if (!acknowledged[i] && !finished[i])
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @param tasks             the job's tasks, by index.
     * @param finishedPositions per finished source task, the position after its last record.
     * @return the metadata to commit.
     */
    CheckpointMetadata metadata(final List<CheckpointParticipant> tasks, final long[] finishedPositions)
    {
        return new CheckpointMetadata(id, triggerMillis, savepoint, positions(tasks, finishedPositions),
            operatorStates());
    }

    /**
     * @param metadata what was committed.
     * @param tasks    the job's tasks, by index.
     * @return the completed checkpoint, with its statistics.
     */
    CompletedCheckpoint completed(final CheckpointMetadata metadata, final List<CheckpointParticipant> tasks)
    {
        return new CompletedCheckpoint(id, triggerMillis, System.nanoTime() - triggerNanos,
            metadata.sourcePositions(), stats(tasks), savepoint);
    }

    private List<SubtaskCheckpointStats> stats(final List<CheckpointParticipant> tasks)
    {
        final List<SubtaskCheckpointStats> stats = new ArrayList<>(tasks.size());
        for (int i = 0; i < tasks.size(); i++)
        {
            final TaskAcknowledgement ack = acks[i];
            stats.add(ack != null ?
                new SubtaskCheckpointStats(tasks.get(i).name(), ack.syncNanos(), ack.asyncNanos(),
                    ack.alignmentNanos(), Math.max(0, ack.firstBarrierNanos() - triggerNanos),
                    acknowledgedAfterNanos[i], ack.stateBytes(), ack.inFlightBytes(), ack.inFlightRecords(),
                    ack.unaligned()) :
                SubtaskCheckpointStats.finished(tasks.get(i).name()));
        }
        return List.copyOf(stats);
    }

    /** Gathers every operator subtask's state files; operators with no state at all are left out. */
    private Map<String, OperatorState> operatorStates()
    {
        final Map<String, SubtaskState[]> bySubtask = new TreeMap<>();
        final Map<String, int[]> shapes = new TreeMap<>();
        for (final TaskAcknowledgement ack : acks)
        {
            if (ack == null)
            {
                continue;
            }
            for (final TaskAcknowledgement.OperatorStateAck state : ack.states())
            {
                bySubtask.computeIfAbsent(state.uid(), uid -> new SubtaskState[state.parallelism()])
                    [state.subtask()] = state.state();
                shapes.put(state.uid(), new int[] {state.parallelism(), state.maxParallelism()});
            }
        }
        final Map<String, OperatorState> operators = new LinkedHashMap<>();
        bySubtask.forEach((uid, states) ->
        {
            final List<SubtaskState> subtasks = new ArrayList<>(states.length);
            for (final SubtaskState state : states)
            {
                subtasks.add(state == null ? SubtaskState.EMPTY : state);
            }
            operators.put(uid, new OperatorState(shapes.get(uid)[0], shapes.get(uid)[1], subtasks));
        });
        return operators;
    }

    /** The cut: per source uid, each subtask's position at the barrier (or at its end, when it had finished). */
    private Map<String, List<Long>> positions(final List<CheckpointParticipant> tasks, final long[] finishedPositions)
    {
        final Map<String, List<Long>> positions = new LinkedHashMap<>();
        for (int i = 0; i < tasks.size(); i++)
        {
            final CheckpointParticipant.SourceSubtask source = tasks.get(i).source();
            if (source != null)
            {
                final List<Long> perSubtask = positions.computeIfAbsent(source.uid(), uid ->
                {
                    final List<Long> list = new ArrayList<>();
                    for (int s = 0; s < source.parallelism(); s++)
                    {
                        list.add(-1L);
                    }
                    return list;
                });
                perSubtask.set(source.subtask(), acks[i] != null ? acks[i].position() : finishedPositions[i]);
            }
        }
        return positions;
    }
}
