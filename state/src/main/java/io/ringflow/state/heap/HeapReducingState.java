package io.ringflow.state.heap;

import io.ringflow.state.keyed.ReduceFunction;
import io.ringflow.state.keyed.ReducingState;
import io.ringflow.state.keyed.ReducingStateDescriptor;

/**
 * A {@link ReducingState} on the heap: one folded value per key.
 *
 * <p>Thread contract: the task thread only.
 *
 * @param <T> the value type.
 */
final class HeapReducingState<T> extends HeapCellState<T> implements ReducingState<T>
{
    private final ReduceFunction<T> function;

    HeapReducingState(final HeapKeyedStateStore store, final ReducingStateDescriptor<T> descriptor)
    {
        super(store, descriptor);
        this.function = descriptor.function();
    }

    @Override
    public T get()
    {
        return read(requireKey(), true);
    }

    @Override
    public void add(final T value)
    {
        if (value == null)
        {
            throw new NullPointerException("state '" + descriptor.name() + "': a value added must not be null");
        }
        final Object key = requireKey();
        final T current = read(key, false);
        write(key, current == null ? value : function.reduce(current, value));
    }
}
