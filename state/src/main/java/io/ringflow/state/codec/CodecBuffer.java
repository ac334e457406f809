package io.ringflow.state.codec;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * A window of bytes that codecs write into and read from: a slot of a ring channel, a scratch buffer, a snapshot
 * being assembled. Values are little-endian. It needs no JVM flag: the bytes live in a {@link ByteBuffer} (on the heap
 * or off it) reached through {@link VarHandle} views, which the JIT turns into plain loads and stores.
 *
 * <p><b>Writing past the end never throws.</b> A fixed window drops the write and records that the value did not fit
 * ({@link #overflowed()}); a growable buffer ({@link #growable}) grows instead. A codec therefore writes as if the room
 * were unlimited, and whoever handed it the window asks {@link #overflowed()} afterwards: "did not fit" is a return
 * value, never an exception used for control flow. Nothing is written at or past the window's capacity, so a ring
 * slot's neighbour is never touched. Reading past the end (corrupt or truncated input) throws
 * {@link IndexOutOfBoundsException} naming the index.
 *
 * <p>Indexes are relative to the window: 0 is its first byte, {@link #capacity()} one past its last.
 *
 * <p>Thread contract: not thread-safe. One thread uses a buffer at a time; a buffer handed to another thread (a
 * snapshot to its flusher) is handed over through a happens-before edge and no longer used by the first.
 */
public final class CodecBuffer
{
    private static final VarHandle SHORT = MethodHandles.byteBufferViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle CHAR = MethodHandles.byteBufferViewVarHandle(char[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle FLOAT = MethodHandles.byteBufferViewVarHandle(float[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle DOUBLE =
        MethodHandles.byteBufferViewVarHandle(double[].class, ByteOrder.LITTLE_ENDIAN);
    private static final int MAX_CAPACITY = Integer.MAX_VALUE - 16;

    /** The backing bytes; its position and limit are never used (absolute access only). */
    private ByteBuffer bytes;
    /** Where the window's byte 0 lies in {@link #bytes}. */
    private int base;
    private int capacity;
    private final boolean growable;
    private boolean overflowed;

    private CodecBuffer(final ByteBuffer bytes, final int base, final int capacity, final boolean growable)
    {
        this.bytes = bytes;
        this.base = base;
        this.capacity = capacity;
        this.growable = growable;
    }

    /**
     * @param capacity the window's size in bytes.
     * @return a fixed window over new heap bytes, zeroed.
     */
    public static CodecBuffer allocate(final int capacity)
    {
        checkCapacity(capacity);
        return new CodecBuffer(ByteBuffer.allocate(capacity), 0, capacity, false);
    }

    /**
     * @param initialCapacity its size at first; it doubles (at least) whenever a write goes past its end.
     * @return a growable buffer over new heap bytes, zeroed.
     */
    public static CodecBuffer growable(final int initialCapacity)
    {
        checkCapacity(initialCapacity);
        return new CodecBuffer(ByteBuffer.allocate(Math.max(16, initialCapacity)), 0, Math.max(16, initialCapacity),
            true);
    }

    /**
     * @param array the bytes; the window is all of them, read and written in place.
     * @return a fixed window over {@code array}.
     */
    public static CodecBuffer wrap(final byte[] array)
    {
        return wrap(array, 0, array.length);
    }

    /**
     * @param array  the bytes, read and written in place.
     * @param offset where the window starts in {@code array}.
     * @param length the window's size.
     * @return a fixed window over {@code array[offset, offset + length)}.
     */
    public static CodecBuffer wrap(final byte[] array, final int offset, final int length)
    {
        Objects.checkFromIndexSize(offset, length, array.length);
        return new CodecBuffer(ByteBuffer.wrap(array), offset, length, false);
    }

    /**
     * @param buffer the bytes, heap or direct, read and written in place; its position and limit are ignored.
     * @param offset where the window starts in {@code buffer}.
     * @param length the window's size.
     * @return a fixed window over {@code buffer[offset, offset + length)}.
     */
    public static CodecBuffer wrap(final ByteBuffer buffer, final int offset, final int length)
    {
        Objects.checkFromIndexSize(offset, length, buffer.capacity());
        return new CodecBuffer(buffer, offset, length, false);
    }

    /**
     * Points this fixed window at other bytes: a flyweight moved from slot to slot. Clears the overflow mark.
     *
     * @param buffer the bytes; its position and limit are ignored.
     * @param offset where the window starts in {@code buffer}.
     * @param length the window's size.
     * @return this.
     * @throws IllegalStateException on a growable buffer.
     */
    public CodecBuffer rewrap(final ByteBuffer buffer, final int offset, final int length)
    {
        if (growable)
        {
            throw new IllegalStateException("a growable buffer owns its bytes and cannot be moved");
        }
        Objects.checkFromIndexSize(offset, length, buffer.capacity());
        if (buffer != bytes)
        {
            // a reference store costs a GC write barrier (with G1 a StoreLoad fence when it crosses regions): a
            // window moved from slot to slot over the same ring's bytes, once per record, does not pay it
            this.bytes = buffer;
        }
        this.base = offset;
        this.capacity = length;
        this.overflowed = false;
        return this;
    }

    /** @return the window's size in bytes (a growable buffer's current size). */
    public int capacity()
    {
        return capacity;
    }

    /** @return whether it grows instead of dropping writes past its end. */
    public boolean isGrowable()
    {
        return growable;
    }

    /** @return whether a write went past the end of this fixed window since the last {@link #clearOverflow()}. */
    public boolean overflowed()
    {
        return overflowed;
    }

    /** Forgets an earlier overflow, before the window is written again. */
    public void clearOverflow()
    {
        overflowed = false;
    }

    /**
     * Makes sure {@code length} bytes at {@code index} can be written, before a write of several parts: a growable
     * buffer grows to hold them; a fixed window that cannot is marked {@link #overflowed()}. Writes nothing. Lets a
     * codec that knows its size refuse a value that does not fit without writing any of it, and grow a growable
     * buffer once instead of once per doubling.
     *
     * @param index  where the bytes would start.
     * @param length how many; a {@code long}, as a string's UTF-8 length can exceed {@code Integer.MAX_VALUE}.
     * @return whether they fit (now); when false, the buffer is marked overflowed.
     * @throws IndexOutOfBoundsException when {@code index} or {@code length} is negative.
     */
    public boolean reserve(final int index, final long length)
    {
        if (length < 0 || length > Integer.MAX_VALUE)
        {
            if (length < 0 || index < 0)
            {
                throw new IndexOutOfBoundsException("reserve of " + length + " bytes at index " + index);
            }
            overflowed = true;
            return false;
        }
        return fits(index, (int)length);
    }

    // ------------------------------------------------------------------------------------------------ writes

    /** @param index where. @param value the byte. */
    public void putByte(final int index, final byte value)
    {
        if (fits(index, Byte.BYTES))
        {
            bytes.put(base + index, value);
        }
    }

    /** @param index where. @param value the value, little-endian. */
    public void putShort(final int index, final short value)
    {
        if (fits(index, Short.BYTES))
        {
            SHORT.set(bytes, base + index, value);
        }
    }

    /** @param index where. @param value the value, little-endian. */
    public void putChar(final int index, final char value)
    {
        if (fits(index, Character.BYTES))
        {
            CHAR.set(bytes, base + index, value);
        }
    }

    /** @param index where. @param value the value, little-endian. */
    public void putInt(final int index, final int value)
    {
        if (fits(index, Integer.BYTES))
        {
            INT.set(bytes, base + index, value);
        }
    }

    /** @param index where. @param value the value, little-endian. */
    public void putLong(final int index, final long value)
    {
        if (fits(index, Long.BYTES))
        {
            LONG.set(bytes, base + index, value);
        }
    }

    /** @param index where. @param value the value, little-endian IEEE 754 bits. */
    public void putFloat(final int index, final float value)
    {
        if (fits(index, Float.BYTES))
        {
            FLOAT.set(bytes, base + index, value);
        }
    }

    /** @param index where. @param value the value, little-endian IEEE 754 bits. */
    public void putDouble(final int index, final double value)
    {
        if (fits(index, Double.BYTES))
        {
            DOUBLE.set(bytes, base + index, value);
        }
    }

    /**
     * @param index  where.
     * @param source the bytes to copy.
     * @param offset where they start in {@code source}.
     * @param length how many.
     */
    public void putBytes(final int index, final byte[] source, final int offset, final int length)
    {
        Objects.checkFromIndexSize(offset, length, source.length);
        if (fits(index, length))
        {
            bytes.put(base + index, source, offset, length);
        }
    }

    /**
     * @param index  where.
     * @param source the buffer to copy from.
     * @param from   where the bytes start in {@code source}.
     * @param length how many.
     * @throws IndexOutOfBoundsException when {@code source} holds fewer than {@code length} bytes at {@code from}.
     */
    public void putBytes(final int index, final CodecBuffer source, final int from, final int length)
    {
        source.checkReadable(from, length);
        if (fits(index, length))
        {
            bytes.put(base + index, source.bytes, source.base + from, length);
        }
    }

    /**
     * Writes {@code length} zero bytes.
     *
     * @param index  where.
     * @param length how many.
     */
    public void putZeros(final int index, final int length)
    {
        if (fits(index, length))
        {
            for (int i = 0; i < length; i++)
            {
                bytes.put(base + index + i, (byte)0);
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ reads

    /** @param index where. @return the byte. */
    public byte getByte(final int index)
    {
        checkReadable(index, Byte.BYTES);
        return bytes.get(base + index);
    }

    /** @param index where. @return the value. */
    public short getShort(final int index)
    {
        checkReadable(index, Short.BYTES);
        return (short)SHORT.get(bytes, base + index);
    }

    /** @param index where. @return the value. */
    public char getChar(final int index)
    {
        checkReadable(index, Character.BYTES);
        return (char)CHAR.get(bytes, base + index);
    }

    /** @param index where. @return the value. */
    public int getInt(final int index)
    {
        checkReadable(index, Integer.BYTES);
        return (int)INT.get(bytes, base + index);
    }

    /** @param index where. @return the value. */
    public long getLong(final int index)
    {
        checkReadable(index, Long.BYTES);
        return (long)LONG.get(bytes, base + index);
    }

    /** @param index where. @return the value. */
    public float getFloat(final int index)
    {
        checkReadable(index, Float.BYTES);
        return (float)FLOAT.get(bytes, base + index);
    }

    /** @param index where. @return the value. */
    public double getDouble(final int index)
    {
        checkReadable(index, Double.BYTES);
        return (double)DOUBLE.get(bytes, base + index);
    }

    /**
     * @param index       where.
     * @param destination where to copy to.
     * @param offset      where in {@code destination}.
     * @param length      how many bytes.
     */
    public void getBytes(final int index, final byte[] destination, final int offset, final int length)
    {
        checkReadable(index, length);
        Objects.checkFromIndexSize(offset, length, destination.length);
        bytes.get(base + index, destination, offset, length);
    }

    /**
     * @param index  where.
     * @param length how many bytes.
     * @return a copy of them.
     */
    public byte[] toByteArray(final int index, final int length)
    {
        final byte[] copy = new byte[length];
        getBytes(index, copy, 0, length);
        return copy;
    }

    /**
     * Writes bytes of this buffer to a stream, without an intermediate copy when they are on the heap.
     *
     * @param index  where they start.
     * @param length how many.
     * @param out    the stream.
     * @throws IOException from the stream.
     */
    public void writeTo(final int index, final int length, final OutputStream out) throws IOException
    {
        checkReadable(index, length);
        if (bytes.hasArray())
        {
            out.write(bytes.array(), bytes.arrayOffset() + base + index, length);
            return;
        }
        final byte[] chunk = new byte[Math.min(length, 64 * 1024)];
        for (int done = 0; done < length; done += chunk.length)
        {
            final int n = Math.min(chunk.length, length - done);
            bytes.get(base + index + done, chunk, 0, n);
            out.write(chunk, 0, n);
        }
    }

    /**
     * @param index  where the bytes start.
     * @param length how many.
     * @param other  another buffer.
     * @param from   where its bytes start.
     * @return whether the two ranges hold the same bytes.
     */
    public boolean equalBytes(final int index, final int length, final CodecBuffer other, final int from)
    {
        checkReadable(index, length);
        other.checkReadable(from, length);
        return bytes.slice(base + index, length).equals(other.bytes.slice(other.base + from, length));
    }

    // ------------------------------------------------------------------------------------------------ bounds

    /**
     * @return whether {@code length} bytes at {@code index} lie inside the window, growing a growable buffer to make
     *     it so; otherwise marks the overflow. Called before every write.
     */
    private boolean fits(final int index, final int length)
    {
        if (index >= 0 && length >= 0 && index <= capacity - length)
        {
            return true;
        }
        return outside(index, length);
    }

    private boolean outside(final int index, final int length)
    {
        if (index < 0 || length < 0)
        {
            throw new IndexOutOfBoundsException("write of " + length + " bytes at index " + index);
        }
        if (!growable || (long)index + length > MAX_CAPACITY)
        {
            overflowed = true;
            return false;
        }
        final int needed = index + length;
        final int grown = (int)Math.min(MAX_CAPACITY, Math.max((long)capacity * 2, needed));
        final ByteBuffer larger = ByteBuffer.allocate(grown);
        larger.put(0, bytes, base, capacity);
        bytes = larger;
        base = 0;
        capacity = grown;
        return true;
    }

    private void checkReadable(final int index, final int length)
    {
        if (index < 0 || length < 0 || index > capacity - length)
        {
            throw new IndexOutOfBoundsException("read of " + length + " bytes at index " + index + " of a buffer of " +
                capacity + " bytes");
        }
    }

    private static void checkCapacity(final int capacity)
    {
        if (capacity < 0 || capacity > MAX_CAPACITY)
        {
            throw new IllegalArgumentException("capacity must be in [0, " + MAX_CAPACITY + "], was " + capacity);
        }
    }

    @Override
    public String toString()
    {
        return "CodecBuffer{capacity=" + capacity + (growable ? ", growable" : "") +
            (overflowed ? ", overflowed" : "") + (bytes.isDirect() ? ", direct" : "") + '}';
    }
}
