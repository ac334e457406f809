package io.ringflow.state.chronicle;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.keyed.StateDescriptor;
import io.ringflow.state.snapshot.TtlValues;

/**
 * A Chronicle state with one stored value per key: value, list, reducing and aggregating states. The stored value is
 * the optional time-to-live timestamp followed by what {@link #cellCodec} writes (the value, the accumulator, or the
 * whole list). A read copies the bytes into a reusable slot and decodes them (the decoded value is the only
 * allocation); a write encodes into another reusable slot and hands it to the map.
 *
 * <p>With a time-to-live, an expired value is removed when read (through the map's copy-on-write path, like any
 * write), and under update-on-read a read rewrites the timestamp in place.
 *
 * <p>Thread contract: the task thread only.
 *
 * @param <V> what a stored value decodes to.
 */
abstract class ChronicleCellState<V> extends ChronicleState
{
    /** Encodes and decodes stored values, after the prefix. */
    final Codec<V> cellCodec;
    /** The stored value last read. */
    final EncodedBytes read = new EncodedBytes(64);
    /** The stored value being written. */
    final EncodedBytes write;

    @SuppressWarnings("unchecked")
    ChronicleCellState(
        final ChronicleKeyedStateStore store, final StateMap map, final StateDescriptor descriptor,
        final Codec<?> valueCodec, final Codec<V> cellCodec, final int maxEntrySize)
    {
        super(store, map, descriptor, (Codec<Object>)valueCodec, maxEntrySize);
        this.cellCodec = cellCodec;
        this.write = new EncodedBytes(Math.min(64, maxEntrySize));
    }

    /**
     * @param key    the current key.
     * @param isRead whether the caller reads the value for the user (refreshed under update-on-read), rather than to
     *               change it (the write refreshes it anyway).
     * @return {@link #read} holding the key's stored value, or null when it has none or it expired (then removed).
     */
    final EncodedBytes readStored(final EncodedBytes key, final boolean isRead)
    {
        if (fetchStored(key, read) == null)
        {
            return null;
        }
        if (ttl == null)
        {
            return read;
        }
        final long timestamp = TtlValues.timestamp(read.buffer(), 0);
        final long now = now();
        if (expired(timestamp, now))
        {
            map.remove(key);
            return null;
        }
        if (isRead && refreshesOnRead() && timestamp != now)
        {
            TtlValues.putTimestamp(read.buffer(), 0, now);
            map.put(key, read);
        }
        return read;
    }

    /**
     * @param isRead as for {@link #readStored}.
     * @return the current key's value, decoded, or null when it has none or it expired.
     */
    final V readCell(final boolean isRead)
    {
        return readStored(currentKey(), isRead) == null ? null :
            cellCodec.decode(read.buffer(), prefix, read.length() - prefix);
    }

    /**
     * Stores the current key's value, timestamped now under a time-to-live.
     *
     * @param value the value, non-null.
     * @throws IllegalArgumentException when key and value exceed the maximum entry size; nothing was changed.
     */
    final void writeCell(final V value)
    {
        final EncodedBytes key = currentKey();
        final int keyLength = key.length() - StoredKeyLayout.KEY_OFFSET;
        final int valueLength = write.encode(cellCodec, value, prefix, maxEntrySize);
        if (valueLength < 0 || keyLength + prefix + valueLength > maxEntrySize)
        {
            throw tooLarge("the value", valueLength < 0 ? -1 : prefix + valueLength, keyLength);
        }
        if (ttl != null)
        {
            TtlValues.putTimestamp(write.buffer(), 0, now());
        }
        write.length(prefix + valueLength);
        putStored(key, write);
    }

    /**
     * Reads the current key's stored value; a value state overrides it to keep the key's lookup open for the write
     * that usually follows.
     *
     * @param key  the current key, encoded.
     * @param into where to copy the value.
     * @return {@code into} holding the value, or null when the key has none.
     */
    EncodedBytes fetchStored(final EncodedBytes key, final EncodedBytes into)
    {
        return map.get(key, into);
    }

    /**
     * Stores the current key's value; a value state overrides it to write through the lookup its read left open.
     *
     * @param key   the current key, encoded.
     * @param value the encoded value, checked against the maximum entry size.
     */
    void putStored(final EncodedBytes key, final EncodedBytes value)
    {
        map.put(key, value);
    }

    @Override
    public void clear()
    {
        map.remove(currentKey());
    }

    @Override
    final void checkStoredValue(final EncodedBytes value)
    {
        if (value.length() < prefix)
        {
            throw new IllegalArgumentException("a value of " + value.length() + " bytes has no room for its " +
                "time-to-live timestamp");
        }
        cellCodec.decode(value.buffer(), prefix, value.length() - prefix);
    }
}
