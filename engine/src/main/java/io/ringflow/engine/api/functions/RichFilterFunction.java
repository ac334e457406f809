package io.ringflow.engine.api.functions;

/**
 * A {@link FilterFunction} with a lifecycle: {@link #open} before the first record, {@link #close} after the last.
 * Give {@code filter} a factory so that each subtask has its own instance; all calls happen on that subtask's task
 * thread.
 *
 * @param <T> the record type.
 */
public abstract class RichFilterFunction<T> implements FilterFunction<T>, RichFunction
{
}
