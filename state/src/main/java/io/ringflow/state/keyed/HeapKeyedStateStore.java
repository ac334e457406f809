package io.ringflow.state.keyed;

import java.util.HashMap;
import java.util.Map;

/**
 * The on-heap reference store: one {@link HashMap} per declared state. Simple and obviously right; the off-heap
 * Chronicle Map store must agree with it.
 *
 * <p>Thread contract: confined to one task thread, like every {@link KeyedStateStore}.
 */
public final class HeapKeyedStateStore implements KeyedStateStore
{
    private final Map<String, HeapValueState<?>> states = new HashMap<>();
    private Object currentKey;

    @Override
    public void setCurrentKey(final Object key)
    {
        currentKey = key;
    }

    @Override
    public Object currentKey()
    {
        return currentKey;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> ValueState<T> getValueState(final ValueStateDescriptor<T> descriptor)
    {
        final HeapValueState<?> existing = states.get(descriptor.name());
        if (existing != null)
        {
            if (existing.descriptor.type() != descriptor.type())
            {
                throw new IllegalStateException("state '" + descriptor.name() + "' is already declared with type " +
                    existing.descriptor.type().getName() + "; cannot declare it again with type " +
                    descriptor.type().getName());
            }
            return (ValueState<T>)existing;
        }
        final HeapValueState<T> state = new HeapValueState<>(this, descriptor);
        states.put(descriptor.name(), state);
        return state;
    }

    @Override
    public long entryCount()
    {
        long count = 0;
        for (final HeapValueState<?> state : states.values())
        {
            count += state.values.size();
        }
        return count;
    }

    private static final class HeapValueState<T> implements ValueState<T>
    {
        private final HeapKeyedStateStore store;
        private final ValueStateDescriptor<T> descriptor;
        private final HashMap<Object, T> values = new HashMap<>();

        HeapValueState(final HeapKeyedStateStore store, final ValueStateDescriptor<T> descriptor)
        {
            this.store = store;
            this.descriptor = descriptor;
        }

        @Override
        public T value()
        {
            final T value = values.get(requireKey());
            return value != null ? value : descriptor.defaultValue();
        }

        @Override
        public void update(final T value)
        {
            if (value == null)
            {
                values.remove(requireKey());
            }
            else
            {
                values.put(requireKey(), value);
            }
        }

        @Override
        public void clear()
        {
            values.remove(requireKey());
        }

        private Object requireKey()
        {
            final Object key = store.currentKey;
            if (key == null)
            {
                throw new IllegalStateException("state '" + descriptor.name() +
                    "' used outside the processing of a keyed record: there is no current key");
            }
            return key;
        }
    }
}
