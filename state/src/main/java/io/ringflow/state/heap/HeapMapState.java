package io.ringflow.state.heap;

import io.ringflow.state.keyed.MapState;
import io.ringflow.state.keyed.MapStateDescriptor;

import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A {@link MapState} on the heap: one {@link HashMap} of user keys per key, copied at a barrier (user keys and values
 * are shared with the copy, so they must not be changed once put). A key whose map becomes empty has no cell. With a
 * time-to-live each map value is a {@link HeapTimestamped}: an entry expires on its own, and is removed when its user
 * key is accessed, or when the key's entries are iterated or {@link #isEmpty()} is asked.
 *
 * <p>Thread contract: the task thread only.
 *
 * @param <UK> the user key type.
 * @param <UV> the value type.
 */
final class HeapMapState<UK, UV> extends HeapState implements MapState<UK, UV>
{
    private final HeapCells<HashMap<Object, Object>> cells = new HeapCells<>();
    /** Entries of every key. */
    private long entries;

    HeapMapState(final HeapKeyedStateStore store, final MapStateDescriptor<UK, UV> descriptor)
    {
        super(store, descriptor);
    }

    @Override
    @SuppressWarnings("unchecked")
    public UV get(final UK userKey)
    {
        checkUserKey(userKey);
        final Object key = requireKey();
        final HashMap<Object, Object> map = cells.get(key);
        if (map == null)
        {
            return null;
        }
        final Object stored = map.get(userKey);
        if (stored == null || ttl == null)
        {
            return (UV)stored;
        }
        final HeapTimestamped timestamped = (HeapTimestamped)stored;
        final long now = now();
        if (expired(timestamped, now))
        {
            map.remove(userKey);
            removed(key, map, 1);
            return null;
        }
        if (refreshesOnRead() && timestamped.timestamp() != now)
        {
            map.put(userKey, new HeapTimestamped(timestamped.value(), now));
        }
        return (UV)timestamped.value();
    }

    @Override
    public void put(final UK userKey, final UV value)
    {
        if (value == null)
        {
            remove(userKey);
            return;
        }
        checkUserKey(userKey);
        final Object key = requireKey();
        HashMap<Object, Object> map = cells.get(key);
        if (map == null)
        {
            map = new HashMap<>();
            cells.put(key, map);
        }
        if (map.put(userKey, ttl == null ? value : new HeapTimestamped(value, now())) == null)
        {
            entries++;
        }
    }

    @Override
    public void remove(final UK userKey)
    {
        checkUserKey(userKey);
        final Object key = requireKey();
        final HashMap<Object, Object> map = cells.get(key);
        if (map != null && map.remove(userKey) != null)
        {
            removed(key, map, 1);
        }
    }

    @Override
    public boolean contains(final UK userKey)
    {
        return get(userKey) != null;
    }

    @Override
    public Iterable<Map.Entry<UK, UV>> entries()
    {
        return view().entrySet();
    }

    @Override
    public Iterable<UK> keys()
    {
        return view().keySet();
    }

    @Override
    public Iterable<UV> values()
    {
        return view().values();
    }

    @Override
    public boolean isEmpty()
    {
        return live(requireKey(), false) == null;
    }

    @Override
    public void clear()
    {
        final HashMap<Object, Object> map = cells.remove(requireKey());
        if (map != null)
        {
            entries -= map.size();
        }
    }

    @Override
    long size()
    {
        return entries;
    }

    @Override
    HeapFrozenState freeze()
    {
        return HeapFrozenState.ofCells(descriptor, ttl, cells.copy(map -> new HashMap<>((HashMap<?, ?>)map)),
            barrierTime());
    }

    @Override
    void putRestored(final Object key, final Object userKey, final Object value, final long timestamp)
    {
        HashMap<Object, Object> map = cells.get(key);
        if (map == null)
        {
            map = new HashMap<>();
            cells.put(key, map);
        }
        if (map.put(userKey, ttl == null ? value : new HeapTimestamped(value, timestamp)) == null)
        {
            entries++;
        }
    }

    /** The current key's entries, read-only: the live map without a time-to-live, else a copy of the values. */
    @SuppressWarnings("unchecked")
    private Map<UK, UV> view()
    {
        final HashMap<Object, Object> map = live(requireKey(), true);
        if (map == null)
        {
            return Collections.emptyMap();
        }
        if (ttl == null)
        {
            return Collections.unmodifiableMap((Map<UK, UV>)(Map<?, ?>)map);
        }
        final Map<UK, UV> values = new LinkedHashMap<>();
        for (final Map.Entry<Object, Object> entry : map.entrySet())
        {
            values.put((UK)entry.getKey(), (UV)((HeapTimestamped)entry.getValue()).value());
        }
        return Collections.unmodifiableMap(values);
    }

    /**
     * @param key    the current key.
     * @param isRead whether every entry is read (refreshed under update-on-read).
     * @return the key's map with its expired entries removed, or null when none is left.
     */
    private HashMap<Object, Object> live(final Object key, final boolean isRead)
    {
        final HashMap<Object, Object> map = cells.get(key);
        if (map == null || ttl == null)
        {
            return map;
        }
        final long now = now();
        final boolean refresh = isRead && refreshesOnRead();
        int expired = 0;
        for (final Iterator<Map.Entry<Object, Object>> it = map.entrySet().iterator(); it.hasNext(); )
        {
            final Map.Entry<Object, Object> entry = it.next();
            final HeapTimestamped timestamped = (HeapTimestamped)entry.getValue();
            if (expired(timestamped, now))
            {
                it.remove();
                expired++;
            }
            else if (refresh && timestamped.timestamp() != now)
            {
                entry.setValue(new HeapTimestamped(timestamped.value(), now));
            }
        }
        if (expired > 0)
        {
            removed(key, map, expired);
        }
        return map.isEmpty() ? null : map;
    }

    private void removed(final Object key, final HashMap<Object, Object> map, final int count)
    {
        entries -= count;
        if (map.isEmpty())
        {
            cells.remove(key);
        }
    }

    private void checkUserKey(final UK userKey)
    {
        if (userKey == null)
        {
            throw new NullPointerException("state '" + descriptor.name() + "': a user key must not be null");
        }
    }
}
