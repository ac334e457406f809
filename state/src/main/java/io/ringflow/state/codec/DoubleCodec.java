package io.ringflow.state.codec;

/**
 * Codec for {@link Double} and {@code double}. Format: 8 bytes, the IEEE 754 bit pattern
 * ({@link Double#doubleToRawLongBits}) little-endian, so every NaN payload and the sign of zero survive the round
 * trip.
 *
 * <p>Stateless and thread-safe. Encoding allocates nothing; decoding allocates at most the returned box. The static
 * {@link #write} and {@link #read} use the same format without boxing, for codecs that embed a {@code double}.
 */
public final class DoubleCodec implements Codec<Double>, SelfDelimiting
{
    /**
     * Number of bytes every encoded value occupies.
     */
    public static final int SIZE = Double.BYTES;

    /**
     * The only instance.
     */
    public static final DoubleCodec INSTANCE = new DoubleCodec();

    private DoubleCodec()
    {
    }

    /**
     * Writes {@code value} in this codec's format without boxing. A fixed window too small for {@link #SIZE} bytes
     * at {@code offset} is left unwritten and marked {@link CodecBuffer#overflowed() overflowed}.
     *
     * @return {@link #SIZE}.
     */
    public static int write(final CodecBuffer buffer, final int offset, final double value)
    {
        buffer.putDouble(offset, value);
        return SIZE;
    }

    /**
     * Reads a value written by {@link #write} or {@link #encode} without boxing.
     */
    public static double read(final CodecBuffer buffer, final int offset)
    {
        return buffer.getDouble(offset);
    }

    @Override
    public Class<Double> type()
    {
        return Double.class;
    }

    @Override
    public int encode(final Double value, final CodecBuffer buffer, final int offset)
    {
        buffer.putDouble(offset, value);
        return SIZE;
    }

    /**
     * @throws IllegalArgumentException when {@code length} is not {@link #SIZE}.
     */
    @Override
    public Double decode(final CodecBuffer buffer, final int offset, final int length)
    {
        CodecSupport.checkLength(length, SIZE, Double.class);
        return buffer.getDouble(offset);
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
        return "DoubleCodec";
    }

    @Override
    public int maxEncodedLength()
    {
        return SIZE;
    }
}
