package io.ringflow.state.keyed;

/**
 * Folds two values into one, for a {@link ReducingState}. Called on the task thread, during {@link
 * ReducingState#add}.
 *
 * @param <T> the value type.
 */
@FunctionalInterface
public interface ReduceFunction<T>
{
    /**
     * @param accumulated the value so far, never null.
     * @param value       the value added, never null.
     * @return the folded value, never null; it must not be changed afterwards (the heap backend keeps it as is).
     */
    T reduce(T accumulated, T value);
}
