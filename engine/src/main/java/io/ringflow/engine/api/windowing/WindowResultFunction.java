package io.ringflow.engine.api.windowing;

/**
 * Turns a window's reduced or aggregated value into the emitted record, with its key and window.
 *
 * @param <K>   the key type.
 * @param <V>   the window's value.
 * @param <OUT> the result type.
 */
@FunctionalInterface
public interface WindowResultFunction<K, V, OUT>
{
    /**
     * @param key    the window's key.
     * @param window the window.
     * @param value  its reduced or aggregated value.
     * @return the record to emit, not null.
     * @throws Exception fails the job attempt.
     */
    OUT apply(K key, TimeWindow window, V value) throws Exception;
}
