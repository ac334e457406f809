package io.ringflow.state.checkpoint;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a completed checkpoint records: its id, when it was triggered, and the position of every source subtask (the
 * consistent cut). Written last, as {@code chk-<id>/_metadata}: its presence is the checkpoint's commit point.
 *
 * @param checkpointId    the id, positive.
 * @param triggerMillis   trigger time, epoch ms.
 * @param sourcePositions per source operator uid, the position of each subtask (index = subtask).
 */
public record CheckpointMetadata(long checkpointId, long triggerMillis, Map<String, List<Long>> sourcePositions)
{
    /**
     * @param checkpointId    the id, positive.
     * @param triggerMillis   trigger time, epoch ms.
     * @param sourcePositions copied.
     */
    public CheckpointMetadata
    {
        if (checkpointId <= 0)
        {
            throw new IllegalArgumentException("checkpointId must be positive, was " + checkpointId);
        }
        Objects.requireNonNull(sourcePositions, "sourcePositions");
        sourcePositions = Map.copyOf(sourcePositions);
    }
}
