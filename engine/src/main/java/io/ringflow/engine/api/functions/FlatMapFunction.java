package io.ringflow.engine.api.functions;

import java.io.Serializable;

/**
 * Transforms each record into zero or more records, emitted through the collector.
 *
 * <p>Called on the operator's task thread only. {@link Serializable} so that the output type of a lambda can be read
 * from its compiled signature; Ringflow never serializes functions.
 */
@FunctionalInterface
public interface FlatMapFunction<T, R> extends Serializable
{
    /**
     * The function. An exception fails the job attempt and is reported with the operator and subtask.
     */
    void flatMap(T value, Collector<R> out) throws Exception;
}
