package io.ringflow.engine.api.source;

import io.ringflow.engine.api.functions.SubtaskInfo;

/**
 * A source of records. Each subtask reads through its own {@link SourceReader}; every reader reports a position
 * (an index, a byte offset) from which it can resume, so a checkpoint can record it and a restore can seek to it.
 *
 * @param <T> the record type.
 */
public interface Source<T>
{
    /**
     * @return the record type, or null when unknown (then declare it with {@code DataStream.returns}).
     */
    Class<T> producedType();

    /**
     * @return whether the source ends by itself (END_OF_INPUT is then sent downstream).
     */
    boolean isBounded();

    /**
     * @return the most subtasks this source can be split into.
     */
    default int maxParallelism()
    {
        return Integer.MAX_VALUE;
    }

    /**
     * @return whether the reader keeps its own position in operator state (it implements
     *     {@link io.ringflow.engine.api.functions.CheckpointedFunction}, e.g. the offsets of the partitions it owns):
     *     then {@link SourceReader#position()} is informative only and never seeked to, and the source may be
     *     restored at another parallelism. False: the checkpoint records one position per subtask and a restore
     *     needs the same parallelism.
     */
    default boolean keepsPositionInState()
    {
        return false;
    }

    /**
     * Creates the reader of one subtask. Called on the subtask's task thread.
     *
     * @param subtask which subtask.
     * @return a new reader, positioned at the start of this subtask's split.
     * @throws Exception fails the job attempt.
     */
    SourceReader<T> createReader(SubtaskInfo subtask) throws Exception;
}
