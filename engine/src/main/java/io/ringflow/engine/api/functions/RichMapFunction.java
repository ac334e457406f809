package io.ringflow.engine.api.functions;

/**
 * A {@link MapFunction} with a lifecycle: {@link #open} before the first record (the subtask's index and parallelism,
 * operator state through {@link CheckpointedFunction}), {@link #close} after the last. Give {@code map} a factory
 * ({@code map(Enricher::new)}) so that each subtask has its own instance; all calls happen on that subtask's task
 * thread.
 *
 * @param <T> the input type.
 * @param <R> the output type.
 */
public abstract class RichMapFunction<T, R> implements MapFunction<T, R>, RichFunction
{
}
