package io.ringflow.state.codec;

import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * Helpers shared by the built-in codecs. Stateless; nothing here allocates except on the failure paths, which build
 * exception messages.
 */
final class CodecSupport
{
    /**
     * Byte order of every multi-byte value the built-in codecs write. Fixed rather than native so that snapshots
     * move between machines; on little-endian hardware (x86-64, AArch64) it costs nothing.
     */
    static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    private CodecSupport()
    {
    }

    /**
     * Refuses a write of {@code length} bytes at {@code offset} that would reach {@code buffer.capacity()}, before
     * anything is written. Expandable buffers are let through (they grow on write) unless the length could never fit
     * in a buffer.
     *
     * @throws IndexOutOfBoundsException when the bytes do not fit.
     */
    static void checkFits(final MutableDirectBuffer buffer, final int offset, final long length)
    {
        final int capacity = buffer.capacity();
        if (offset < 0 || offset + length > capacity)
        {
            if (offset >= 0 && buffer.isExpandable() && offset + length <= Integer.MAX_VALUE)
            {
                return;
            }
            throw new IndexOutOfBoundsException(
                "value needs " + length + " bytes at offset " + offset + " but buffer capacity is " + capacity);
        }
    }

    /**
     * @throws IllegalArgumentException when a fixed-width value is asked to be decoded from the wrong number of bytes.
     */
    static void checkLength(final int length, final int expected, final Class<?> type)
    {
        if (length != expected)
        {
            throw new IllegalArgumentException(
                type.getName() + " values are encoded in " + expected + " bytes, not " + length);
        }
    }

    /**
     * @return the wrapper class of a primitive type, or {@code type} itself when it is not primitive.
     */
    static Class<?> boxed(final Class<?> type)
    {
        if (!type.isPrimitive())
        {
            return type;
        }
        if (type == long.class)
        {
            return Long.class;
        }
        if (type == int.class)
        {
            return Integer.class;
        }
        if (type == double.class)
        {
            return Double.class;
        }
        if (type == float.class)
        {
            return Float.class;
        }
        if (type == short.class)
        {
            return Short.class;
        }
        if (type == byte.class)
        {
            return Byte.class;
        }
        if (type == char.class)
        {
            return Character.class;
        }
        if (type == boolean.class)
        {
            return Boolean.class;
        }
        return Void.class;
    }
}
