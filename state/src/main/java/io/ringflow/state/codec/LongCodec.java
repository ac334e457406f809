package io.ringflow.state.codec;

/**
 * Codec for {@link Long} and {@code long}. Format: 8 bytes, little-endian two's complement.
 *
 * <p>Stateless and thread-safe. Encoding allocates nothing; decoding allocates at most the returned box. The static
 * {@link #write} and {@link #read} use the same format without boxing, for codecs that embed a {@code long}.
 */
public final class LongCodec implements Codec<Long>, SelfDelimiting
{
    /**
     * Number of bytes every encoded value occupies.
     */
    public static final int SIZE = Long.BYTES;

    /**
     * The only instance.
     */
    public static final LongCodec INSTANCE = new LongCodec();

    private LongCodec()
    {
    }

    /**
     * Writes {@code value} in this codec's format without boxing. A fixed window too small for {@link #SIZE} bytes
     * at {@code offset} is left unwritten and marked {@link CodecBuffer#overflowed() overflowed}.
     *
     * @return {@link #SIZE}.
     */
    public static int write(final CodecBuffer buffer, final int offset, final long value)
    {
        buffer.putLong(offset, value);
        return SIZE;
    }

    /**
     * Reads a value written by {@link #write} or {@link #encode} without boxing.
     */
    public static long read(final CodecBuffer buffer, final int offset)
    {
        return buffer.getLong(offset);
    }

    @Override
    public Class<Long> type()
    {
        return Long.class;
    }

    @Override
    public int encode(final Long value, final CodecBuffer buffer, final int offset)
    {
        buffer.putLong(offset, value);
        return SIZE;
    }

    /**
     * @throws IllegalArgumentException when {@code length} is not {@link #SIZE}.
     */
    @Override
    public Long decode(final CodecBuffer buffer, final int offset, final int length)
    {
        CodecSupport.checkLength(length, SIZE, Long.class);
        return buffer.getLong(offset);
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
        return "LongCodec";
    }

    @Override
    public int maxEncodedLength()
    {
        return SIZE;
    }
}
