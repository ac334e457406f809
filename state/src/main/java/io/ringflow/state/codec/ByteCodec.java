package io.ringflow.state.codec;

/**
 * Codec for {@link Byte} and {@code byte}. Format: 1 byte, two's complement.
 *
 * <p>Stateless and thread-safe. Encoding and decoding allocate nothing ({@link Byte#valueOf} is always cached). The
 * static {@link #write} and {@link #read} use the same format without boxing.
 */
public final class ByteCodec implements Codec<Byte>, SelfDelimiting
{
    /**
     * Number of bytes every encoded value occupies.
     */
    public static final int SIZE = Byte.BYTES;

    /**
     * The only instance.
     */
    public static final ByteCodec INSTANCE = new ByteCodec();

    private ByteCodec()
    {
    }

    /**
     * Writes {@code value} in this codec's format without boxing. A fixed window with no room at {@code offset} is
     * left unwritten and marked {@link CodecBuffer#overflowed() overflowed}.
     *
     * @return {@link #SIZE}.
     */
    public static int write(final CodecBuffer buffer, final int offset, final byte value)
    {
        buffer.putByte(offset, value);
        return SIZE;
    }

    /**
     * Reads a value written by {@link #write} or {@link #encode} without boxing.
     */
    public static byte read(final CodecBuffer buffer, final int offset)
    {
        return buffer.getByte(offset);
    }

    @Override
    public Class<Byte> type()
    {
        return Byte.class;
    }

    @Override
    public int encode(final Byte value, final CodecBuffer buffer, final int offset)
    {
        buffer.putByte(offset, value);
        return SIZE;
    }

    /**
     * @throws IllegalArgumentException when {@code length} is not {@link #SIZE}.
     */
    @Override
    public Byte decode(final CodecBuffer buffer, final int offset, final int length)
    {
        CodecSupport.checkLength(length, SIZE, Byte.class);
        return buffer.getByte(offset);
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
        return "ByteCodec";
    }

    @Override
    public int maxEncodedLength()
    {
        return SIZE;
    }
}
