package io.ringflow.engine.checkpoint;

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
 * @param fullSnapshotEvery the longest chain allowed: a subtask whose chain in {@code base} already holds this many
 *                          files starts a new one.
 */
public record KeyedSnapshotPlan(CheckpointMetadata base, int fullSnapshotEvery)
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
        if (chain.isEmpty() || chain.size() >= fullSnapshotEvery || !chain.get(0).shared())
        {
            return List.of();
        }
        return chain;
    }
}
