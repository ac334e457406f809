package io.ringflow.state.codec;

import org.agrona.concurrent.UnsafeBuffer;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Shared checks: every round trip encodes into the middle of a buffer filled with a sentinel, so that a codec that
 * writes outside the bytes it reports, or decodes a different number of bytes than it wrote, is caught.
 */
final class CodecTesting
{
    static final byte SENTINEL = (byte)0xA5;
    static final int OFFSET = 7;

    private CodecTesting()
    {
    }

    /**
     * Encodes {@code value} at {@link #OFFSET}, checks that exactly the reported bytes changed (as far as a sentinel
     * can tell) and that decoding those bytes gives an equal value (arrays compared by content).
     *
     * @return the decoded value.
     */
    static <T> T roundTrip(final Codec<T> codec, final T value)
    {
        return roundTrip(codec, value, "");
    }

    static <T> T roundTrip(final Codec<T> codec, final T value, final String description)
    {
        final byte[] array = new byte[OFFSET + 64 + (int)Math.min(1 << 20, 16L * estimate(value))];
        Arrays.fill(array, SENTINEL);
        final UnsafeBuffer buffer = new UnsafeBuffer(array);

        final int length = codec.encode(value, buffer, OFFSET);

        assertThat(length).as("%s bytes written for %s", description, value).isPositive();
        for (int i = 0; i < OFFSET; i++)
        {
            assertThat(array[i]).as("%s byte %d before the offset", description, i).isEqualTo(SENTINEL);
        }
        for (int i = OFFSET + length; i < array.length; i++)
        {
            assertThat(array[i]).as("%s byte %d after the %d reported bytes", description, i, length)
                .isEqualTo(SENTINEL);
        }

        final T decoded = codec.decode(buffer, OFFSET, length);
        assertEquivalent(decoded, value, description + " decoded " + value);
        return decoded;
    }

    /**
     * Compares field by field (so arrays inside records compare by content), floating point values exactly by
     * {@link Double#equals} and {@link Float#equals} rather than AssertJ's default tolerance.
     */
    static void assertEquivalent(final Object actual, final Object expected, final String description)
    {
        assertThat(actual).as(description)
            .usingRecursiveComparison()
            .withEqualsForType(Double::equals, Double.class)
            .withEqualsForType(Float::equals, Float.class)
            .withStrictTypeChecking()
            .isEqualTo(expected);
    }

    /**
     * @return the bytes {@code codec} writes for {@code value}, exactly.
     */
    static <T> byte[] encoded(final Codec<T> codec, final T value)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[4096]);
        final int length = codec.encode(value, buffer, 0);
        final byte[] bytes = new byte[length];
        buffer.getBytes(0, bytes);
        return bytes;
    }

    /**
     * @return a buffer of {@code capacity} bytes over an array one byte longer, every byte the sentinel; the last
     * array byte is the guard, outside the buffer.
     */
    static UnsafeBuffer guarded(final int capacity)
    {
        final byte[] array = new byte[capacity + 1];
        Arrays.fill(array, SENTINEL);
        return new UnsafeBuffer(array, 0, capacity);
    }

    static byte guard(final UnsafeBuffer buffer)
    {
        return buffer.byteArray()[buffer.capacity()];
    }

    static boolean untouched(final UnsafeBuffer buffer)
    {
        for (final byte b : buffer.byteArray())
        {
            if (b != SENTINEL)
            {
                return false;
            }
        }
        return true;
    }

    static byte[] bytes(final int... values)
    {
        final byte[] bytes = new byte[values.length];
        for (int i = 0; i < values.length; i++)
        {
            bytes[i] = (byte)values[i];
        }
        return bytes;
    }

    private static long estimate(final Object value)
    {
        if (value instanceof String)
        {
            return ((String)value).length();
        }
        if (value instanceof byte[])
        {
            return ((byte[])value).length;
        }
        return 64;
    }
}
