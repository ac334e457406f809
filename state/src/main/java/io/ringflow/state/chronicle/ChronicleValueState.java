package io.ringflow.state.chronicle;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;

/**
 * A {@link ValueState} kept in a {@link StateMap}. A read copies the value's bytes into a reusable slot and decodes
 * them (the decoded value is the only allocation); a write encodes into another reusable slot and hands it to the
 * map. The current key is encoded once per {@link ChronicleKeyedStateStore#setCurrentKey}, by the store.
 *
 * <p>Thread contract: the task thread only.
 *
 * @param <T> the value type.
 */
final class ChronicleValueState<T> implements ValueState<T>
{
    private final ChronicleKeyedStateStore store;
    private final StateMap map;
    private final ValueStateDescriptor<T> descriptor;
    private final Codec<T> codec;
    private final int maxEntrySize;
    private final EncodedBytes read = new EncodedBytes(64);
    private final EncodedBytes write;

    /**
     * @param store        the store, which holds the current key.
     * @param map          the state's map.
     * @param descriptor   the declaration.
     * @param codec        the value codec.
     * @param maxEntrySize the largest encoded key plus value accepted.
     */
    ChronicleValueState(
        final ChronicleKeyedStateStore store, final StateMap map, final ValueStateDescriptor<T> descriptor,
        final Codec<T> codec, final int maxEntrySize)
    {
        this.store = store;
        this.map = map;
        this.descriptor = descriptor;
        this.codec = codec;
        this.maxEntrySize = maxEntrySize;
        this.write = new EncodedBytes(Math.min(64, maxEntrySize));
    }

    /** @return the declaration. */
    ValueStateDescriptor<T> descriptor()
    {
        return descriptor;
    }

    /** @return the value codec. */
    Codec<T> codec()
    {
        return codec;
    }

    /** @return the state's map. */
    StateMap map()
    {
        return map;
    }

    @Override
    public T value()
    {
        final EncodedBytes key = store.encodedCurrentKey(descriptor.name());
        if (map.get(key, read) == null)
        {
            return descriptor.defaultValue();
        }
        return codec.decode(read.buffer(), 0, read.length());
    }

    @Override
    public void update(final T value)
    {
        if (value == null)
        {
            clear();
            return;
        }
        final EncodedBytes key = store.encodedCurrentKey(descriptor.name());
        final int keyLength = key.length() - StoredKeyLayout.KEY_OFFSET;
        final int valueLength = write.encode(codec, value, 0, maxEntrySize);
        if (valueLength < 0 || keyLength + valueLength > maxEntrySize)
        {
            throw new IllegalArgumentException("state '" + descriptor.name() + "': the value " +
                (valueLength < 0 ? "encodes to more than " + maxEntrySize + " bytes" :
                "encodes to " + valueLength + " bytes, with the key's " + keyLength + " more than " + maxEntrySize) +
                ", the maxEntrySize of the Chronicle state backend; the state was not changed (value type " +
                descriptor.type().getName() + ")");
        }
        write.length(valueLength);
        map.put(key, write);
    }

    @Override
    public void clear()
    {
        map.remove(store.encodedCurrentKey(descriptor.name()));
    }

    @Override
    public String toString()
    {
        return "ChronicleValueState{" + descriptor + '}';
    }
}
