package io.ringflow.engine.api.functions;

import java.io.Serializable;

/**
 * Extracts the key of a record. The key must not be null, and equal keys must have equal hash codes in every JVM run (no identity hash codes; enums are hashed by name).
 *
 * <p>Called on the operator's task thread only. {@link Serializable} so that the output type of a lambda can be read
 * from its compiled signature; Ringflow never serializes functions.
 */
@FunctionalInterface
public interface KeySelector<T, K> extends Serializable
{
    /**
     * The function. An exception fails the job attempt and is reported with the operator and subtask.
     */
    K getKey(T value) throws Exception;
}
