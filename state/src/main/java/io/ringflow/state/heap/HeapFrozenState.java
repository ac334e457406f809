package io.ringflow.state.heap;

import io.ringflow.state.keyed.StateDescriptor;
import io.ringflow.state.keyed.StateKind;
import io.ringflow.state.keyed.StateTtlConfig;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.snapshot.TtlValues;

import java.util.Map;

/**
 * A heap state's entries at a barrier: never changed again, read by the flusher. Entries that had expired at the
 * barrier are skipped.
 *
 * <p>What a value is, by kind: the value (VALUE, REDUCING), a list (LIST), the accumulator already encoded as a
 * {@code byte[]} (AGGREGATING: accumulators may be changed in place, so they are encoded at the barrier), a map
 * value with its user key (MAP).
 */
abstract class HeapFrozenState
{
    /** Receives the entries of a frozen state. */
    @FunctionalInterface
    interface EntryVisitor
    {
        /**
         * @param key       the key.
         * @param userKey   a map state entry's user key, else null.
         * @param value     the value.
         * @param timestamp its time-to-live timestamp; 0 without time-to-live.
         */
        void entry(Object key, Object userKey, Object value, long timestamp);
    }

    final StateDescriptor descriptor;
    /** The time-to-live the state was declared with, or null. */
    final StateTtlConfig ttl;

    HeapFrozenState(final StateDescriptor descriptor, final StateTtlConfig ttl)
    {
        this.descriptor = descriptor;
        this.ttl = ttl;
    }

    /**
     * @param visitor receives every entry that had not expired at the barrier, except those of
     *                {@link #primitiveLongs()}, which the flusher reads without boxing.
     */
    abstract void forEach(EntryVisitor visitor);

    /**
     * @return for a {@code ValueState<Long>} without time-to-live, its {@code long} keys and values (a frozen copy);
     *     null otherwise.
     */
    org.agrona.collections.Long2LongHashMap primitiveLongs()
    {
        return null;
    }

    /**
     * @param descriptor  the state's declaration.
     * @param ttl         its time-to-live, as declared, or null.
     * @param cells       a frozen copy of its cells: values, or {@link HeapTimestamped} values with a time-to-live;
     *                    for a map state, maps of user keys to those.
     * @param barrierTime the time at the barrier, for the time-to-live.
     * @return the frozen state.
     */
    static HeapFrozenState ofCells(final StateDescriptor descriptor, final StateTtlConfig ttl,
        final HeapCells<Object> cells, final long barrierTime)
    {
        final boolean map = descriptor.kind() == StateKind.MAP;
        return new HeapFrozenState(descriptor, ttl)
        {
            @Override
            void forEach(final EntryVisitor visitor)
            {
                cells.forEach((key, cell) ->
                {
                    if (map)
                    {
                        for (final Map.Entry<?, ?> entry : ((Map<?, ?>)cell).entrySet())
                        {
                            emit(visitor, key, entry.getKey(), entry.getValue());
                        }
                    }
                    else
                    {
                        emit(visitor, key, null, cell);
                    }
                });
            }

            private void emit(final EntryVisitor visitor, final Object key, final Object userKey, final Object value)
            {
                if (ttl == null)
                {
                    visitor.entry(key, userKey, value, 0);
                    return;
                }
                final HeapTimestamped timestamped = (HeapTimestamped)value;
                if (!TtlValues.isExpired(timestamped.timestamp(), ttl.ttlMillis(), barrierTime))
                {
                    visitor.entry(key, userKey, timestamped.value(), timestamped.timestamp());
                }
            }
        };
    }
}
