package io.ringflow.state.codec;

import java.nio.charset.StandardCharsets;

/**
 * Codec for {@link String}. Format: a 4-byte little-endian {@code int} holding the number of payload bytes, then the
 * value in UTF-8. Supplementary characters (surrogate pairs) take 4 bytes; an unpaired surrogate is written as
 * {@code '?'}, exactly as {@code value.getBytes(StandardCharsets.UTF_8)} would.
 *
 * <p>Encoding allocates nothing: characters are converted to UTF-8 straight into the buffer. It never writes a
 * partial value: when the encoded string may not fit, its exact size is measured first and room for it reserved
 * ({@link CodecBuffer#reserve}); a fixed window too small is then left untouched and marked overflowed, a growable
 * buffer grows once. When even the worst case (3 bytes per {@code char}) fits, the string is encoded in a single
 * pass. Decoding allocates the payload bytes and the string.
 *
 * <p>Stateless and thread-safe.
 */
public final class StringCodec implements Codec<String>, SelfDelimiting
{
    /**
     * The only instance.
     */
    public static final StringCodec INSTANCE = new StringCodec();

    /**
     * Size of the length prefix.
     */
    public static final int LENGTH_SIZE = Integer.BYTES;

    /**
     * No {@code char} needs more than 3 UTF-8 bytes: a surrogate pair needs 4 for its 2 chars.
     */
    private static final int MAX_BYTES_PER_CHAR = 3;

    private static final byte REPLACEMENT = (byte)'?';

    private StringCodec()
    {
    }

    /**
     * Number of bytes {@link #encode} writes for {@code value}, including the length prefix. Walks the string without
     * allocating.
     *
     * @param value the string.
     * @return the encoded size; a {@code long} because a string of {@code Integer.MAX_VALUE} chars can need more
     * than {@code Integer.MAX_VALUE} bytes.
     */
    public static long encodedSize(final String value)
    {
        return LENGTH_SIZE + utf8Length(value);
    }

    @Override
    public Class<String> type()
    {
        return String.class;
    }

    @Override
    public int encode(final String value, final CodecBuffer buffer, final int offset)
    {
        final int chars = value.length();
        final int start = offset + LENGTH_SIZE;
        if (offset < 0 || start + (long)MAX_BYTES_PER_CHAR * chars > buffer.capacity())
        {
            final long size = encodedSize(value);
            if (!buffer.reserve(offset, size))
            {
                return (int)Math.min(Integer.MAX_VALUE, size);
            }
        }

        final int end = writeUtf8(value, chars, buffer, start);
        buffer.putInt(offset, end - start);
        return end - offset;
    }

    /**
     * @throws IllegalArgumentException when the length prefix does not match {@code length}.
     */
    @Override
    public String decode(final CodecBuffer buffer, final int offset, final int length)
    {
        final int byteCount = buffer.getInt(offset);
        if (byteCount < 0 || byteCount != length - LENGTH_SIZE)
        {
            throw new IllegalArgumentException(
                "corrupt string: length prefix " + byteCount + " does not match the " + length + " bytes to decode");
        }
        return new String(buffer.toByteArray(offset + LENGTH_SIZE, byteCount), StandardCharsets.UTF_8);
    }

    /**
     * @return the length prefix plus 4, or a negative number when the prefix is negative or absurdly large.
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
        return "StringCodec";
    }

    private static long utf8Length(final String value)
    {
        final int chars = value.length();
        long bytes = chars;
        for (int i = 0; i < chars; i++)
        {
            final char c = value.charAt(i);
            if (c >= 0x80)
            {
                if (c < 0x800)
                {
                    bytes += 1;
                }
                else if (!Character.isSurrogate(c))
                {
                    bytes += 2;
                }
                else if (Character.isHighSurrogate(c) && i + 1 < chars && Character.isLowSurrogate(value.charAt(i + 1)))
                {
                    bytes += 2;  // 4 bytes for the 2 chars of the pair
                    i++;
                }
                // an unpaired surrogate is written as the single byte '?'
            }
        }
        return bytes;
    }

    private static int writeUtf8(final String value, final int chars, final CodecBuffer buffer, final int start)
    {
        int position = start;
        int i = 0;
        while (i < chars)
        {
            final char c = value.charAt(i++);
            if (c < 0x80)
            {
                buffer.putByte(position++, (byte)c);
            }
            else if (c < 0x800)
            {
                buffer.putByte(position++, (byte)(0xC0 | (c >>> 6)));
                buffer.putByte(position++, (byte)(0x80 | (c & 0x3F)));
            }
            else if (!Character.isSurrogate(c))
            {
                buffer.putByte(position++, (byte)(0xE0 | (c >>> 12)));
                buffer.putByte(position++, (byte)(0x80 | ((c >>> 6) & 0x3F)));
                buffer.putByte(position++, (byte)(0x80 | (c & 0x3F)));
            }
            else if (Character.isHighSurrogate(c) && i < chars && Character.isLowSurrogate(value.charAt(i)))
            {
                final int codePoint = Character.toCodePoint(c, value.charAt(i++));
                buffer.putByte(position++, (byte)(0xF0 | (codePoint >>> 18)));
                buffer.putByte(position++, (byte)(0x80 | ((codePoint >>> 12) & 0x3F)));
                buffer.putByte(position++, (byte)(0x80 | ((codePoint >>> 6) & 0x3F)));
                buffer.putByte(position++, (byte)(0x80 | (codePoint & 0x3F)));
            }
            else
            {
                buffer.putByte(position++, REPLACEMENT);
            }
        }
        return position;
    }
}
