package io.ringflow.engine.checkpoint;

import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.checkpoint.CheckpointMetadata;
import io.ringflow.state.checkpoint.OperatorState;
import io.ringflow.state.checkpoint.StateHandle;
import io.ringflow.state.checkpoint.SubtaskState;

import java.util.List;

/**
 * How the tasks snapshot keyed state for one checkpoint with incremental snapshots: into the storage's shared area,
 * each subtask either a full snapshot (a new chain) or a delta on top of its chain in {@code base}.
 *
 * @param base              the newest checkpoint committed when this one was triggered, pinned against retention
 *                          until this one ends; null when there is none yet (every subtask then starts a chain).
 * @param slices            whether a delta also rewrites the next of {@code fullSnapshotEvery} slices of the state
 *                          where the store can ({@link KeyedStateStore#rewritesSlices}),
 *                          always or once its state is large ({@link CheckpointConfig.Slices}), cutting its chain to
 *                          a round once one is complete.
 * @param fullSnapshotEvery the longest chain allowed: a subtask whose chain in {@code base} already holds this many
 *                          files starts a new one.
 */
public record KeyedSnapshotPlan(CheckpointMetadata base, int fullSnapshotEvery, CheckpointConfig.Slices slices)
{
    /**
     * @param uid         the operator's uid.
     * @param subtask     the subtask's index.
     * @param parallelism the operator's parallelism now.
     * @return the subtask's keyed chain in the base, which a delta of this checkpoint may extend: empty when there is
     *     no base, the operator or subtask has no keyed state in it, its parallelism differed, or the chain is
     *     already as long as allowed.
     */
    public List<StateHandle> chainToExtend(final String uid, final int subtask, final int parallelism)
    {
        return chainToExtend(uid, subtask, parallelism, fullSnapshotEvery);
    }

    /**
     * @param store a subtask's keyed store at its barrier.
     * @return whether its delta of this checkpoint rewrites a slice of its state.
     */
    public boolean slicesFor(final KeyedStateStore store)
    {
        return switch (slices)
        {
            case NEVER -> false;
            case ALWAYS -> store.rewritesSlices();
            case AUTO -> store.rewritesSlices() &&
                store.entryCount() >= KeyedStateStore.SLICES_FROM_ENTRIES;
        };
    }

    /**
     * @param uid         the operator's uid.
     * @param subtask     the subtask's index.
     * @param parallelism the operator's parallelism now.
     * @param longest     the most files the chain may hold to be extended: {@code fullSnapshotEvery} for a store
     *                    whose deltas only add to a chain; twice that for one whose deltas rewrite slices of the state
     *                    and cut the chain to a round of {@code fullSnapshotEvery} files once one is complete (a chain
     *                    restored from another round, or ended by a plain delta, grows to that before a full snapshot
     *                    restarts it).
     * @return as {@link #chainToExtend(String, int, int)}, with that bound.
     */
    public List<StateHandle> chainToExtend(final String uid, final int subtask, final int parallelism,
        final int longest)
    {
        if (base == null)
        {
            return List.of();
        }
        final OperatorState operator = base.operators().get(uid);
        if (operator == null || operator.parallelism() != parallelism || subtask >= operator.subtasks().size())
        {
            return List.of();
        }
        final SubtaskState state = operator.subtasks().get(subtask);
        final List<StateHandle> chain = state.keyedChain();
        if (chain.isEmpty() || chain.size() >= longest || !chain.get(0).shared())
        {
            return List.of();
        }
        return chain;
    }
}
