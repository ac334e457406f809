package io.ringflow.engine.api.windowing;

import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.RichFunction;

/**
 * Sees a window's whole contents when it fires. Keeps every record of the window in keyed state until the window is
 * cleared: prefer {@code reduce} or {@code aggregate}, which keep one value per window, when they can say it.
 *
 * @param <IN>  the record type.
 * @param <OUT> the result type.
 * @param <K>   the key type.
 */
public abstract class ProcessWindowFunction<IN, OUT, K> implements RichFunction
{
    /**
     * @param key      the window's key.
     * @param window   the window.
     * @param elements its records, in arrival order.
     * @param out      emits results (their timestamp is the window's last instant).
     * @throws Exception fails the job attempt.
     */
    public abstract void process(K key, TimeWindow window, Iterable<IN> elements, Collector<OUT> out)
        throws Exception;
}
