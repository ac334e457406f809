package io.ringflow.engine.api.sink;

import java.time.Duration;

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

    /**
     * Checks the job's periodic checkpointing when the job is built ({@code execute}), before anything runs: a sink
     * that cannot work with it (a transaction timeout shorter than a checkpoint can take, say) refuses here, naming
     * the numbers. Not called for a job without periodic checkpoints.
     *
     * @param interval the checkpoint interval.
     * @param timeout  the checkpoint timeout.
     * @throws IllegalArgumentException the job is refused with this message, naming the sink.
     */
    default void checkCheckpointing(final Duration interval, final Duration timeout)
    {
    }
}
