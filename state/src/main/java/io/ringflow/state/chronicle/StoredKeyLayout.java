package io.ringflow.state.chronicle;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.keyed.KeyGroups;

/**
 * The layout of a key as stored in a state's Chronicle Map: the key's key group, then the key as its codec encodes
 * it.
 *
 * <pre>
 *   0                    2
 *   +--------------------+-----------------------------------+
 *   | key group          | key, as its codec encodes it       |
 *   | (u16, little-end.) | (exactly the bytes of a snapshot)  |
 *   +--------------------+-----------------------------------+
 * </pre>
 *
 * The key group is computed once per current key on the task thread (one hash), and lets the snapshot flusher group
 * entries by key group without decoding a single key. Values are stored exactly as their codec encodes them.
 * Maximum parallelism is at most 2^15, so a key group fits in 16 bits.
 */
final class StoredKeyLayout
{
    /** Where the key group is. */
    static final int KEY_GROUP_OFFSET = 0;
    /** Where the encoded key starts; also the length of the prefix. */
    static final int KEY_OFFSET = 2;

    private StoredKeyLayout()
    {
    }

    /**
     * Encodes a key in this layout: its key group, then its codec's bytes. The one encoding of keys, for the current
     * key (task thread), a hot-key front's write back (task thread) and its snapshot overlay (flusher); any thread,
     * each with its own slot.
     *
     * @param codec          the store's key codec.
     * @param key            the key, non-null, of the codec's type.
     * @param maxParallelism the job's number of key groups.
     * @param into           the slot to encode into; its length is set to the stored key's.
     * @param maxKeyLength   the most bytes the codec may write (the store's maximum entry size).
     * @return the length of the codec's bytes (the stored key without its prefix), or -1 when they would exceed
     *     {@code maxKeyLength}; then the slot's length is meaningless.
     */
    static int encode(
        final Codec<Object> codec, final Object key, final int maxParallelism, final EncodedBytes into,
        final int maxKeyLength)
    {
        return encode(codec, key, -1, maxParallelism, into, maxKeyLength);
    }

    /**
     * {@link #encode(Codec, Object, int, EncodedBytes, int)} for a key whose key group is known already.
     *
     * @param codec          the store's key codec.
     * @param key            the key, non-null, of the codec's type.
     * @param keyGroup       the key's key group, or -1 to compute it here.
     * @param maxParallelism the job's number of key groups.
     * @param into           the slot to encode into; its length is set to the stored key's.
     * @param maxKeyLength   the most bytes the codec may write (the store's maximum entry size).
     * @return the length of the codec's bytes, or -1 when they would exceed {@code maxKeyLength}.
     */
    static int encode(
        final Codec<Object> codec, final Object key, final int keyGroup, final int maxParallelism,
        final EncodedBytes into, final int maxKeyLength)
    {
        final int length = into.encode(codec, key, KEY_OFFSET, maxKeyLength + KEY_OFFSET);
        if (length < 0 || length > maxKeyLength)
        {
            return -1;
        }
        putKeyGroup(into.buffer(), keyGroup >= 0 ? keyGroup : KeyGroups.keyGroupOf(key, maxParallelism));
        into.length(KEY_OFFSET + length);
        return length;
    }

    /**
     * @param buffer   the stored key's bytes.
     * @param keyGroup the key group to write, in [0, 2^16).
     */
    static void putKeyGroup(final CodecBuffer buffer, final int keyGroup)
    {
        buffer.putShort(KEY_GROUP_OFFSET, (short)keyGroup);
    }

    /**
     * @param buffer a stored key's bytes.
     * @return its key group.
     */
    static int keyGroup(final CodecBuffer buffer)
    {
        return buffer.getShort(KEY_GROUP_OFFSET) & 0xFFFF;
    }

    /**
     * @param bytes a stored key's bytes.
     * @return its key group.
     */
    static int keyGroup(final byte[] bytes)
    {
        return keyGroup(bytes, 0);
    }

    /**
     * @param bytes  an array holding a stored key.
     * @param offset where the key starts in it.
     * @return its key group.
     */
    static int keyGroup(final byte[] bytes, final int offset)
    {
        return (bytes[offset + KEY_GROUP_OFFSET] & 0xFF) | (bytes[offset + KEY_GROUP_OFFSET + 1] & 0xFF) << 8;
    }
}
