package io.ringflow.state.keyed;

/**
 * One value per key, to which added values are folded by the descriptor's {@link ReduceFunction}.
 *
 * <p>Thread contract: the task thread only, like every state.
 *
 * @param <T> the value type.
 */
public interface ReducingState<T> extends State
{
    /** @return the current key's folded value, or null when nothing was added (or it has expired). */
    T get();

    /**
     * Folds {@code value} into the current key's value: the value itself when there was none, else
     * {@code reduce(current, value)}.
     *
     * @param value the value to add.
     * @throws NullPointerException when it is null.
     */
    void add(T value);

    /** Removes the current key's value. */
    @Override
    void clear();
}
