package io.ringflow.state.heap;

import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;

/**
 * A {@link ValueState} on the heap: one cell per key.
 *
 * <p>Thread contract: the task thread only.
 *
 * @param <T> the value type.
 */
final class HeapValueState<T> extends HeapCellState<T> implements ValueState<T>
{
    private final T defaultValue;

    HeapValueState(final HeapKeyedStateStore store, final ValueStateDescriptor<T> descriptor)
    {
        super(store, descriptor);
        this.defaultValue = descriptor.defaultValue();
    }

    @Override
    public T value()
    {
        final T value = read(requireKey(), true);
        return value != null ? value : defaultValue;
    }

    @Override
    public void update(final T value)
    {
        if (value == null)
        {
            clear();
            return;
        }
        write(requireKey(), value);
    }
}
