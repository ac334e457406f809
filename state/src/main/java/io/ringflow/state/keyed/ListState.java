package io.ringflow.state.keyed;

import java.util.List;

/**
 * A list per key, scoped to the key of the record being processed. Elements may not be {@code null}.
 *
 * <p>{@link #get()} returns a read-only view, valid until this state is next changed for the current key. With a
 * time-to-live the list expires as a whole, one timestamp per key: {@link #add} and the other writes refresh it.
 *
 * <p>Thread contract: the task thread only, like every state.
 *
 * @param <T> the element type.
 */
public interface ListState<T> extends State
{
    /** @return the current key's elements in the order added; empty when it has none. */
    Iterable<T> get();

    /**
     * Appends an element to the current key's list.
     *
     * @param element the element.
     * @throws NullPointerException when it is null.
     */
    void add(T element);

    /**
     * Appends elements, in order, to the current key's list.
     *
     * @param elements the elements; none may be null.
     * @throws NullPointerException when one is null; then nothing is added.
     */
    void addAll(List<T> elements);

    /**
     * Replaces the current key's list; an empty list or {@code null} clears it.
     *
     * @param elements the new elements; none may be null.
     * @throws NullPointerException when one is null; then nothing is changed.
     */
    void update(List<T> elements);

    /** Removes the current key's list. */
    @Override
    void clear();
}
