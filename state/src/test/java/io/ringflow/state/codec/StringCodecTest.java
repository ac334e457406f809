package io.ringflow.state.codec;

import io.ringflow.state.codec.CodecTesting.Guarded;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

import static io.ringflow.state.codec.CodecTesting.encoded;
import static io.ringflow.state.codec.CodecTesting.guarded;
import static io.ringflow.state.codec.CodecTesting.roundTrip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StringCodecTest
{
    private static final long SEED = 0x5EED_0001L;
    private static final StringCodec CODEC = StringCodec.INSTANCE;

    /** 1-byte, 2-byte, 3-byte and 4-byte (surrogate pair) UTF-8 characters. */
    private static final String[] SAMPLES = {
        "", "a", "hello, world", "\u0000", "\u007f", "\u0080", "é", "\u07ff", "\u0800", "€", "\uffff", "\ud7ff",
        "\ue000", "😀", "\ud800\udc00", "\udbff\udfff", "a€😀é", "𝄞 clef and 𠜎 han",
        "naïve café — 日本語 😀👍🏽"};

    @Test
    void roundTripsOneToFourByteCharacters()
    {
        for (final String value : SAMPLES)
        {
            assertThat(roundTrip(CODEC, value, "sample")).isEqualTo(value);
        }
    }

    @Test
    void writesLengthThenTheSameBytesAsTheJdk()
    {
        for (final String value : SAMPLES)
        {
            final byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
            final byte[] bytes = encoded(CODEC, value);
            assertThat(bytes).as("encoding of %s", value).hasSize(4 + utf8.length);
            assertThat(CodecBuffer.wrap(bytes).getInt(0)).isEqualTo(utf8.length);
            assertThat(Arrays.copyOfRange(bytes, 4, bytes.length)).as("payload of %s", value).isEqualTo(utf8);
            assertThat(StringCodec.encodedSize(value)).isEqualTo(bytes.length);
        }
        assertThat(encoded(CODEC, "é")).containsExactly(2, 0, 0, 0, 0xc3, 0xa9);
        assertThat(encoded(CODEC, "😀")).containsExactly(4, 0, 0, 0, 0xf0, 0x9f, 0x98, 0x80);
        assertThat(encoded(CODEC, "")).containsExactly(0, 0, 0, 0);
    }

    @Test
    void unpairedSurrogatesBecomeQuestionMarksLikeTheJdk()
    {
        final String[] malformed = {"\ud800", "\udc00", "a\ud800b", "\udc00\ud800", "x\ud83d", "\ud83d\ud83d\ude00"};
        for (final String value : malformed)
        {
            final byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
            final byte[] bytes = encoded(CODEC, value);
            assertThat(Arrays.copyOfRange(bytes, 4, bytes.length)).as("payload of %s", value).isEqualTo(utf8);
            assertThat(StringCodec.encodedSize(value)).isEqualTo(bytes.length);
            assertThat(CODEC.decode(CodecBuffer.wrap(bytes), 0, bytes.length))
                .isEqualTo(new String(utf8, StandardCharsets.UTF_8))
                .contains("?");
        }
    }

    @Test
    void randomStringsRoundTripAndMatchTheJdkEncoding()
    {
        final Random random = new Random(SEED);
        final CodecBuffer buffer = CodecBuffer.growable(16);
        for (int i = 0; i < 5_000; i++)
        {
            final String value = randomString(random, random.nextInt(40));
            final int offset = random.nextInt(8);
            final int length = CODEC.encode(value, buffer, offset);
            final byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);

            assertThat(length).as("seed %d, iteration %d: length of %s", SEED, i, value).isEqualTo(4 + utf8.length);
            assertThat(CODEC.decode(buffer, offset, length))
                .as("seed %d, iteration %d", SEED, i)
                .isEqualTo(new String(utf8, StandardCharsets.UTF_8));
        }
    }

    @Test
    void valueThatDoesNotFitMarksTheWindowOverflowedAndWritesNothing()
    {
        final Guarded ascii = guarded(10);
        assertThat(CODEC.encode("seven..", ascii.buffer(), 0)).isEqualTo(11);
        assertThat(ascii.buffer().overflowed()).isTrue();
        ascii.buffer().clearOverflow();
        CODEC.encode("six...", ascii.buffer(), 1);
        assertThat(ascii.buffer().overflowed()).isTrue();
        assertThat(ascii.untouched()).isTrue();

        final Guarded wide = guarded(12);
        for (final int offset : new int[] {0, 4, 9})
        {
            wide.buffer().clearOverflow();
            CODEC.encode(offset == 0 ? "ab😀é!" : offset == 4 ? "😀😀" : "", wide.buffer(), offset);
            assertThat(wide.buffer().overflowed()).as("at offset %d", offset).isTrue();
        }
        assertThat(wide.untouched()).isTrue();
        assertThatThrownBy(() -> CODEC.encode("", wide.buffer(), -1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(wide.untouched()).isTrue();
    }

    @Test
    void valueThatFitsExactlyIsWrittenUpToCapacity()
    {
        final Guarded ascii = guarded(10);
        assertThat(CODEC.encode("six...", ascii.buffer(), 0)).isEqualTo(10);
        assertThat(ascii.buffer().overflowed()).isFalse();
        assertThat(ascii.guard()).isEqualTo(CodecTesting.SENTINEL);
        assertThat(CODEC.decode(ascii.buffer(), 0, 10)).isEqualTo("six...");

        // 3 chars, 9 bytes: the worst case (4 + 3 * 3 = 13) does not fit, so the exact size is measured first.
        final Guarded wide = guarded(12);
        assertThat(CODEC.encode("a😀", wide.buffer(), 3)).isEqualTo(9);
        assertThat(wide.buffer().overflowed()).isFalse();
        assertThat(wide.guard()).isEqualTo(CodecTesting.SENTINEL);
        assertThat(CODEC.decode(wide.buffer(), 3, 9)).isEqualTo("a😀");

        final Guarded empty = guarded(4);
        assertThat(CODEC.encode("", empty.buffer(), 0)).isEqualTo(4);
        assertThat(empty.buffer().overflowed()).isFalse();
        assertThat(empty.guard()).isEqualTo(CodecTesting.SENTINEL);
    }

    @Test
    void growableBufferGrowsInsteadOfOverflowing()
    {
        final CodecBuffer buffer = CodecBuffer.growable(8);
        final String value = "grows €😀 ".repeat(100);
        final int length = CODEC.encode(value, buffer, 3);
        assertThat(buffer.overflowed()).isFalse();
        assertThat(length).isEqualTo(StringCodec.encodedSize(value));
        assertThat(buffer.capacity()).isGreaterThanOrEqualTo(3 + length);
        assertThat(CODEC.decode(buffer, 3, length)).isEqualTo(value);
    }

    @Test
    void decodeRefusesALengthPrefixThatDoesNotMatch()
    {
        final CodecBuffer buffer = CodecBuffer.allocate(32);
        final int length = CODEC.encode("abc", buffer, 0);
        assertThatThrownBy(() -> CODEC.decode(buffer, 0, length - 1))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("length prefix 3");
        buffer.putInt(0, -1);
        assertThatThrownBy(() -> CODEC.decode(buffer, 0, 3)).isInstanceOf(IllegalArgumentException.class);
        assertThat(CODEC.encodedLength(buffer, 0)).isNegative();
    }

    /**
     * Mixes ASCII, 2- and 3-byte characters, surrogate pairs, and now and then an unpaired surrogate.
     */
    static String randomString(final Random random, final int codePoints)
    {
        final StringBuilder builder = new StringBuilder();
        for (int i = 0; i < codePoints; i++)
        {
            switch (random.nextInt(6))
            {
                case 0, 1 -> builder.append((char)random.nextInt(0x80));
                case 2 -> builder.append((char)(0x80 + random.nextInt(0x800 - 0x80)));
                case 3 ->
                {
                    final int c = 0x800 + random.nextInt(0x10000 - 0x800 - 0x800);
                    builder.append((char)(c < 0xd800 ? c : c + 0x800));
                }
                case 4 -> builder.appendCodePoint(0x10000 + random.nextInt(0x110000 - 0x10000));
                default -> builder.append(random.nextInt(10) == 0 ? (char)(0xd800 + random.nextInt(0x800)) : 'z');
            }
        }
        return builder.toString();
    }
}
