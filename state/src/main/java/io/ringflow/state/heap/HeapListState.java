package io.ringflow.state.heap;

import io.ringflow.state.keyed.ListState;
import io.ringflow.state.keyed.ListStateDescriptor;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A {@link ListState} on the heap: one {@link ArrayList} per key, appended to in place and copied at a barrier. A key
 * whose list becomes empty has no cell.
 *
 * <p>Thread contract: the task thread only.
 *
 * @param <T> the element type.
 */
final class HeapListState<T> extends HeapCellState<ArrayList<T>> implements ListState<T>
{
    HeapListState(final HeapKeyedStateStore store, final ListStateDescriptor<T> descriptor)
    {
        super(store, descriptor);
    }

    @Override
    public Iterable<T> get()
    {
        final ArrayList<T> list = read(requireKey(), true);
        return list == null ? List.of() : Collections.unmodifiableList(list);
    }

    @Override
    public void add(final T element)
    {
        checkElement(element);
        final Object key = requireKey();
        ArrayList<T> list = read(key, false);
        if (list == null)
        {
            list = new ArrayList<>();
        }
        list.add(element);
        write(key, list);
    }

    @Override
    public void addAll(final List<T> elements)
    {
        checkElements(elements);
        if (elements.isEmpty())
        {
            return;
        }
        final Object key = requireKey();
        ArrayList<T> list = read(key, false);
        if (list == null)
        {
            list = new ArrayList<>(elements.size());
        }
        list.addAll(elements);
        write(key, list);
    }

    @Override
    public void update(final List<T> elements)
    {
        if (elements == null || elements.isEmpty())
        {
            clear();
            return;
        }
        checkElements(elements);
        write(requireKey(), new ArrayList<>(elements));
    }

    @Override
    boolean changesInPlace()
    {
        return true;
    }

    @Override
    Object freezeValue(final ArrayList<T> value)
    {
        return new ArrayList<>(value);
    }

    private void checkElements(final List<T> elements)
    {
        if (elements == null)
        {
            throw new NullPointerException("state '" + descriptor.name() + "': the list of elements must not be null");
        }
        for (final T element : elements)
        {
            checkElement(element);
        }
    }

    private void checkElement(final T element)
    {
        if (element == null)
        {
            throw new NullPointerException("state '" + descriptor.name() + "': a list element must not be null");
        }
    }
}
