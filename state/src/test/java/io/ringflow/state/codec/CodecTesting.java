package io.ringflow.state.codec;

import java.nio.ByteBuffer;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Shared checks: every round trip encodes into the middle of a buffer filled with a sentinel, so that a codec that
 * writes outside the bytes it reports, or decodes a different number of bytes than it wrote, is caught; and the same
 * value into a direct window and a growable buffer, which must hold the same bytes.
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
        final CodecBuffer buffer = CodecBuffer.wrap(array);

        final int length = codec.encode(value, buffer, OFFSET);

        assertThat(buffer.overflowed()).as("%s overflowed for %s", description, value).isFalse();
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

        final byte[] written = Arrays.copyOfRange(array, OFFSET, OFFSET + length);
        final CodecBuffer direct = CodecBuffer.wrap(ByteBuffer.allocateDirect(array.length + 16), 16, array.length);
        assertThat(codec.encode(value, direct, OFFSET)).as("%s direct length", description).isEqualTo(length);
        assertThat(direct.overflowed()).isFalse();
        assertThat(direct.toByteArray(OFFSET, length)).as("%s direct bytes of %s", description, value)
            .isEqualTo(written);
        assertEquivalent(codec.decode(direct, OFFSET, length), value, description + " decoded from direct " + value);

        final CodecBuffer growable = CodecBuffer.growable(1);
        assertThat(codec.encode(value, growable, OFFSET)).as("%s growable length", description).isEqualTo(length);
        assertThat(growable.overflowed()).isFalse();
        assertThat(growable.toByteArray(OFFSET, length)).as("%s growable bytes of %s", description, value)
            .isEqualTo(written);
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
        final CodecBuffer buffer = CodecBuffer.allocate(4096);
        final int length = codec.encode(value, buffer, 0);
        assertThat(buffer.overflowed()).as("encoding %s overflowed", value).isFalse();
        return buffer.toByteArray(0, length);
    }

    /**
     * @return a window of {@code capacity} bytes over an array one byte longer, every byte the sentinel; the last
     * array byte is the guard, outside the window.
     */
    static Guarded guarded(final int capacity)
    {
        final byte[] array = new byte[capacity + 1];
        Arrays.fill(array, SENTINEL);
        return new Guarded(array, CodecBuffer.wrap(array, 0, capacity));
    }

    /**
     * A window and the array under it, one byte longer.
     *
     * @param array  the array, sentinel-filled when created.
     * @param buffer the window over all of it but its last byte.
     */
    record Guarded(byte[] array, CodecBuffer buffer)
    {
        /** @return the byte just past the window. */
        byte guard()
        {
            return array[array.length - 1];
        }

        /** @return whether every byte, the guard included, is still the sentinel. */
        boolean untouched()
        {
            for (final byte b : array)
            {
                if (b != SENTINEL)
                {
                    return false;
                }
            }
            return true;
        }
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
