package io.ringflow.state.codec;

/**
 * Codec for {@link Boolean} and {@code boolean}. Format: 1 byte, {@code 1} for true and {@code 0} for false; any
 * other byte is refused on decode as corrupt rather than read as true.
 *
 * <p>Stateless and thread-safe. Encoding and decoding allocate nothing. The static {@link #write} and {@link #read}
 * use the same format without boxing.
 */
public final class BooleanCodec implements Codec<Boolean>, SelfDelimiting
{
    /**
     * Number of bytes every encoded value occupies.
     */
    public static final int SIZE = 1;

    /**
     * The only instance.
     */
    public static final BooleanCodec INSTANCE = new BooleanCodec();

    private static final byte TRUE = 1;
    private static final byte FALSE = 0;

    private BooleanCodec()
    {
    }

    /**
     * Writes {@code value} in this codec's format without boxing. A fixed window with no room at {@code offset} is
     * left unwritten and marked {@link CodecBuffer#overflowed() overflowed}.
     *
     * @return {@link #SIZE}.
     */
    public static int write(final CodecBuffer buffer, final int offset, final boolean value)
    {
        buffer.putByte(offset, value ? TRUE : FALSE);
        return SIZE;
    }

    /**
     * Reads a value written by {@link #write} or {@link #encode} without boxing.
     *
     * @throws IllegalArgumentException when the byte is neither 0 nor 1.
     */
    public static boolean read(final CodecBuffer buffer, final int offset)
    {
        final byte b = buffer.getByte(offset);
        if (b == TRUE)
        {
            return true;
        }
        if (b == FALSE)
        {
            return false;
        }
        throw new IllegalArgumentException(
            "corrupt boolean: byte " + b + " at offset " + offset + " is neither 0 nor 1");
    }

    @Override
    public Class<Boolean> type()
    {
        return Boolean.class;
    }

    @Override
    public int encode(final Boolean value, final CodecBuffer buffer, final int offset)
    {
        return write(buffer, offset, value);
    }

    /**
     * @throws IllegalArgumentException when {@code length} is not {@link #SIZE} or the byte is neither 0 nor 1.
     */
    @Override
    public Boolean decode(final CodecBuffer buffer, final int offset, final int length)
    {
        CodecSupport.checkLength(length, SIZE, Boolean.class);
        return read(buffer, offset);
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
        return "BooleanCodec";
    }

    @Override
    public int maxEncodedLength()
    {
        return SIZE;
    }
}
