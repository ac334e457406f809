package io.ringflow.engine.api;

import java.util.List;
import java.util.Map;

/**
 * A checkpoint every task acknowledged. Source positions are the consistent cut: restarting each source subtask at
 * its position and every operator from its state of this checkpoint reproduces the job as it was.
 *
 * @param checkpointId    the id.
 * @param triggerMillis   when it was triggered, epoch ms.
 * @param durationNanos   trigger to commit: every task acknowledged, then the metadata stored.
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
        return max(SubtaskCheckpointStats::syncDurationNanos);
    }

    /** @return the longest asynchronous part (writing the snapshot) of any task, ns. */
    public long maxAsyncNanos()
    {
        return max(SubtaskCheckpointStats::asyncDurationNanos);
    }

    /** @return the longest alignment of any task, ns. */
    public long maxAlignmentNanos()
    {
        return max(SubtaskCheckpointStats::alignmentDurationNanos);
    }

    /** @return bytes of state files written by all tasks. */
    public long stateSizeBytes()
    {
        long sum = 0;
        for (int i = 0; i < subtasks.size(); i++)
        {
            final SubtaskCheckpointStats stats = subtasks.get(i);
            sum += stats.stateSizeBytes();
        }
        return sum;
    }

    /** @return bytes of in-flight records persisted by all tasks (unaligned checkpoints). */
    public long inFlightBytes()
    {
        long sum = 0;
        for (int i = 0; i < subtasks.size(); i++)
        {
            final SubtaskCheckpointStats stats = subtasks.get(i);
            sum += stats.inFlightBytes();
        }
        return sum;
    }

    /**
     * An indexed loop, not a stream nor an iterator: listeners call these on the thread that completed the checkpoint
     * (a task thread, for in-memory storage), a few times a second, where the stream pipeline's code runs cold and an
     * iterator is garbage.
     */
    private long max(final java.util.function.ToLongFunction<SubtaskCheckpointStats> of)
    {
        if (subtasks.isEmpty())
        {
            return 0;
        }
        long max = Long.MIN_VALUE;
        for (int i = 0; i < subtasks.size(); i++)
        {
            final SubtaskCheckpointStats stats = subtasks.get(i);
            max = Math.max(max, of.applyAsLong(stats));
        }
        return max;
    }

    /** @return whether any task took this checkpoint unaligned. */
    public boolean unaligned()
    {
        for (int i = 0; i < subtasks.size(); i++)
        {
            final SubtaskCheckpointStats stats = subtasks.get(i);
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
        return String.format(java.util.Locale.ROOT, "%s %d %s: %.1f us end to end, max sync %.1f us, " +
            "max async %.1f us, max alignment %.1f us, state %d B, in-flight %d B, %d tasks",
            savepoint ? "savepoint" : "checkpoint", checkpointId,
            unaligned() ? "unaligned" : "aligned", durationNanos / 1e3, maxSyncNanos() / 1e3, maxAsyncNanos() / 1e3,
            maxAlignmentNanos() / 1e3, stateSizeBytes(), inFlightBytes(), subtasks.size());
    }
}
