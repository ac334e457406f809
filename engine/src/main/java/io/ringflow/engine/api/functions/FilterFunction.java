package io.ringflow.engine.api.functions;

import java.io.Serializable;

/**
 * Keeps the records for which it returns true.
 *
 * <p>Called on the operator's task thread only. {@link Serializable} so that the output type of a lambda can be read
 * from its compiled signature; Ringflow never serializes functions.
 */
@FunctionalInterface
public interface FilterFunction<T> extends Serializable
{
    /**
     * The function. An exception fails the job attempt and is reported with the operator and subtask.
     */
    boolean filter(T value) throws Exception;
}
