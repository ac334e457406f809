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

    /**
     * @return a one-line summary, as the sample prints it: {@code checkpoint 7 aligned: 243.3 us end to end, max sync
     *     20.7 us, max async 85.4 us, max alignment 0.0 us, state 34667 B, in-flight 0 B, 2 tasks}. Durations in
     *     microseconds to one decimal, rounded half up (as {@code %.1f} would); built in one string builder, since
     *     monitors call it once a second or so (a {@code String.format} of it left about 5 KB of garbage).
     */
    public String summary()
    {
        return appendSummary(new StringBuilder(160)).toString();
    }

    /**
     * Appends {@link #summary()} to {@code line}, for a monitor that reuses one builder: it then allocates nothing
     * (unless the builder must grow).
     *
     * @param line where to append.
     * @return {@code line}.
     */
    public StringBuilder appendSummary(final StringBuilder line)
    {
        line.append(savepoint ? "savepoint " : "checkpoint ").append(checkpointId)
            .append(unaligned() ? " unaligned: " : " aligned: ");
        appendMicros(line, durationNanos).append(" us end to end, max sync ");
        appendMicros(line, maxSyncNanos()).append(" us, max async ");
        appendMicros(line, maxAsyncNanos()).append(" us, max alignment ");
        appendMicros(line, maxAlignmentNanos()).append(" us, state ").append(stateSizeBytes())
            .append(" B, in-flight ").append(inFlightBytes()).append(" B, ").append(subtasks.size()).append(" tasks");
        return line;
    }

    /** Appends {@code nanos} in microseconds with one decimal, rounded half up, a minus sign kept on -0.0. */
    private static StringBuilder appendMicros(final StringBuilder line, final long nanos)
    {
        // nanos / 100 rounded half up is the tenths of a microsecond; Long.MIN_VALUE has no magnitude of its own
        final long magnitude = nanos == Long.MIN_VALUE ? Long.MAX_VALUE : Math.abs(nanos);
        final long tenths = magnitude / 100 + (magnitude % 100 >= 50 ? 1 : 0);
        if (nanos < 0)
        {
            line.append('-');
        }
        return line.append(tenths / 10).append('.').append(tenths % 10);
    }
}
