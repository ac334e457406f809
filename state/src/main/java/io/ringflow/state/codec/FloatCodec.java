package io.ringflow.state.codec;

/**
 * Codec for {@link Float} and {@code float}. Format: 4 bytes, the IEEE 754 bit pattern
 * ({@link Float#floatToRawIntBits}) little-endian, so every NaN payload and the sign of zero survive the round
 * trip.
 *
 * <p>Stateless and thread-safe. Encoding allocates nothing; decoding allocates at most the returned box. The static
 * {@link #write} and {@link #read} use the same format without boxing, for codecs that embed a {@code float}.
 */
public final class FloatCodec implements Codec<Float>, SelfDelimiting
{
    /**
     * Number of bytes every encoded value occupies.
     */
    public static final int SIZE = Float.BYTES;

    /**
     * The only instance.
     */
    public static final FloatCodec INSTANCE = new FloatCodec();

    private FloatCodec()
    {
    }

    /**
     * Writes {@code value} in this codec's format without boxing. A fixed window too small for {@link #SIZE} bytes
     * at {@code offset} is left unwritten and marked {@link CodecBuffer#overflowed() overflowed}.
     *
     * @return {@link #SIZE}.
     */
    public static int write(final CodecBuffer buffer, final int offset, final float value)
    {
        buffer.putFloat(offset, value);
        return SIZE;
    }

    /**
     * Reads a value written by {@link #write} or {@link #encode} without boxing.
     */
    public static float read(final CodecBuffer buffer, final int offset)
    {
        return buffer.getFloat(offset);
    }

    @Override
    public Class<Float> type()
    {
        return Float.class;
    }

    @Override
    public int encode(final Float value, final CodecBuffer buffer, final int offset)
    {
        buffer.putFloat(offset, value);
        return SIZE;
    }

    /**
     * @throws IllegalArgumentException when {@code length} is not {@link #SIZE}.
     */
    @Override
    public Float decode(final CodecBuffer buffer, final int offset, final int length)
    {
        CodecSupport.checkLength(length, SIZE, Float.class);
        return buffer.getFloat(offset);
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
        return "FloatCodec";
    }

    @Override
    public int maxEncodedLength()
    {
        return SIZE;
    }
}
