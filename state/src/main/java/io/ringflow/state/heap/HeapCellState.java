package io.ringflow.state.heap;

import io.ringflow.state.keyed.StateDescriptor;
import io.ringflow.state.keyed.StateTtlConfig;

import java.util.function.UnaryOperator;

/**
 * A heap state with one cell per key: value, list, reducing and aggregating states. With a time-to-live a cell is a
 * {@link HeapTimestamped}; an expired cell is removed when read, and reads refresh it under
 * {@link StateTtlConfig.UpdateType#OnReadAndWrite}.
 *
 * <p>Thread contract: the task thread only.
 *
 * @param <V> what a cell holds.
 */
abstract class HeapCellState<V> extends HeapState
{
    final HeapCells<Object> cells = new HeapCells<>();

    HeapCellState(final HeapKeyedStateStore store, final StateDescriptor descriptor)
    {
        super(store, descriptor);
    }

    /**
     * @param key    the current key.
     * @param isRead whether the caller reads the value for the user (refreshes it under update-on-read), rather than
     *               to change it (the write refreshes it anyway).
     * @return the key's value, or null when it has none or it expired (it is then removed).
     */
    @SuppressWarnings("unchecked")
    final V read(final Object key, final boolean isRead)
    {
        final Object cell = cells.get(key);
        if (cell == null || ttl == null)
        {
            return (V)cell;
        }
        final HeapTimestamped timestamped = (HeapTimestamped)cell;
        final long now = now();
        if (expired(timestamped, now))
        {
            cells.remove(key);
            return null;
        }
        if (isRead && refreshesOnRead() && timestamped.timestamp() != now)
        {
            cells.put(key, new HeapTimestamped(timestamped.value(), now));
        }
        return (V)timestamped.value();
    }

    /**
     * @param key   the current key.
     * @param value its new value, non-null; refreshed now under a time-to-live.
     */
    final void write(final Object key, final V value)
    {
        cells.put(key, ttl == null ? value : new HeapTimestamped(value, now()));
    }

    @Override
    public void clear()
    {
        cells.remove(requireKey());
    }

    @Override
    final long size()
    {
        return cells.size();
    }

    /**
     * @param value a live value.
     * @return a copy that later changes of the live value cannot affect. Only called when {@link #changesInPlace()}.
     */
    Object freezeValue(final V value)
    {
        return value;
    }

    /** @return whether live values may change after they are written (lists, accumulators). */
    boolean changesInPlace()
    {
        return false;
    }

    @Override
    @SuppressWarnings("unchecked")
    final HeapFrozenState freeze()
    {
        UnaryOperator<Object> freeze = null;
        if (changesInPlace())
        {
            freeze = ttl == null ? cell -> freezeValue((V)cell) : cell ->
            {
                final HeapTimestamped timestamped = (HeapTimestamped)cell;
                return new HeapTimestamped(freezeValue((V)timestamped.value()), timestamped.timestamp());
            };
        }
        return HeapFrozenState.ofCells(descriptor, ttl, cells.copy(freeze), barrierTime());
    }

    @Override
    final void putRestored(final Object key, final Object userKey, final Object value, final long timestamp)
    {
        cells.put(key, ttl == null ? value : new HeapTimestamped(value, timestamp));
    }
}
