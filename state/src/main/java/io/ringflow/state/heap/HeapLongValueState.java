package io.ringflow.state.heap;

import io.ringflow.state.keyed.LongValueState;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;
import org.agrona.collections.Long2LongHashMap;

/**
 * A {@code ValueState<Long>} without time-to-live keeps its values unboxed: {@code long} keys in a
 * {@link Long2LongHashMap}, where one probe yields the value with no object to follow. {@link Long#MIN_VALUE} marks
 * an absent value in that map, so the rare key whose value is exactly {@code Long.MIN_VALUE}, and every key that is
 * not a {@code Long}, live in the general {@link HeapValueState} beside it.
 *
 * <p>Thread contract: the task thread only.
 */
final class HeapLongValueState extends HeapState implements ValueState<Long>
{
    private static final long ABSENT = Long.MIN_VALUE;

    private final Long2LongHashMap values = new Long2LongHashMap(ABSENT);
    private final HeapValueState<Long> others;
    private final Long defaultValue;
    private final LongValueState longView;

    HeapLongValueState(final HeapKeyedStateStore store, final ValueStateDescriptor<Long> descriptor)
    {
        super(store, descriptor);
        others = new HeapValueState<>(store, descriptor);
        defaultValue = descriptor.defaultValue();
        longView = new LongView(LongValueState.defaultOf(descriptor));
    }

    @Override
    public Long value()
    {
        if (store.hasLongKey())
        {
            // the unboxed path: one probe, no key object
            final long value = values.get(store.currentLongKey());
            if (value != ABSENT)
            {
                return value;
            }
            return others.size() == 0 ? defaultValue : others.value();
        }
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
        if (store.hasLongKey() && value != null && value != ABSENT)
        {
            values.put(store.currentLongKey(), value.longValue());
            if (others.size() != 0)
            {
                others.clear();
            }
            return;
        }
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

    /** @return the unboxed view of this state. */
    LongValueState longView()
    {
        return longView;
    }

    @Override
    long size()
    {
        return values.size() + others.size();
    }

    @Override
    HeapFrozenState freeze()
    {
        final Long2LongHashMap valuesCopy = new Long2LongHashMap(values);
        final HeapFrozenState othersCopy = others.freeze();
        return new HeapFrozenState(descriptor, null)
        {
            @Override
            void forEach(final EntryVisitor visitor)
            {
                othersCopy.forEach(visitor);
            }

            @Override
            Long2LongHashMap primitiveLongs()
            {
                return valuesCopy;
            }
        };
    }

    @Override
    void putRestored(final Object key, final Object userKey, final Object value, final long timestamp)
    {
        if (key instanceof Long && (Long)value != ABSENT)
        {
            values.put(((Long)key).longValue(), ((Long)value).longValue());
        }
        else
        {
            others.putRestored(key, null, value, timestamp);
        }
    }

    /**
     * The unboxed view: a {@code Long} key set unboxed is one probe of the primitive map, no object either way; any
     * other key, and the value {@link #ABSENT}, take the boxed path of the state itself.
     */
    private final class LongView implements LongValueState
    {
        private final long defaultLong;

        LongView(final long defaultLong)
        {
            this.defaultLong = defaultLong;
        }

        @Override
        public long value()
        {
            if (store.hasLongKey())
            {
                final long value = values.get(store.currentLongKey());
                if (value != ABSENT)
                {
                    return value;
                }
                if (others.size() == 0)
                {
                    return defaultLong;
                }
            }
            final Long value = HeapLongValueState.this.value();
            return value != null ? value : defaultLong;
        }

        @Override
        public void update(final long value)
        {
            if (store.hasLongKey() && value != ABSENT)
            {
                values.put(store.currentLongKey(), value);
                if (others.size() != 0)
                {
                    others.clear();
                }
                return;
            }
            HeapLongValueState.this.update(value);
        }

        @Override
        public void clear()
        {
            HeapLongValueState.this.clear();
        }
    }
}
