package io.ringflow.state.chronicle;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;
import net.openhft.chronicle.bytes.BytesStore;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A reusable slot holding one encoded key or value: the form in which keys and values enter and leave a Chronicle
 * Map. Codecs write into it through {@link #buffer()} (a {@link CodecBuffer}), Chronicle Map reads it through
 * {@link EncodedBytesAccess} and fills it through {@link EncodedBytesReader} (a Chronicle view of the same array), so
 * a lookup copies bytes but creates no object.
 *
 * <p>Only the first {@link #length()} bytes are meaningful. The array grows (a new array and new views) only when a
 * longer encoding arrives, so in steady state a slot allocates nothing.
 *
 * <p>Thread contract: not thread-safe; each slot belongs to one thread (the task thread, or one flusher).
 */
final class EncodedBytes
{
    private byte[] array;
    private int length;
    /** A fixed window over the whole array, moved to the new array when it grows. */
    private final CodecBuffer buffer;
    private BytesStore<?, byte[]> store;

    /**
     * @param capacity the initial capacity in bytes.
     */
    EncodedBytes(final int capacity)
    {
        array = new byte[Math.max(8, capacity)];
        buffer = CodecBuffer.wrap(array);
    }

    /** @return the backing array; valid until the next {@link #ensureCapacity} that grows it. */
    byte[] array()
    {
        return array;
    }

    /** @return how many bytes of {@link #array()} are meaningful. */
    int length()
    {
        return length;
    }

    /** @param length how many bytes of {@link #array()} are now meaningful, at most its capacity. */
    void length(final int length)
    {
        this.length = length;
    }

    /** @return the capacity of the backing array. */
    int capacity()
    {
        return array.length;
    }

    /**
     * @return a fixed window over the whole backing array, for codecs and layouts; the same object for the slot's
     *     life, moved to the new array when it grows. A write past its end is dropped and marks it
     *     {@link CodecBuffer#overflowed() overflowed}: encode through {@link #encode}, which grows the array instead,
     *     and write layouts only after {@link #ensureCapacity}.
     */
    CodecBuffer buffer()
    {
        return buffer;
    }

    /**
     * @return a Chronicle view of the whole backing array, for Chronicle Map; made at the first call after the array
     *     was (re)allocated, so that a slot never handed to Chronicle never initialises it.
     */
    BytesStore<?, byte[]> store()
    {
        final BytesStore<?, byte[]> existing = store;
        return existing != null ? existing : (store = BytesStore.wrap(array));
    }

    /**
     * Grows the backing array to hold at least {@code capacity} bytes, keeping its first {@link #length()} bytes.
     *
     * @param capacity the capacity needed.
     */
    void ensureCapacity(final int capacity)
    {
        if (capacity > array.length)
        {
            grow((int)Math.min(Integer.MAX_VALUE - 8, Math.max(capacity, 2L * array.length)));
        }
    }

    /**
     * Encodes {@code value} at {@code offset}, growing the backing array (doubling, never beyond {@code limit} bytes)
     * until the codec fits: each time the window overflows, it is grown and the value encoded again. Nothing is ever
     * written past the array, so an oversized value is stopped at the limit.
     *
     * @param codec  the value's codec.
     * @param value  the value, non-null.
     * @param offset where the encoding starts.
     * @param limit  the most bytes the backing array may grow to.
     * @param <T>    the value type.
     * @return the number of bytes written, or -1 when the value does not fit below {@code limit}.
     */
    <T> int encode(final Codec<T> codec, final T value, final int offset, final int limit)
    {
        while (true)
        {
            buffer.clearOverflow();
            final int length = codec.encode(value, buffer, offset);
            if (!buffer.overflowed())
            {
                return length;
            }
            buffer.clearOverflow();
            if (array.length >= limit)
            {
                return -1;
            }
            grow((int)Math.min(limit, 2L * array.length));
        }
    }

    /** Moves to a copy of the array of {@code capacity} bytes, and the views with it. */
    private void grow(final int capacity)
    {
        array = Arrays.copyOf(array, capacity);
        buffer.rewrap(ByteBuffer.wrap(array), 0, capacity);
        store = null;
    }

    /**
     * Makes this slot a copy of {@code length} bytes of {@code source}.
     *
     * @param source where the bytes are.
     * @param offset where they start.
     * @param length how many.
     */
    void copyFrom(final byte[] source, final int offset, final int length)
    {
        ensureCapacity(length);
        System.arraycopy(source, offset, array, 0, length);
        this.length = length;
    }

    /** @return a new array holding exactly the meaningful bytes. */
    byte[] toByteArray()
    {
        return Arrays.copyOf(array, length);
    }

    @Override
    public String toString()
    {
        return "EncodedBytes{length=" + length + '}';
    }
}
