package io.ringflow.state.codec;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import static io.ringflow.state.codec.CodecSupport.ORDER;

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
     * Writes {@code value} in this codec's format without boxing.
     *
     * @return {@link #SIZE}.
     * @throws IndexOutOfBoundsException when {@link #SIZE} bytes do not fit below the buffer's capacity.
     */
    public static int write(final MutableDirectBuffer buffer, final int offset, final char value)
    {
        buffer.putChar(offset, value, ORDER);
        return SIZE;
    }

    /**
     * Reads a value written by {@link #write} or {@link #encode} without boxing.
     */
    public static char read(final DirectBuffer buffer, final int offset)
    {
        return buffer.getChar(offset, ORDER);
    }

    @Override
    public Class<Character> type()
    {
        return Character.class;
    }

    @Override
    public int encode(final Character value, final MutableDirectBuffer buffer, final int offset)
    {
        buffer.putChar(offset, value, ORDER);
        return SIZE;
    }

    /**
     * @throws IllegalArgumentException when {@code length} is not {@link #SIZE}.
     */
    @Override
    public Character decode(final DirectBuffer buffer, final int offset, final int length)
    {
        CodecSupport.checkLength(length, SIZE, Character.class);
        return buffer.getChar(offset, ORDER);
    }

    /**
     * @return {@link #SIZE}, whatever the bytes.
     */
    @Override
    public int encodedLength(final DirectBuffer buffer, final int offset)
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
