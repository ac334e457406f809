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
 * @param subtasks        per task, what it spent on this checkpoint.
 * @param savepoint       whether it was taken as a savepoint (aligned, kept by retention and on cancel).
 */
public record CompletedCheckpoint(
    long checkpointId,
    long triggerMillis,
    long durationNanos,
    Map<String, List<Long>> sourcePositions,
    List<SubtaskCheckpointStats> subtasks,
    boolean savepoint)
{
    /** @return the longest synchronous part (the capture at the barrier) of any task, ns. */
    public long maxSyncNanos()
    {
        long max = 0;
        for (final SubtaskCheckpointStats stats : subtasks)
        {
            max = Math.max(max, stats.syncDurationNanos());
        }
        return max;
    }

    /** @return the longest asynchronous part (writing the snapshot) of any task, ns. */
    public long maxAsyncNanos()
    {
        long max = 0;
        for (final SubtaskCheckpointStats stats : subtasks)
        {
            max = Math.max(max, stats.asyncDurationNanos());
        }
        return max;
    }

    /** @return the longest alignment of any task, ns. */
    public long maxAlignmentNanos()
    {
        long max = 0;
        for (final SubtaskCheckpointStats stats : subtasks)
        {
            max = Math.max(max, stats.alignmentDurationNanos());
        }
        return max;
    }

    /** @return bytes of state files written by all tasks. */
    public long stateSizeBytes()
    {
        long total = 0;
        for (final SubtaskCheckpointStats stats : subtasks)
        {
            total += stats.stateSizeBytes();
        }
        return total;
    }

    /** @return bytes of in-flight records persisted by all tasks (unaligned checkpoints). */
    public long inFlightBytes()
    {
        long total = 0;
        for (final SubtaskCheckpointStats stats : subtasks)
        {
            total += stats.inFlightBytes();
        }
        return total;
    }

    /** @return whether any task took this checkpoint unaligned. */
    public boolean unaligned()
    {
        for (final SubtaskCheckpointStats stats : subtasks)
        {
            if (stats.unaligned())
            {
                return true;
            }
        }
        return false;
    }

    /** @return a one-line summary, as the sample prints it. */
    public String summary()
    {
        long maxSync = 0;
        long maxAsync = 0;
        for (final SubtaskCheckpointStats stats : subtasks)
        {
            maxSync = Math.max(maxSync, stats.syncDurationNanos());
            maxAsync = Math.max(maxAsync, stats.asyncDurationNanos());
        }
        return String.format(java.util.Locale.ROOT, "%s %d %s: %.1f us end to end, max sync %.1f us, " +
            "max async %.1f us, max alignment %.1f us, state %d B, in-flight %d B, %d tasks",
            savepoint ? "savepoint" : "checkpoint", checkpointId,
            unaligned() ? "unaligned" : "aligned", durationNanos / 1e3, maxSync / 1e3, maxAsync / 1e3,
            maxAlignmentNanos() / 1e3, stateSizeBytes(), inFlightBytes(), subtasks.size());
    }
}
