package io.ringflow.engine.api;

/**
 * What one task spent on one checkpoint.
 *
 * @param task                   the task's name: its chain of operators and subtask, e.g. {@code "count -> sink (2/4)"}.
 * @param syncDurationNanos      the synchronous snapshot (every operator of the chain seeing the barrier); -1 when the
 *                               task had already finished (its END_OF_INPUT stood for the barrier).
 * @param alignmentDurationNanos from the first barrier at the task to its snapshot: how long aligned channels were
 *                               blocked; 0 for a single input or a source; -1 when finished.
 * @param acknowledgedAfterNanos from the trigger to this task's acknowledgement; -1 when finished.
 */
public record SubtaskCheckpointStats(
    String task, long syncDurationNanos, long alignmentDurationNanos, long acknowledgedAfterNanos)
{
}
