package io.ringflow.state.codec;

/**
 * Codec for {@link Character} and {@code char}. Format: 2 bytes, the UTF-16 code unit little-endian.
 *
 * <p>Stateless and thread-safe. Encoding allocates nothing; decoding allocates at most the returned box. The static
 * {@link #write} and {@link #read} use the same format without boxing, for codecs that embed a {@code char}.
 */
public final class CharacterCodec implements Codec<Character>, SelfDelimiting
{
    /**
     * Number of bytes every encoded value occupies.
     */
    public static final int SIZE = Character.BYTES;

    /**
     * The only instance.
     */
    public static final CharacterCodec INSTANCE = new CharacterCodec();

    private CharacterCodec()
    {
    }

    /**
     * Writes {@code value} in this codec's format without boxing. A fixed window too small for {@link #SIZE} bytes
     * at {@code offset} is left unwritten and marked {@link CodecBuffer#overflowed() overflowed}.
     *
     * @return {@link #SIZE}.
     */
    public static int write(final CodecBuffer buffer, final int offset, final char value)
    {
        buffer.putChar(offset, value);
        return SIZE;
    }

    /**
     * Reads a value written by {@link #write} or {@link #encode} without boxing.
     */
    public static char read(final CodecBuffer buffer, final int offset)
    {
        return buffer.getChar(offset);
    }

    @Override
    public Class<Character> type()
    {
        return Character.class;
    }

    @Override
    public int encode(final Character value, final CodecBuffer buffer, final int offset)
    {
        buffer.putChar(offset, value);
        return SIZE;
    }

    /**
     * @throws IllegalArgumentException when {@code length} is not {@link #SIZE}.
     */
    @Override
    public Character decode(final CodecBuffer buffer, final int offset, final int length)
    {
        CodecSupport.checkLength(length, SIZE, Character.class);
        return buffer.getChar(offset);
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
        return "CharacterCodec";
    }

    @Override
    public int maxEncodedLength()
    {
        return SIZE;
    }
}
