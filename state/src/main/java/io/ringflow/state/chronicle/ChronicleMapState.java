package io.ringflow.state.chronicle;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.keyed.MapState;
import io.ringflow.state.keyed.MapStateDescriptor;
import io.ringflow.state.snapshot.TtlValues;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A {@link MapState} kept in a {@link StateMap}: one stored value per key holding all of the key's entries
 * ({@link MapBlobLayout}). One lookup finds the key's whole map, so {@link #entries()} never scans other keys, and
 * nothing is kept on the heap per key; the price is that every change rewrites the key's stored value (O(entries of
 * the key)), and a key's whole map must fit in the maximum entry size. That suits the small per-key maps keyed state
 * usually holds (a few to a few hundred user keys); see {@code docs/state.md} for the alternatives.
 *
 * <p>A value whose length does not change (a counter, a fixed-size record) is overwritten in place; any other change
 * builds the new stored value in a reusable slot. With a time-to-live each entry carries its own timestamp and expires
 * on its own; an expired entry is removed when its user key is accessed, or when the key's entries are iterated or
 * {@link #isEmpty()} is asked.
 *
 * <p>Thread contract: the task thread only.
 *
 * @param <UK> the user key type.
 * @param <UV> the value type.
 */
final class ChronicleMapState<UK, UV> extends ChronicleState implements MapState<UK, UV>
{
    private final Codec<Object> userKeyCodec;
    /** The key's stored value, as read. */
    private final EncodedBytes stored = new EncodedBytes(256);
    /** The key's stored value being rebuilt. */
    private final EncodedBytes rebuilt;
    private final EncodedBytes userKey = new EncodedBytes(32);
    private final EncodedBytes value = new EncodedBytes(64);
    /** After {@link #live}: the slot holding the current key's live entries, or null. */
    private EncodedBytes liveEntries;

    @SuppressWarnings("unchecked")
    ChronicleMapState(
        final ChronicleKeyedStateStore store, final StateMap map, final MapStateDescriptor<UK, UV> descriptor,
        final Codec<UK> userKeyCodec, final Codec<UV> valueCodec, final int maxEntrySize)
    {
        super(store, map, descriptor, (Codec<Object>)valueCodec, maxEntrySize);
        this.userKeyCodec = (Codec<Object>)userKeyCodec;
        this.rebuilt = new EncodedBytes(Math.min(256, maxEntrySize));
    }

    @Override
    Codec<Object> userKeyCodec()
    {
        return userKeyCodec;
    }

    @Override
    @SuppressWarnings("unchecked")
    public UV get(final UK key)
    {
        final int entry = find(key);
        if (entry < 0)
        {
            return null;
        }
        final byte[] bytes = stored.array();
        return (UV)valueCodec.decode(stored.buffer(), MapBlobLayout.valueOffset(bytes, entry) + prefix,
            MapBlobLayout.valueLength(bytes, entry) - prefix);
    }

    @Override
    public boolean contains(final UK key)
    {
        return find(key) >= 0;
    }

    @Override
    public void put(final UK key, final UV mapValue)
    {
        if (mapValue == null)
        {
            remove(key);
            return;
        }
        checkUserKey(key);
        final EncodedBytes storedKey = currentKey();
        final int keyLength = storedKey.length() - StoredKeyLayout.KEY_OFFSET;
        final int userKeyLength = encodeUserKey(key);
        if (userKeyLength < 0)
        {
            throw tooLarge("the user key", -1, keyLength);
        }
        final int valueLength = value.encode(valueCodec, mapValue, prefix, maxEntrySize);
        if (valueLength < 0)
        {
            throw tooLarge("the value", -1, keyLength);
        }
        if (ttl != null)
        {
            TtlValues.putTimestamp(value.buffer(), 0, now());
        }
        final int newValueLength = prefix + valueLength;
        if (map.get(storedKey, stored) == null)
        {
            final int length = MapBlobLayout.COUNT_LENGTH + MapBlobLayout.entryLength(userKeyLength, newValueLength);
            if (keyLength + length > maxEntrySize)
            {
                throw tooLarge("the map of the current key", length, keyLength);
            }
            rebuilt.ensureCapacity(length);
            MapBlobLayout.putCount(rebuilt.buffer(), 1);
            MapBlobLayout.putEntry(rebuilt.buffer(), MapBlobLayout.COUNT_LENGTH, userKey.array(), 0, userKeyLength,
                value.array(), 0, newValueLength);
            rebuilt.length(length);
            map.put(storedKey, rebuilt);
            map.userKeysAdded(1);
            return;
        }
        final byte[] bytes = stored.array();
        final int entry = MapBlobLayout.find(bytes, stored.length(), userKey.array(), userKeyLength);
        if (entry >= 0 && MapBlobLayout.valueLength(bytes, entry) == newValueLength)
        {
            // same length: overwrite the value where it is
            System.arraycopy(value.array(), 0, bytes, MapBlobLayout.valueOffset(bytes, entry), newValueLength);
            map.put(storedKey, stored);
            return;
        }
        final int oldEntryLength = entry < 0 ? 0 :
            MapBlobLayout.entryLength(userKeyLength, MapBlobLayout.valueLength(bytes, entry));
        final int length = stored.length() - oldEntryLength + MapBlobLayout.entryLength(userKeyLength, newValueLength);
        if (keyLength + length > maxEntrySize)
        {
            throw tooLarge("the map of the current key", length, keyLength);
        }
        rebuilt.ensureCapacity(length);
        final int count = copyEntries(entry, false, false, 0);
        MapBlobLayout.putEntry(rebuilt.buffer(), rebuilt.length(), userKey.array(), 0, userKeyLength, value.array(),
            0, newValueLength);
        MapBlobLayout.putCount(rebuilt.buffer(), count + 1);
        rebuilt.length(length);
        map.put(storedKey, rebuilt);
        if (entry < 0)
        {
            map.userKeysAdded(1);
        }
    }

    @Override
    public void remove(final UK key)
    {
        checkUserKey(key);
        final EncodedBytes storedKey = currentKey();
        final int userKeyLength = encodeUserKey(key);
        if (userKeyLength < 0 || map.get(storedKey, stored) == null)
        {
            return;
        }
        final int entry = MapBlobLayout.find(stored.array(), stored.length(), userKey.array(), userKeyLength);
        if (entry >= 0)
        {
            removeEntry(storedKey, entry);
        }
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
        return !live(currentKey(), false);
    }

    @Override
    public void clear()
    {
        if (map.remove(currentKey(), stored) != null)
        {
            map.userKeysAdded(-MapBlobLayout.count(stored.array()));
        }
    }

    @Override
    void checkStoredValue(final EncodedBytes stored)
    {
        final byte[] bytes = stored.array();
        final String problem = MapBlobLayout.problem(bytes, stored.length());
        if (problem != null)
        {
            throw new IllegalArgumentException(problem);
        }
        final int count = MapBlobLayout.count(bytes);
        int entry = MapBlobLayout.COUNT_LENGTH;
        for (int i = 0; i < count; i++)
        {
            userKeyCodec.decode(stored.buffer(), MapBlobLayout.userKeyOffset(entry),
                MapBlobLayout.userKeyLength(bytes, entry));
            final int valueLength = MapBlobLayout.valueLength(bytes, entry);
            if (valueLength < prefix)
            {
                throw new IllegalArgumentException("a value of " + valueLength + " bytes has no room for its " +
                    "time-to-live timestamp");
            }
            valueCodec.decode(stored.buffer(), MapBlobLayout.valueOffset(bytes, entry) + prefix,
                valueLength - prefix);
            entry = MapBlobLayout.next(bytes, entry);
        }
    }

    /**
     * Looks a user key up for the current key, removing its entry when it expired and refreshing it under
     * update-on-read.
     *
     * @return where its entry starts in {@link #stored}, or -1 when it has none.
     */
    private int find(final UK key)
    {
        checkUserKey(key);
        final EncodedBytes storedKey = currentKey();
        final int userKeyLength = encodeUserKey(key);
        if (userKeyLength < 0 || map.get(storedKey, stored) == null)
        {
            return -1;
        }
        final byte[] bytes = stored.array();
        final int entry = MapBlobLayout.find(bytes, stored.length(), userKey.array(), userKeyLength);
        if (entry < 0 || ttl == null)
        {
            return entry;
        }
        final int valueOffset = MapBlobLayout.valueOffset(bytes, entry);
        final long timestamp = TtlValues.timestamp(stored.buffer(), valueOffset);
        final long now = now();
        if (expired(timestamp, now))
        {
            removeEntry(storedKey, entry);
            return -1;
        }
        if (refreshesOnRead() && timestamp != now)
        {
            TtlValues.putTimestamp(stored.buffer(), valueOffset, now);
            map.put(storedKey, stored);
        }
        return entry;
    }

    /** Removes the entry at {@code entry} of {@link #stored}, the current key's stored value. */
    private void removeEntry(final EncodedBytes storedKey, final int entry)
    {
        final byte[] bytes = stored.array();
        final int count = MapBlobLayout.count(bytes);
        if (count == 1)
        {
            map.remove(storedKey);
        }
        else
        {
            rebuilt.ensureCapacity(stored.length());
            final int left = copyEntries(entry, false, false, 0);
            MapBlobLayout.putCount(rebuilt.buffer(), left);
            map.put(storedKey, rebuilt);
        }
        map.userKeysAdded(-1);
    }

    /**
     * Copies the entries of {@link #stored} into {@link #rebuilt} (which must have room), after the count.
     *
     * @param skip          where the entry to leave out starts, or -1.
     * @param dropExpired   whether to leave out expired entries.
     * @param refresh       whether to set the timestamps of the entries copied to {@code now}.
     * @param now           the time now, when dropping or refreshing.
     * @return the entries copied; {@code rebuilt}'s length is where they end.
     */
    private int copyEntries(final int skip, final boolean dropExpired, final boolean refresh, final long now)
    {
        final byte[] bytes = stored.array();
        final int count = MapBlobLayout.count(bytes);
        int entry = MapBlobLayout.COUNT_LENGTH;
        int at = MapBlobLayout.COUNT_LENGTH;
        int copied = 0;
        for (int i = 0; i < count; i++)
        {
            final int next = MapBlobLayout.next(bytes, entry);
            final int valueOffset = MapBlobLayout.valueOffset(bytes, entry);
            final boolean expired = dropExpired && expired(TtlValues.timestamp(stored.buffer(), valueOffset), now);
            if (entry != skip && !expired)
            {
                rebuilt.buffer().putBytes(at, bytes, entry, next - entry);
                if (refresh)
                {
                    TtlValues.putTimestamp(rebuilt.buffer(), at + (valueOffset - entry), now);
                }
                at += next - entry;
                copied++;
            }
            entry = next;
        }
        rebuilt.length(at);
        return copied;
    }

    /**
     * Removes the current key's expired entries and, when {@code isRead}, refreshes the others under update-on-read.
     *
     * @return whether the key has entries left, then in {@link #stored} (unchanged) or {@link #rebuilt}: see
     * {@link #liveEntries}.
     */
    private boolean live(final EncodedBytes storedKey, final boolean isRead)
    {
        liveEntries = null;
        if (map.get(storedKey, stored) == null)
        {
            return false;
        }
        liveEntries = stored;
        if (ttl == null)
        {
            return true;
        }
        final long now = now();
        final boolean refresh = isRead && refreshesOnRead();
        final byte[] bytes = stored.array();
        final int count = MapBlobLayout.count(bytes);
        int expired = 0;
        boolean stale = false;
        int entry = MapBlobLayout.COUNT_LENGTH;
        for (int i = 0; i < count; i++)
        {
            final long timestamp = TtlValues.timestamp(stored.buffer(), MapBlobLayout.valueOffset(bytes, entry));
            if (expired(timestamp, now))
            {
                expired++;
            }
            else if (timestamp != now)
            {
                stale = true;
            }
            entry = MapBlobLayout.next(bytes, entry);
        }
        if (expired == count)
        {
            map.remove(storedKey);
            map.userKeysAdded(-count);
            liveEntries = null;
            return false;
        }
        if (expired > 0 || (refresh && stale))
        {
            rebuilt.ensureCapacity(stored.length());
            final int left = copyEntries(-1, true, refresh, now);
            MapBlobLayout.putCount(rebuilt.buffer(), left);
            map.put(storedKey, rebuilt);
            map.userKeysAdded(left - count);
            liveEntries = rebuilt;
        }
        return true;
    }

    /** The current key's live entries, decoded into a new read-only map. */
    @SuppressWarnings("unchecked")
    private Map<UK, UV> view()
    {
        if (!live(currentKey(), true))
        {
            return Collections.emptyMap();
        }
        final EncodedBytes entries = liveEntries;
        final byte[] bytes = entries.array();
        final int count = MapBlobLayout.count(bytes);
        final Map<UK, UV> decoded = new LinkedHashMap<>(count * 2);
        int entry = MapBlobLayout.COUNT_LENGTH;
        for (int i = 0; i < count; i++)
        {
            final UK key = (UK)userKeyCodec.decode(entries.buffer(), MapBlobLayout.userKeyOffset(entry),
                MapBlobLayout.userKeyLength(bytes, entry));
            final UV mapValue = (UV)valueCodec.decode(entries.buffer(), MapBlobLayout.valueOffset(bytes, entry) +
                prefix, MapBlobLayout.valueLength(bytes, entry) - prefix);
            decoded.put(key, mapValue);
            entry = MapBlobLayout.next(bytes, entry);
        }
        return Collections.unmodifiableMap(decoded);
    }

    /** @return the user key's encoded length in {@link #userKey}, or -1 when it exceeds the maximum entry size. */
    private int encodeUserKey(final UK key)
    {
        final int length = userKey.encode(userKeyCodec, key, 0, maxEntrySize);
        userKey.length(Math.max(0, length));
        return length;
    }

    private void checkUserKey(final UK key)
    {
        if (key == null)
        {
            throw new NullPointerException("state '" + descriptor.name() + "': a user key must not be null");
        }
    }
}
