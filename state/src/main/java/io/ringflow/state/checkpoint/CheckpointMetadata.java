package io.ringflow.state.checkpoint;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a completed checkpoint records: its id, when it was triggered, whether it is a savepoint, the position of
 * every source subtask (the consistent cut) and the state every operator subtask stored at that cut. Written last, as
 * {@code chk-<id>/_metadata}: its presence is the checkpoint's commit point; the state files it points to were made
 * durable before it.
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

    /** @return every state file the checkpoint points to. */
    public List<StateHandle> stateHandles()
    {
        return operators.values().stream()
            .flatMap(operator -> operator.subtasks().stream())
            .flatMap(subtask -> java.util.stream.Stream.of(subtask.keyed(), subtask.operator(), subtask.channels()))
            .filter(Objects::nonNull)
            .toList();
    }
}
