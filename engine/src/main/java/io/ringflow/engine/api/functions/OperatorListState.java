package io.ringflow.engine.api.functions;

import java.util.List;

/**
 * A list owned by one operator subtask (not by a key), snapshotted at every checkpoint. Sized for what a function
 * keeps between records (offsets, a small buffer), not for bulk data: it is encoded on the task thread at the
 * barrier.
 *
 * @param <T> the element type.
 */
public interface OperatorListState<T>
{
    /** @return the elements, a live view in insertion order. */
    List<T> get();

    /**
     * Appends an element.
     *
     * @param value the element, not null.
     */
    void add(T value);

    /**
     * Replaces every element.
     *
     * @param values the new elements, none null.
     */
    void update(List<T> values);

    /** Removes every element. */
    void clear();
}
