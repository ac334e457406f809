package io.ringflow.engine.api;

/**
 * What one task contributed to a completed checkpoint. Durations are -1 for a task that had already finished (its
 * END_OF_INPUT stood for the barrier).
 *
 * @param task                     the task's name: its chain of operators and subtask.
 * @param syncDurationNanos        the synchronous part of its snapshot, on the task thread.
 * @param asyncDurationNanos       the asynchronous part: writing its state files, on the flusher; 0 without state.
 * @param alignmentDurationNanos   from the first barrier at the task to the last (0 for a source or one input).
 * @param startDelayNanos          from the trigger to the first barrier of this checkpoint at the task.
 * @param acknowledgedAfterNanos   from the trigger to the task's acknowledgement, state durable.
 * @param stateSizeBytes           bytes of state files written (keyed, operator and channel state).
 * @param inFlightBytes            bytes of in-flight records persisted as channel state (unaligned checkpoints).
 * @param inFlightRecords          how many records those were.
 * @param unaligned                whether the task took this checkpoint unaligned.
 */
public record SubtaskCheckpointStats(
    String task,
    long syncDurationNanos,
    long asyncDurationNanos,
    long alignmentDurationNanos,
    long startDelayNanos,
    long acknowledgedAfterNanos,
    long stateSizeBytes,
    long inFlightBytes,
    long inFlightRecords,
    boolean unaligned)
{
    /**
     * @param task the finished task.
     * @return the statistics of a task that had finished before the checkpoint.
     */
    public static SubtaskCheckpointStats finished(final String task)
    {
        return new SubtaskCheckpointStats(task, -1, -1, -1, -1, -1, 0, 0, 0, false);
    }
}
