package io.ringflow.state.codec;

/**
 * Codec for {@code byte[]}. Format: a 4-byte little-endian {@code int} holding the array length, then the bytes.
 *
 * <p>Encoding allocates nothing and reserves room for the whole value before writing anything
 * ({@link CodecBuffer#reserve}), so a value that does not fit a fixed window leaves it untouched (and marked
 * overflowed), and a growable buffer grows once. Decoding allocates the returned array. The array is copied both
 * ways: the caller may reuse it after {@link #encode} and owns the one {@link #decode} returns.
 *
 * <p>Stateless and thread-safe.
 */
public final class ByteArrayCodec implements Codec<byte[]>, SelfDelimiting
{
    /**
     * The only instance.
     */
    public static final ByteArrayCodec INSTANCE = new ByteArrayCodec();

    /**
     * Size of the length prefix.
     */
    public static final int LENGTH_SIZE = Integer.BYTES;

    private ByteArrayCodec()
    {
    }

    @Override
    public Class<byte[]> type()
    {
        return byte[].class;
    }

    @Override
    public int encode(final byte[] value, final CodecBuffer buffer, final int offset)
    {
        final int length = value.length;
        if (buffer.reserve(offset, (long)LENGTH_SIZE + length))
        {
            buffer.putInt(offset, length);
            buffer.putBytes(offset + LENGTH_SIZE, value, 0, length);
        }
        return LENGTH_SIZE + length;
    }

    /**
     * @throws IllegalArgumentException when the length prefix does not match {@code length}.
     */
    @Override
    public byte[] decode(final CodecBuffer buffer, final int offset, final int length)
    {
        final int byteCount = buffer.getInt(offset);
        if (byteCount < 0 || byteCount != length - LENGTH_SIZE)
        {
            throw new IllegalArgumentException(
                "corrupt byte[]: length prefix " + byteCount + " does not match the " + length + " bytes to decode");
        }
        return buffer.toByteArray(offset + LENGTH_SIZE, byteCount);
    }

    /**
     * @return the length prefix plus 4, or a negative number when the prefix is negative.
     */
    @Override
    public int encodedLength(final CodecBuffer buffer, final int offset)
    {
        final int byteCount = buffer.getInt(offset);
        return byteCount < 0 ? -1 : LENGTH_SIZE + byteCount;
    }

    @Override
    public String toString()
    {
        return "ByteArrayCodec";
    }
}
