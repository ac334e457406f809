package io.ringflow.state.keyed;

import org.agrona.collections.Long2LongHashMap;
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
    private final Map<String, HeapState<?>> states = new HashMap<>();
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
        final HeapState<?> existing = states.get(descriptor.name());
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
        final HeapState<T> state = descriptor.type() == Long.class ?
            (HeapState<T>)new HeapLongValueState(this, (ValueStateDescriptor<Long>)descriptor) :
            new HeapValueState<>(this, descriptor);
        states.put(descriptor.name(), state);
        return state;
    }

    @Override
    public long entryCount()
    {
        long count = 0;
        for (final HeapState<?> state : states.values())
        {
            count += state.size();
        }
        return count;
    }

    /** What every heap state shares: its declaration and the current key of its store. */
    private abstract static class HeapState<T> implements ValueState<T>
    {
        final HeapKeyedStateStore store;
        final ValueStateDescriptor<T> descriptor;

        HeapState(final HeapKeyedStateStore store, final ValueStateDescriptor<T> descriptor)
        {
            this.store = store;
            this.descriptor = descriptor;
        }

        abstract int size();

        final Object requireKey()
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

    /**
     * Keys that are {@link Long}s, the common case, live in an open-addressing primitive map (no key objects, no
     * nodes: one cache-friendly probe per access); any other key type in a {@link HashMap}.
     */
    private static final class HeapValueState<T> extends HeapState<T>
    {
        private final Long2ObjectHashMap<T> longKeyed = new Long2ObjectHashMap<>();
        private final HashMap<Object, T> otherKeyed = new HashMap<>();

        HeapValueState(final HeapKeyedStateStore store, final ValueStateDescriptor<T> descriptor)
        {
            super(store, descriptor);
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

        @Override
        int size()
        {
            return longKeyed.size() + otherKeyed.size();
        }
    }

    /**
     * A {@code ValueState<Long>} keeps its values unboxed: {@code long} keys in a {@link Long2LongHashMap}, where one
     * probe yields the value with no object to follow. {@link Long#MIN_VALUE} marks an absent value in that map, so
     * the rare key whose value is exactly {@code Long.MIN_VALUE}, and every key that is not a {@code Long}, live in
     * the general {@link HeapValueState} beside it.
     */
    private static final class HeapLongValueState extends HeapState<Long>
    {
        private static final long ABSENT = Long.MIN_VALUE;

        private final Long2LongHashMap values = new Long2LongHashMap(ABSENT);
        private final HeapValueState<Long> others;

        HeapLongValueState(final HeapKeyedStateStore store, final ValueStateDescriptor<Long> descriptor)
        {
            super(store, descriptor);
            others = new HeapValueState<>(store, descriptor);
        }

        @Override
        public Long value()
        {
            final Object key = requireKey();
            if (key instanceof Long)
            {
                final long value = values.get(((Long)key).longValue());
                if (value != ABSENT)
                {
                    return value;
                }
            }
            return others.value();
        }

        @Override
        public void update(final Long value)
        {
            final Object key = requireKey();
            if (value == null || !(key instanceof Long) || value == ABSENT)
            {
                if (key instanceof Long)
                {
                    values.remove(((Long)key).longValue());
                }
                others.update(value);
                return;
            }
            values.put(((Long)key).longValue(), value.longValue());
            if (others.size() != 0)
            {
                others.clear();
            }
        }

        @Override
        public void clear()
        {
            final Object key = requireKey();
            if (key instanceof Long)
            {
                values.remove(((Long)key).longValue());
            }
            if (others.size() != 0)
            {
                others.clear();
            }
        }

        @Override
        int size()
        {
            return values.size() + others.size();
        }
    }
}
