package io.ringflow.state.codec;

import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

import static io.ringflow.state.codec.CodecTesting.encoded;
import static io.ringflow.state.codec.CodecTesting.guard;
import static io.ringflow.state.codec.CodecTesting.guarded;
import static io.ringflow.state.codec.CodecTesting.roundTrip;
import static io.ringflow.state.codec.CodecTesting.untouched;
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
            assertThat(new UnsafeBuffer(bytes).getInt(0, ByteOrder.LITTLE_ENDIAN)).isEqualTo(utf8.length);
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
            assertThat(CODEC.decode(new UnsafeBuffer(bytes), 0, bytes.length))
                .isEqualTo(new String(utf8, StandardCharsets.UTF_8))
                .contains("?");
        }
    }

    @Test
    void randomStringsRoundTripAndMatchTheJdkEncoding()
    {
        final Random random = new Random(SEED);
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(16);
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
    void valueThatDoesNotFitThrowsAndWritesNothing()
    {
        final UnsafeBuffer ascii = guarded(10);
        assertThatThrownBy(() -> CODEC.encode("seven..", ascii, 0)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> CODEC.encode("six...", ascii, 1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(untouched(ascii)).isTrue();

        final UnsafeBuffer wide = guarded(12);
        assertThatThrownBy(() -> CODEC.encode("ab😀é!", wide, 0))
            .isInstanceOf(IndexOutOfBoundsException.class)
            .hasMessageContaining("13 bytes")
            .hasMessageContaining("capacity is 12");
        assertThatThrownBy(() -> CODEC.encode("😀😀", wide, 4)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> CODEC.encode("", wide, 9)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> CODEC.encode("", wide, -1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(untouched(wide)).isTrue();
    }

    @Test
    void valueThatFitsExactlyIsWrittenUpToCapacity()
    {
        final UnsafeBuffer ascii = guarded(10);
        assertThat(CODEC.encode("six...", ascii, 0)).isEqualTo(10);
        assertThat(guard(ascii)).isEqualTo(CodecTesting.SENTINEL);
        assertThat(CODEC.decode(ascii, 0, 10)).isEqualTo("six...");

        // 3 chars, 9 bytes: the worst case (4 + 3 * 3 = 13) does not fit, so the exact size is measured first.
        final UnsafeBuffer wide = guarded(12);
        assertThat(CODEC.encode("a😀", wide, 3)).isEqualTo(9);
        assertThat(guard(wide)).isEqualTo(CodecTesting.SENTINEL);
        assertThat(CODEC.decode(wide, 3, 9)).isEqualTo("a😀");

        final UnsafeBuffer empty = guarded(4);
        assertThat(CODEC.encode("", empty, 0)).isEqualTo(4);
        assertThat(guard(empty)).isEqualTo(CodecTesting.SENTINEL);
    }

    @Test
    void expandableBufferGrowsInsteadOfThrowing()
    {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(8);
        final String value = "grows €😀 ".repeat(100);
        final int length = CODEC.encode(value, buffer, 3);
        assertThat(length).isEqualTo(StringCodec.encodedSize(value));
        assertThat(buffer.capacity()).isGreaterThanOrEqualTo(3 + length);
        assertThat(CODEC.decode(buffer, 3, length)).isEqualTo(value);
    }

    @Test
    void decodeRefusesALengthPrefixThatDoesNotMatch()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[32]);
        final int length = CODEC.encode("abc", buffer, 0);
        assertThatThrownBy(() -> CODEC.decode(buffer, 0, length - 1))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("length prefix 3");
        buffer.putInt(0, -1, ByteOrder.LITTLE_ENDIAN);
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
