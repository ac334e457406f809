package io.ringflow.engine.checkpoint;

import io.ringflow.state.checkpoint.SubtaskState;

import java.util.List;

/**
 * A task's acknowledgement of one checkpoint: its snapshot is complete and its state files durable.
 *
 * @param checkpointId      the checkpoint.
 * @param position          a source task's position at the barrier (the cut), -1 for other tasks.
 * @param firstBarrierNanos {@link System#nanoTime()} when the checkpoint's first barrier reached the task (or, for
 *                          a source, when it injected it).
 * @param syncNanos         the synchronous part.
 * @param asyncNanos        the asynchronous part.
 * @param alignmentNanos    first to last barrier.
 * @param stateBytes        bytes of state files written.
 * @param inFlightBytes     bytes of in-flight records persisted.
 * @param inFlightRecords   records persisted.
 * @param unaligned         whether the task took the checkpoint unaligned.
 * @param states            the state of each operator of the chain that had any.
 */
public record TaskAcknowledgement(
    long checkpointId,
    long position,
    long firstBarrierNanos,
    long syncNanos,
    long asyncNanos,
    long alignmentNanos,
    long stateBytes,
    long inFlightBytes,
    long inFlightRecords,
    boolean unaligned,
    List<OperatorStateAck> states)
{
    /**
     * The state one operator subtask stored.
     *
     * @param uid            the operator's uid.
     * @param subtask        the subtask index.
     * @param parallelism    the operator's parallelism.
     * @param maxParallelism the job's number of key groups.
     * @param state          its state files.
     */
    public record OperatorStateAck(String uid, int subtask, int parallelism, int maxParallelism, SubtaskState state)
    {
    }
}
