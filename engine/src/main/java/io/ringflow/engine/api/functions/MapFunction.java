package io.ringflow.engine.api.functions;

import java.io.Serializable;

/**
 * Transforms each record into exactly one record.
 *
 * <p>Called on the operator's task thread only. {@link Serializable} so that the output type of a lambda can be read
 * from its compiled signature; Ringflow never serializes functions.
 */
@FunctionalInterface
public interface MapFunction<T, R> extends Serializable
{
    /**
     * The function. An exception fails the job attempt and is reported with the operator and subtask.
     */
    R map(T value) throws Exception;
}
