package io.ringflow.engine.api.functions;

/**
 * A {@link FlatMapFunction} with a lifecycle: {@link #open} before the first record, {@link #close} after the last.
 * Give {@code flatMap} a factory so that each subtask has its own instance; all calls happen on that subtask's task
 * thread.
 *
 * @param <T> the input type.
 * @param <R> the output type.
 */
public abstract class RichFlatMapFunction<T, R> implements FlatMapFunction<T, R>, RichFunction
{
}
