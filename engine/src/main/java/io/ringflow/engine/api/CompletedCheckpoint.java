package io.ringflow.engine.api;

import java.util.List;
import java.util.Map;

/**
 * A checkpoint every task acknowledged. Source positions are the consistent cut: restarting each source subtask at
 * its position and every operator from its state of this checkpoint reproduces the job as it was.
 *
 * @param checkpointId    the id.
 * @param triggerMillis   when it was triggered, epoch ms.
 * @param durationNanos   trigger to the last acknowledgement.
 * @param sourcePositions per source operator uid, the position of each subtask (index = subtask).
 */
public record CompletedCheckpoint(
    long checkpointId, long triggerMillis, long durationNanos, Map<String, List<Long>> sourcePositions)
{
}
