package io.ringflow.state.keyed;

import org.agrona.collections.Long2ObjectHashMap;

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
            count += state.size();
        }
        return count;
    }

    /**
     * Keys that are {@link Long}s, the common case, live in an open-addressing primitive map (no key objects, no
     * nodes: one cache-friendly probe per access); any other key type in a {@link HashMap}.
     */
    private static final class HeapValueState<T> implements ValueState<T>
    {
        private final HeapKeyedStateStore store;
        private final ValueStateDescriptor<T> descriptor;
        private final Long2ObjectHashMap<T> longKeyed = new Long2ObjectHashMap<>();
        private final HashMap<Object, T> otherKeyed = new HashMap<>();

        HeapValueState(final HeapKeyedStateStore store, final ValueStateDescriptor<T> descriptor)
        {
            this.store = store;
            this.descriptor = descriptor;
        }

        @Override
        public T value()
        {
            final Object key = requireKey();
            final T value = key instanceof Long ? longKeyed.get(((Long)key).longValue()) : otherKeyed.get(key);
            return value != null ? value : descriptor.defaultValue();
        }

        @Override
        public void update(final T value)
        {
            if (value == null)
            {
                clear();
                return;
            }
            final Object key = requireKey();
            if (key instanceof Long)
            {
                longKeyed.put(((Long)key).longValue(), value);
            }
            else
            {
                otherKeyed.put(key, value);
            }
        }

        @Override
        public void clear()
        {
            final Object key = requireKey();
            if (key instanceof Long)
            {
                longKeyed.remove(((Long)key).longValue());
            }
            else
            {
                otherKeyed.remove(key);
            }
        }

        int size()
        {
            return longKeyed.size() + otherKeyed.size();
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
