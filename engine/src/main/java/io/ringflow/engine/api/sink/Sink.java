package io.ringflow.engine.api.sink;

import io.ringflow.engine.api.functions.SubtaskInfo;

/**
 * Where records leave the job. Each subtask writes through its own {@link SinkWriter}.
 *
 * @param <T> the record type.
 */
public interface Sink<T>
{
    /**
     * Creates the writer of one subtask; called on the subtask's task thread.
     *
     * @param subtask which subtask.
     * @return a new writer.
     * @throws Exception fails the job attempt.
     */
    SinkWriter<T> createWriter(SubtaskInfo subtask) throws Exception;
}
