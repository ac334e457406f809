package io.ringflow.state.checkpoint;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a completed checkpoint records: its id, when it was triggered, whether it is a savepoint, the position of
 * every source subtask (the consistent cut) and the state every operator subtask stored at that cut. Written last, as
 * {@code chk-<id>/_metadata}: its presence is the checkpoint's commit point; the state files it points to (in the
 * checkpoint's folder, or in the storage's shared area for shared handles) were made durable before it.
 *
 * @param checkpointId    the id, positive.
 * @param triggerMillis   trigger time, epoch ms.
 * @param savepoint       whether it was taken on a user's request, to be kept and restored by hand.
 * @param sourcePositions per source operator uid, the position of each subtask (index = subtask).
 * @param operators       per operator uid, the state of its subtasks; operators without state are absent.
 */
public record CheckpointMetadata(
    long checkpointId,
    long triggerMillis,
    boolean savepoint,
    Map<String, List<Long>> sourcePositions,
    Map<String, OperatorState> operators)
{
    /**
     * @param checkpointId    the id, positive.
     * @param triggerMillis   trigger time, epoch ms.
     * @param savepoint       whether it is a savepoint.
     * @param sourcePositions copied.
     * @param operators       copied.
     */
    public CheckpointMetadata
    {
        if (checkpointId <= 0)
        {
            throw new IllegalArgumentException("checkpointId must be positive, was " + checkpointId);
        }
        Objects.requireNonNull(sourcePositions, "sourcePositions");
        Objects.requireNonNull(operators, "operators");
        sourcePositions = Map.copyOf(sourcePositions);
        operators = Map.copyOf(operators);
    }

    /**
     * A checkpoint without operator state.
     *
     * @param checkpointId    the id, positive.
     * @param triggerMillis   trigger time, epoch ms.
     * @param sourcePositions copied.
     */
    public CheckpointMetadata(final long checkpointId, final long triggerMillis,
        final Map<String, List<Long>> sourcePositions)
    {
        this(checkpointId, triggerMillis, false, sourcePositions, Map.of());
    }

    /**
     * @return every state file the checkpoint points to, private and shared: per operator and subtask its keyed chain
     *     (base, then increments oldest first), operator state and channel state. A shared file referenced twice is
     *     listed twice.
     */
    public List<StateHandle> stateHandles()
    {
        final List<StateHandle> handles = new ArrayList<>();
        for (final OperatorState operator : operators.values())
        {
            for (final SubtaskState subtask : operator.subtasks())
            {
                handles.addAll(subtask.keyedChain());
                if (subtask.operator() != null)
                {
                    handles.add(subtask.operator());
                }
                if (subtask.channels() != null)
                {
                    handles.add(subtask.channels());
                }
            }
        }
        return List.copyOf(handles);
    }

    /**
     * @return the names of every shared state file the checkpoint references (files in the storage's shared area,
     *     possibly written by earlier checkpoints), sorted; immutable. A storage keeps each of them while this
     *     checkpoint is stored.
     */
    public Set<String> sharedFiles()
    {
        final Set<String> names = new TreeSet<>();
        for (final StateHandle handle : stateHandles())
        {
            if (handle.shared())
            {
                names.add(handle.name());
            }
        }
        return Collections.unmodifiableSet(names);
    }
}
