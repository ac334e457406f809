package io.ringflow.state.codec;

/**
 * Codec for {@link Short} and {@code short}. Format: 2 bytes, little-endian two's complement.
 *
 * <p>Stateless and thread-safe. Encoding allocates nothing; decoding allocates at most the returned box. The static
 * {@link #write} and {@link #read} use the same format without boxing, for codecs that embed a {@code short}.
 */
public final class ShortCodec implements Codec<Short>, SelfDelimiting
{
    /**
     * Number of bytes every encoded value occupies.
     */
    public static final int SIZE = Short.BYTES;

    /**
     * The only instance.
     */
    public static final ShortCodec INSTANCE = new ShortCodec();

    private ShortCodec()
    {
    }

    /**
     * Writes {@code value} in this codec's format without boxing. A fixed window too small for {@link #SIZE} bytes
     * at {@code offset} is left unwritten and marked {@link CodecBuffer#overflowed() overflowed}.
     *
     * @return {@link #SIZE}.
     */
    public static int write(final CodecBuffer buffer, final int offset, final short value)
    {
        buffer.putShort(offset, value);
        return SIZE;
    }

    /**
     * Reads a value written by {@link #write} or {@link #encode} without boxing.
     */
    public static short read(final CodecBuffer buffer, final int offset)
    {
        return buffer.getShort(offset);
    }

    @Override
    public Class<Short> type()
    {
        return Short.class;
    }

    @Override
    public int encode(final Short value, final CodecBuffer buffer, final int offset)
    {
        buffer.putShort(offset, value);
        return SIZE;
    }

    /**
     * @throws IllegalArgumentException when {@code length} is not {@link #SIZE}.
     */
    @Override
    public Short decode(final CodecBuffer buffer, final int offset, final int length)
    {
        CodecSupport.checkLength(length, SIZE, Short.class);
        return buffer.getShort(offset);
    }

    /**
     * @return {@link #SIZE}, whatever the bytes.
     */
    @Override
    public int encodedLength(final CodecBuffer buffer, final int offset)
    {
        return SIZE;
    }

    @Override
    public String toString()
    {
        return "ShortCodec";
    }

    @Override
    public int maxEncodedLength()
    {
        return SIZE;
    }
}
