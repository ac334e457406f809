package io.ringflow.engine.checkpoint;

import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.SubtaskCheckpointStats;
import io.ringflow.state.checkpoint.CheckpointMetadata;
import io.ringflow.state.checkpoint.OperatorState;
import io.ringflow.state.checkpoint.SubtaskState;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A triggered checkpoint waiting for its acknowledgements, and what it becomes once complete: its metadata (source
 * positions and every operator subtask's state files) and its statistics.
 *
 * <p>Thread contract: guarded by the {@link CheckpointCoordinator}'s lock, except {@link #future}, which completes
 * outside it, the fields fixed at construction, and the commit's results (below), written under its commit lock.
 */
final class PendingCheckpoint
{
    final long id;
    /** {@link #id}, boxed once: the coordinator's map of pending checkpoints is keyed by it. */
    final Long key;
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
    /*
     * What its commit left for what follows it, written under the coordinator's commit lock. A stored checkpoint is
     * committed once (it leaves the pending map), and the thread that stored it reads the first three after releasing
     * the lock; a failed store is read under the lock (a task finishing meanwhile may commit it again).
     */
    /** Stored: the completed checkpoint. */
    CompletedCheckpoint completedAs;
    /** Stored: older pending checkpoints it subsumed, or null for none. */
    List<PendingCheckpoint> subsumed;
    /** Stored while the job ran and before it was aborted: tasks are told it completed. */
    boolean notifyTasks;
    /** Not stored: why. */
    Exception commitFailure;

    PendingCheckpoint(final long id, final int taskCount, final boolean savepoint,
        final CompletableFuture<CompletedCheckpoint> future)
    {
        this.id = id;
        this.key = id;
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
        final SubtaskCheckpointStats[] stats = new SubtaskCheckpointStats[tasks.size()];
        for (int i = 0; i < stats.length; i++)
        {
            final TaskAcknowledgement ack = acks[i];
            stats[i] = ack != null ?
                new SubtaskCheckpointStats(tasks.get(i).name(), ack.syncNanos(), ack.asyncNanos(),
                    ack.alignmentNanos(), Math.max(0, ack.firstBarrierNanos() - triggerNanos),
                    acknowledgedAfterNanos[i], ack.stateBytes(), ack.inFlightBytes(), ack.inFlightRecords(),
                    ack.unaligned()) :
                SubtaskCheckpointStats.finished(tasks.get(i).name());
        }
        // immutable either way; the array is never seen by anyone else, so it is wrapped rather than copied again
        return switch (stats.length)
        {
            case 1 -> List.of(stats[0]);
            case 2 -> List.of(stats[0], stats[1]);
            default -> Collections.unmodifiableList(Arrays.asList(stats));
        };
    }

    /**
     * Gathers every operator subtask's state files; operators with no state at all are left out. Built in arrays and
     * handed over as an immutable map ({@link CheckpointMetadata} keeps it as it is): this runs once per checkpoint
     * on the last acknowledging thread, usually a task thread, where the code is cold for the job's first minutes.
     */
    private Map<String, OperatorState> operatorStates()
    {
        int count = 0;
        String[] uids = new String[4];
        SubtaskState[][] bySubtask = new SubtaskState[4][];
        int[] maxParallelism = new int[4];
        for (final TaskAcknowledgement ack : acks)
        {
            if (ack == null)
            {
                continue;
            }
            final List<TaskAcknowledgement.OperatorStateAck> states = ack.states();
            for (int s = 0; s < states.size(); s++)
            {
                final TaskAcknowledgement.OperatorStateAck state = states.get(s);
                int at = indexOf(uids, count, state.uid());
                if (at < 0)
                {
                    if (count == uids.length)
                    {
                        uids = Arrays.copyOf(uids, 2 * count);
                        bySubtask = Arrays.copyOf(bySubtask, 2 * count);
                        maxParallelism = Arrays.copyOf(maxParallelism, 2 * count);
                    }
                    at = count++;
                    uids[at] = state.uid();
                    bySubtask[at] = new SubtaskState[state.parallelism()];
                }
                bySubtask[at][state.subtask()] = state.state();
                maxParallelism[at] = state.maxParallelism();
            }
        }
        @SuppressWarnings("unchecked")
        final Map.Entry<String, OperatorState>[] operators = new Map.Entry[count];
        for (int i = 0; i < count; i++)
        {
            final SubtaskState[] states = bySubtask[i];
            for (int s = 0; s < states.length; s++)
            {
                if (states[s] == null)
                {
                    states[s] = SubtaskState.EMPTY;
                }
            }
            operators[i] = Map.entry(uids[i], new OperatorState(states.length, maxParallelism[i], List.of(states)));
        }
        return Map.ofEntries(operators);
    }

    /** @return where {@code uid} is among the first {@code count} of {@code uids}, or -1. */
    private static int indexOf(final String[] uids, final int count, final String uid)
    {
        for (int i = 0; i < count; i++)
        {
            if (uids[i].equals(uid))
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * The cut: per source uid, each subtask's position at the barrier (or at its end, when it had finished). Built in
     * arrays, like {@link #operatorStates}.
     */
    private Map<String, List<Long>> positions(final List<CheckpointParticipant> tasks, final long[] finishedPositions)
    {
        int count = 0;
        String[] uids = new String[2];
        long[][] bySubtask = new long[2][];
        for (int i = 0; i < tasks.size(); i++)
        {
            final CheckpointParticipant.SourceSubtask source = tasks.get(i).source();
            if (source != null)
            {
                int at = indexOf(uids, count, source.uid());
                if (at < 0)
                {
                    if (count == uids.length)
                    {
                        uids = Arrays.copyOf(uids, 2 * count);
                        bySubtask = Arrays.copyOf(bySubtask, 2 * count);
                    }
                    at = count++;
                    uids[at] = source.uid();
                    bySubtask[at] = new long[source.parallelism()];
                    Arrays.fill(bySubtask[at], -1L);
                }
                bySubtask[at][source.subtask()] = acks[i] != null ? acks[i].position() : finishedPositions[i];
            }
        }
        @SuppressWarnings("unchecked")
        final Map.Entry<String, List<Long>>[] positions = new Map.Entry[count];
        for (int i = 0; i < count; i++)
        {
            final long[] perSubtask = bySubtask[i];
            final Long[] boxed = new Long[perSubtask.length];
            for (int s = 0; s < perSubtask.length; s++)
            {
                boxed[s] = perSubtask[s];
            }
            positions[i] = Map.entry(uids[i], List.of(boxed));
        }
        return Map.ofEntries(positions);
    }
}
