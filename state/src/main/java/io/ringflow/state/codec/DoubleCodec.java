package io.ringflow.state.codec;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import static io.ringflow.state.codec.CodecSupport.ORDER;

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
     * Writes {@code value} in this codec's format without boxing.
     *
     * @return {@link #SIZE}.
     * @throws IndexOutOfBoundsException when {@link #SIZE} bytes do not fit below the buffer's capacity.
     */
    public static int write(final MutableDirectBuffer buffer, final int offset, final double value)
    {
        buffer.putDouble(offset, value, ORDER);
        return SIZE;
    }

    /**
     * Reads a value written by {@link #write} or {@link #encode} without boxing.
     */
    public static double read(final DirectBuffer buffer, final int offset)
    {
        return buffer.getDouble(offset, ORDER);
    }

    @Override
    public Class<Double> type()
    {
        return Double.class;
    }

    @Override
    public int encode(final Double value, final MutableDirectBuffer buffer, final int offset)
    {
        buffer.putDouble(offset, value, ORDER);
        return SIZE;
    }

    /**
     * @throws IllegalArgumentException when {@code length} is not {@link #SIZE}.
     */
    @Override
    public Double decode(final DirectBuffer buffer, final int offset, final int length)
    {
        CodecSupport.checkLength(length, SIZE, Double.class);
        return buffer.getDouble(offset, ORDER);
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
        return "DoubleCodec";
    }

    @Override
    public int maxEncodedLength()
    {
        return SIZE;
    }
}
