package io.ringflow.state.keyed;

/**
 * A single value per key, scoped to the key of the record being processed.
 *
 * <p>Only the thread that runs the keyed function may use it, and only while a record or timer of some key is being
 * processed: the key is implicit. With a time-to-live, an expired value reads as absent and is removed when read.
 *
 * @param <T> the value type.
 */
public interface ValueState<T> extends State
{
    /**
     * @return the current key's value, or the descriptor's default when the key has none (or it has expired).
     */
    T value();

    /**
     * Sets the current key's value; {@code null} removes it.
     *
     * @param value the new value.
     */
    void update(T value);

    /**
     * Removes the current key's value.
     */
    @Override
    void clear();
}
