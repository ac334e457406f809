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
import java.util.Objects;
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
    /** The future of the request that started it; null for a periodic checkpoint, which nobody waits for. */
    final CompletableFuture<CompletedCheckpoint> future;
    /** Per task, its acknowledgement; null until it acknowledged. */
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
        acks[task] = Objects.requireNonNull(ack, "ack");
        acknowledgedAfterNanos[task] = now - triggerNanos;
    }

    /** @return whether the task has acknowledged. */
    boolean isAcknowledgedBy(final int task)
    {
        return acks[task] != null;
    }

    /**
     * @param finished per task, whether it finished: its END_OF_INPUT stands for the barriers it never saw.
     * @return whether every task acknowledged or finished.
     */
    boolean isComplete(final boolean[] finished)
    {
        for (int i = 0; i < acks.length; i++)
        {
            if (acks[i] == null && !finished[i])
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @param tasks             the job's tasks, by index.
     * @param finishedPositions per finished source task, the position after its last record.
     * @param scratch           the coordinator's working arrays, used under its lock.
     * @return the metadata to commit.
     */
    CheckpointMetadata metadata(final List<CheckpointParticipant> tasks, final long[] finishedPositions,
        final Scratch scratch)
    {
        return new CheckpointMetadata(id, triggerMillis, savepoint, positions(tasks, finishedPositions, scratch),
            operatorStates(scratch));
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
     * Gathers every operator subtask's state files; operators with no state at all are left out. Gathered in the
     * coordinator's working arrays and handed over as an immutable map ({@link CheckpointMetadata} keeps it as it
     * is): this runs once per checkpoint on the last acknowledging thread, usually a task thread, where what it
     * allocates is the metadata itself and nothing around it.
     */
    private Map<String, OperatorState> operatorStates(final Scratch scratch)
    {
        int count = 0;
        try
        {
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
                    int at = indexOf(scratch.uids, count, state.uid());
                    if (at < 0)
                    {
                        scratch.ensure(count + 1);
                        at = count++;
                        scratch.uids[at] = state.uid();
                        scratch.subtaskStates(at, state.parallelism());
                        scratch.parallelism[at] = state.parallelism();
                    }
                    // the kept array may be longer than this operator's parallelism: a subtask beyond it is refused,
                    // as a fresh array of the parallelism would refuse it
                    scratch.subtaskStates[at][Objects.checkIndex(state.subtask(), scratch.parallelism[at])] =
                        state.state();
                    scratch.maxParallelism[at] = state.maxParallelism();
                }
            }
            if (count == 1)
            {
                // the usual job: one stateful operator, no entry array and no holder around the one mapping
                return Map.of(scratch.uids[0], operatorState(scratch, 0));
            }
            @SuppressWarnings("unchecked")
            final Map.Entry<String, OperatorState>[] operators = new Map.Entry[count];
            for (int i = 0; i < count; i++)
            {
                operators[i] = Map.entry(scratch.uids[i], operatorState(scratch, i));
            }
            return Map.ofEntries(operators);
        }
        finally
        {
            scratch.clear(count);
        }
    }

    /**
     * @return the {@code at}-th operator's state, of its subtasks' states, those that stored nothing counted as empty
     */
    private static OperatorState operatorState(final Scratch scratch, final int at)
    {
        final SubtaskState[] states = scratch.subtaskStates[at];
        final int parallelism = scratch.parallelism[at];
        for (int s = 0; s < parallelism; s++)
        {
            if (states[s] == null)
            {
                states[s] = SubtaskState.EMPTY;
            }
        }
        // the working array is not the metadata's: copied to this checkpoint's parallelism (List.of copies again)
        return new OperatorState(parallelism, scratch.maxParallelism[at],
            parallelism == 1 ? List.of(states[0]) : List.of(Arrays.copyOf(states, parallelism)));
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
     * The cut: per source uid, each subtask's position at the barrier (or at its end, when it had finished). Gathered
     * in the coordinator's working arrays, like {@link #operatorStates}.
     */
    private Map<String, List<Long>> positions(final List<CheckpointParticipant> tasks, final long[] finishedPositions,
        final Scratch scratch)
    {
        int count = 0;
        try
        {
            for (int i = 0; i < tasks.size(); i++)
            {
                final CheckpointParticipant.SourceSubtask source = tasks.get(i).source();
                if (source != null)
                {
                    int at = indexOf(scratch.uids, count, source.uid());
                    if (at < 0)
                    {
                        scratch.ensure(count + 1);
                        at = count++;
                        scratch.uids[at] = source.uid();
                        Arrays.fill(scratch.positions(at, source.parallelism()), 0, source.parallelism(), -1L);
                        scratch.parallelism[at] = source.parallelism();
                    }
                    scratch.positions[at][Objects.checkIndex(source.subtask(), scratch.parallelism[at])] =
                        acks[i] != null ? acks[i].position() : finishedPositions[i];
                }
            }
            if (count == 1)
            {
                return Map.of(scratch.uids[0], boxed(scratch.positions[0], scratch.parallelism[0]));
            }
            @SuppressWarnings("unchecked")
            final Map.Entry<String, List<Long>>[] positions = new Map.Entry[count];
            for (int i = 0; i < count; i++)
            {
                positions[i] = Map.entry(scratch.uids[i], boxed(scratch.positions[i], scratch.parallelism[i]));
            }
            return Map.ofEntries(positions);
        }
        finally
        {
            scratch.clear(count);
        }
    }

    /** @return the first {@code length} positions, boxed, as an immutable list. */
    private static List<Long> boxed(final long[] positions, final int length)
    {
        if (length == 1)
        {
            return List.of(positions[0]);
        }
        final Long[] boxed = new Long[length];
        for (int s = 0; s < length; s++)
        {
            boxed[s] = positions[s];
        }
        return List.of(boxed);
    }

    /**
     * Working arrays for {@link #metadata}, kept by the coordinator from one checkpoint to the next and used under
     * its lock: per operator (or source) found, its uid, parallelism, and its subtasks' states or positions. Only the
     * first entries of a use are meaningful; each use ends with {@link #clear}, so the state arrays are all null at
     * the start of the next (a subtask that stored nothing is told apart so) and no state of an ended checkpoint
     * stays reachable.
     */
    static final class Scratch
    {
        private String[] uids = new String[4];
        private SubtaskState[][] subtaskStates = new SubtaskState[4][];
        private int[] maxParallelism = new int[4];
        private long[][] positions = new long[4][];
        private int[] parallelism = new int[4];

        /** Makes room for {@code count} operators. */
        private void ensure(final int count)
        {
            if (count > uids.length)
            {
                final int length = Math.max(count, 2 * uids.length);
                uids = Arrays.copyOf(uids, length);
                subtaskStates = Arrays.copyOf(subtaskStates, length);
                maxParallelism = Arrays.copyOf(maxParallelism, length);
                positions = Arrays.copyOf(positions, length);
                parallelism = Arrays.copyOf(parallelism, length);
            }
        }

        /** Makes the {@code at}-th operator's state array at least {@code parallelism} long; its elements are null. */
        private void subtaskStates(final int at, final int parallelism)
        {
            if (subtaskStates[at] == null || subtaskStates[at].length < parallelism)
            {
                subtaskStates[at] = new SubtaskState[parallelism];
            }
        }

        /** @return the position array of the {@code at}-th source, of at least {@code parallelism} elements. */
        private long[] positions(final int at, final int parallelism)
        {
            if (positions[at] == null || positions[at].length < parallelism)
            {
                positions[at] = new long[parallelism];
            }
            return positions[at];
        }

        /**
         * Forgets the first {@code count} operators' uids and states (the arrays are kept for the next use, emptied:
         * a state array is all null again).
         */
        private void clear(final int count)
        {
            Arrays.fill(uids, 0, count, null);
            for (int i = 0; i < count; i++)
            {
                if (subtaskStates[i] != null)
                {
                    Arrays.fill(subtaskStates[i], null);
                }
            }
        }
    }
}
