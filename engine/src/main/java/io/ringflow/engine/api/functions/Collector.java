package io.ringflow.engine.api.functions;

/**
 * Emits records downstream. Valid only during the call it was passed to, on that call's thread.
 *
 * @param <T> the record type.
 */
@FunctionalInterface
public interface Collector<T>
{
    /**
     * @param record a non-null record.
     */
    void collect(T record);
}
