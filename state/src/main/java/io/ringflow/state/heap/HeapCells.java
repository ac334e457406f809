package io.ringflow.state.heap;

import org.agrona.collections.Long2ObjectHashMap;

import java.util.HashMap;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;

/**
 * One heap state's cells, one per key: keys that are {@link Long}s, the common case, in an open-addressing primitive
 * map (no key objects, no nodes: one cache-friendly probe per access); any other key type in a {@link HashMap}.
 *
 * <p>Thread contract: the task thread, or, for a {@link #copy} taken at a barrier, one flusher.
 *
 * @param <V> what a cell holds.
 */
final class HeapCells<V>
{
    private final Long2ObjectHashMap<V> longKeyed = new Long2ObjectHashMap<>();
    private final HashMap<Object, V> otherKeyed = new HashMap<>();

    V get(final Object key)
    {
        return key instanceof Long ? longKeyed.get(((Long)key).longValue()) : otherKeyed.get(key);
    }

    void put(final Object key, final V value)
    {
        if (key instanceof Long)
        {
            longKeyed.put(((Long)key).longValue(), value);
        }
        else
        {
            otherKeyed.put(key, value);
        }
    }

    V remove(final Object key)
    {
        return key instanceof Long ? longKeyed.remove(((Long)key).longValue()) : otherKeyed.remove(key);
    }

    int size()
    {
        return longKeyed.size() + otherKeyed.size();
    }

    /** @param action receives each key (boxed) and cell. */
    void forEach(final BiConsumer<Object, V> action)
    {
        longKeyed.forEach(action::accept);
        otherKeyed.forEach(action);
    }

    /**
     * @param freeze turns a live cell into one later changes of the live cells cannot affect; null when cells are
     *               never changed in place.
     * @return a copy, for a snapshot.
     */
    HeapCells<Object> copy(final UnaryOperator<Object> freeze)
    {
        final HeapCells<Object> copy = new HeapCells<>();
        if (freeze == null)
        {
            copy.longKeyed.putAll(longKeyed);
            copy.otherKeyed.putAll(otherKeyed);
        }
        else
        {
            longKeyed.forEachLong((key, value) -> copy.longKeyed.put(key, freeze.apply(value)));
            otherKeyed.forEach((key, value) -> copy.otherKeyed.put(key, freeze.apply(value)));
        }
        return copy;
    }
}
