package io.ringflow.state.codec;

/**
 * Codec for {@link Integer} and {@code int}. Format: 4 bytes, little-endian two's complement.
 *
 * <p>Stateless and thread-safe. Encoding allocates nothing; decoding allocates at most the returned box. The static
 * {@link #write} and {@link #read} use the same format without boxing, for codecs that embed a {@code int}.
 */
public final class IntegerCodec implements Codec<Integer>, SelfDelimiting
{
    /**
     * Number of bytes every encoded value occupies.
     */
    public static final int SIZE = Integer.BYTES;

    /**
     * The only instance.
     */
    public static final IntegerCodec INSTANCE = new IntegerCodec();

    private IntegerCodec()
    {
    }

    /**
     * Writes {@code value} in this codec's format without boxing. A fixed window too small for {@link #SIZE} bytes
     * at {@code offset} is left unwritten and marked {@link CodecBuffer#overflowed() overflowed}.
     *
     * @return {@link #SIZE}.
     */
    public static int write(final CodecBuffer buffer, final int offset, final int value)
    {
        buffer.putInt(offset, value);
        return SIZE;
    }

    /**
     * Reads a value written by {@link #write} or {@link #encode} without boxing.
     */
    public static int read(final CodecBuffer buffer, final int offset)
    {
        return buffer.getInt(offset);
    }

    @Override
    public Class<Integer> type()
    {
        return Integer.class;
    }

    @Override
    public int encode(final Integer value, final CodecBuffer buffer, final int offset)
    {
        buffer.putInt(offset, value);
        return SIZE;
    }

    /**
     * @throws IllegalArgumentException when {@code length} is not {@link #SIZE}.
     */
    @Override
    public Integer decode(final CodecBuffer buffer, final int offset, final int length)
    {
        CodecSupport.checkLength(length, SIZE, Integer.class);
        return buffer.getInt(offset);
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
        return "IntegerCodec";
    }

    @Override
    public int maxEncodedLength()
    {
        return SIZE;
    }
}
