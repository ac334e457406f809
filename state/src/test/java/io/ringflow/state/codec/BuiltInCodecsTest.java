package io.ringflow.state.codec;

import io.ringflow.state.codec.CodecTesting.Guarded;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static io.ringflow.state.codec.CodecTesting.bytes;
import static io.ringflow.state.codec.CodecTesting.encoded;
import static io.ringflow.state.codec.CodecTesting.guarded;
import static io.ringflow.state.codec.CodecTesting.roundTrip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BuiltInCodecsTest
{
    enum Color
    {
        RED, GREEN, BLUE
    }

    enum Empty
    {
    }

    enum WithBodies
    {
        A
        {
            @Override
            int weight()
            {
                return 1;
            }
        },
        B
        {
            @Override
            int weight()
            {
                return 2;
            }
        };

        abstract int weight();
    }

    @Test
    void longRoundTripsIncludingExtremes()
    {
        for (final long value : new long[]{0, 1, -1, 42, Long.MIN_VALUE, Long.MAX_VALUE, Integer.MIN_VALUE - 1L})
        {
            assertThat(roundTrip(LongCodec.INSTANCE, value)).isEqualTo(value);
        }
        assertThat(LongCodec.INSTANCE.encode(5L, CodecBuffer.allocate(8), 0)).isEqualTo(LongCodec.SIZE);
    }

    @Test
    void integerRoundTripsIncludingExtremes()
    {
        for (final int value : new int[]{0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, 0x01020304})
        {
            assertThat(roundTrip(IntegerCodec.INSTANCE, value)).isEqualTo(value);
        }
    }

    @Test
    void shortByteCharacterRoundTripIncludingExtremes()
    {
        for (final short value : new short[]{0, -1, Short.MIN_VALUE, Short.MAX_VALUE})
        {
            assertThat(roundTrip(ShortCodec.INSTANCE, value)).isEqualTo(value);
        }
        for (final byte value : new byte[]{0, -1, Byte.MIN_VALUE, Byte.MAX_VALUE})
        {
            assertThat(roundTrip(ByteCodec.INSTANCE, value)).isEqualTo(value);
        }
        for (final char value : new char[]{0, 'a', '\u00e9', '\u20ac', '\ud83d', '\ude00', Character.MAX_VALUE})
        {
            assertThat(roundTrip(CharacterCodec.INSTANCE, value)).isEqualTo(value);
        }
    }

    @Test
    void doubleRoundTripsBitForBit()
    {
        final double[] values = {
            0.0, -0.0, 1.5, -Math.PI, Double.MIN_VALUE, Double.MAX_VALUE, Double.MIN_NORMAL, Double.NaN,
            Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.longBitsToDouble(0x7ff8_0000_0000_0abcL)};
        for (final double value : values)
        {
            final Double decoded = roundTrip(DoubleCodec.INSTANCE, value);
            assertThat(Double.doubleToRawLongBits(decoded)).as("bits of %s", value)
                .isEqualTo(Double.doubleToRawLongBits(value));
        }
    }

    @Test
    void floatRoundTripsBitForBit()
    {
        final float[] values = {
            0.0f, -0.0f, 1.5f, Float.MIN_VALUE, Float.MAX_VALUE, Float.NaN, Float.POSITIVE_INFINITY,
            Float.NEGATIVE_INFINITY, Float.intBitsToFloat(0x7fc0_0abc)};
        for (final float value : values)
        {
            final Float decoded = roundTrip(FloatCodec.INSTANCE, value);
            assertThat(Float.floatToRawIntBits(decoded)).as("bits of %s", value)
                .isEqualTo(Float.floatToRawIntBits(value));
        }
    }

    @Test
    void booleanRoundTripsAndRefusesOtherBytes()
    {
        assertThat(roundTrip(BooleanCodec.INSTANCE, true)).isTrue();
        assertThat(roundTrip(BooleanCodec.INSTANCE, false)).isFalse();
        assertThat(encoded(BooleanCodec.INSTANCE, true)).containsExactly(1);
        assertThat(encoded(BooleanCodec.INSTANCE, false)).containsExactly(0);

        final CodecBuffer buffer = CodecBuffer.wrap(bytes(2));
        assertThatThrownBy(() -> BooleanCodec.INSTANCE.decode(buffer, 0, 1))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("byte 2");
    }

    @Test
    void fixedWidthValuesAreLittleEndian()
    {
        assertThat(encoded(LongCodec.INSTANCE, 0x0102030405060708L)).containsExactly(8, 7, 6, 5, 4, 3, 2, 1);
        assertThat(encoded(IntegerCodec.INSTANCE, 0x01020304)).containsExactly(4, 3, 2, 1);
        assertThat(encoded(ShortCodec.INSTANCE, (short)0x0102)).containsExactly(2, 1);
        assertThat(encoded(CharacterCodec.INSTANCE, '\u20ac')).containsExactly(0xac, 0x20);
        assertThat(encoded(ByteCodec.INSTANCE, (byte)-2)).containsExactly(0xfe);
        assertThat(encoded(DoubleCodec.INSTANCE, 1.0)).containsExactly(0, 0, 0, 0, 0, 0, 0xf0, 0x3f);
        assertThat(encoded(FloatCodec.INSTANCE, 1.0f)).containsExactly(0, 0, 0x80, 0x3f);
        assertThat(encoded(EnumCodec.of(Color.class), Color.BLUE)).containsExactly(2, 0, 0, 0);
    }

    @Test
    void staticWriteAndReadShareTheCodecFormat()
    {
        final CodecBuffer buffer = CodecBuffer.allocate(8);
        assertThat(LongCodec.write(buffer, 0, -3L)).isEqualTo(8);
        assertThat(LongCodec.INSTANCE.decode(buffer, 0, 8)).isEqualTo(-3L);
        IntegerCodec.INSTANCE.encode(-4, buffer, 0);
        assertThat(IntegerCodec.read(buffer, 0)).isEqualTo(-4);
        assertThat(FloatCodec.write(buffer, 0, 2.5f)).isEqualTo(4);
        assertThat(FloatCodec.INSTANCE.decode(buffer, 0, 4)).isEqualTo(2.5f);
        assertThat(BooleanCodec.write(buffer, 0, true)).isEqualTo(1);
        assertThat(BooleanCodec.read(buffer, 0)).isTrue();
    }

    @Test
    void fixedWidthDecodeRefusesAnyOtherLength()
    {
        final CodecBuffer buffer = CodecBuffer.allocate(16);
        assertThatThrownBy(() -> LongCodec.INSTANCE.decode(buffer, 0, 4))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("java.lang.Long")
            .hasMessageContaining("8");
        assertThatThrownBy(() -> IntegerCodec.INSTANCE.decode(buffer, 0, 8))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ByteCodec.INSTANCE.decode(buffer, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EnumCodec.of(Color.class).decode(buffer, 0, 1))
            .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void fixedWidthValueThatDoesNotFitMarksTheWindowOverflowedAndWritesNothing()
    {
        final List<Codec<?>> codecs = List.of(
            LongCodec.INSTANCE, IntegerCodec.INSTANCE, ShortCodec.INSTANCE, ByteCodec.INSTANCE, DoubleCodec.INSTANCE,
            FloatCodec.INSTANCE, BooleanCodec.INSTANCE, CharacterCodec.INSTANCE, EnumCodec.of(Color.class));
        final List<Object> values = List.of(-1L, -1, (short)-1, (byte)-1, -1.0, -1.0f, true, '\uffff', Color.BLUE);
        for (int i = 0; i < codecs.size(); i++)
        {
            @SuppressWarnings("unchecked")
            final Codec<Object> codec = (Codec<Object>)codecs.get(i);
            final Object value = values.get(i);
            final int size = encoded(codec, value).length;
            final Guarded guarded = guarded(size + 2);
            final CodecBuffer buffer = guarded.buffer();

            codec.encode(value, buffer, 3);
            assertThat(buffer.overflowed()).as("%s at offset 3 of a %d-byte window", codec, buffer.capacity())
                .isTrue();
            assertThat(guarded.untouched()).as("%s wrote nothing", codec).isTrue();
            buffer.clearOverflow();
            assertThat(codec.encode(value, buffer, 2)).as("%s fits exactly", codec).isEqualTo(size);
            assertThat(buffer.overflowed()).isFalse();
            assertThat(guarded.guard()).isEqualTo(CodecTesting.SENTINEL);
        }
    }

    @Test
    void byteArrayRoundTripsIncludingEmpty()
    {
        assertThat(roundTrip(ByteArrayCodec.INSTANCE, new byte[0])).isEmpty();
        assertThat(roundTrip(ByteArrayCodec.INSTANCE, bytes(0, 1, 0xff, 0x80, 0x7f)))
            .containsExactly(0, 1, 0xff, 0x80, 0x7f);
        final byte[] large = new byte[70_000];
        for (int i = 0; i < large.length; i++)
        {
            large[i] = (byte)(i * 31);
        }
        assertThat(roundTrip(ByteArrayCodec.INSTANCE, large)).isEqualTo(large);
        assertThat(encoded(ByteArrayCodec.INSTANCE, bytes(9, 8))).containsExactly(2, 0, 0, 0, 9, 8);
    }

    @Test
    void byteArrayDecodeReturnsACopy()
    {
        final byte[] value = bytes(1, 2, 3);
        final CodecBuffer buffer = CodecBuffer.allocate(16);
        final int length = ByteArrayCodec.INSTANCE.encode(value, buffer, 0);
        value[0] = 9;
        final byte[] first = ByteArrayCodec.INSTANCE.decode(buffer, 0, length);
        first[1] = 9;
        assertThat(ByteArrayCodec.INSTANCE.decode(buffer, 0, length)).containsExactly(1, 2, 3);
    }

    @Test
    void byteArrayThatDoesNotFitMarksTheWindowOverflowedAndWritesNothing()
    {
        final Guarded guarded = guarded(10);
        final CodecBuffer buffer = guarded.buffer();
        assertThat(ByteArrayCodec.INSTANCE.encode(new byte[7], buffer, 0)).isEqualTo(11);
        assertThat(buffer.overflowed()).isTrue();
        assertThat(guarded.untouched()).isTrue();
        buffer.clearOverflow();
        assertThat(ByteArrayCodec.INSTANCE.encode(new byte[6], buffer, 0)).isEqualTo(10);
        assertThat(buffer.overflowed()).isFalse();
        assertThat(guarded.guard()).isEqualTo(CodecTesting.SENTINEL);
    }

    @Test
    void aGrowableBufferGrowsForAByteArrayInsteadOfOverflowing()
    {
        final CodecBuffer buffer = CodecBuffer.growable(16);
        final byte[] value = new byte[1000];
        Arrays.fill(value, (byte)7);
        assertThat(ByteArrayCodec.INSTANCE.encode(value, buffer, 5)).isEqualTo(1004);
        assertThat(buffer.overflowed()).isFalse();
        assertThat(buffer.capacity()).isGreaterThanOrEqualTo(1009);
        assertThat(ByteArrayCodec.INSTANCE.decode(buffer, 5, 1004)).isEqualTo(value);
    }

    @Test
    void byteArrayDecodeRefusesALengthPrefixThatDoesNotMatch()
    {
        final CodecBuffer buffer = CodecBuffer.allocate(16);
        final int length = ByteArrayCodec.INSTANCE.encode(bytes(1, 2, 3), buffer, 0);
        assertThatThrownBy(() -> ByteArrayCodec.INSTANCE.decode(buffer, 0, length + 1))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("length prefix 3");
        buffer.putInt(0, -5);
        assertThatThrownBy(() -> ByteArrayCodec.INSTANCE.decode(buffer, 0, length))
            .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void enumRoundTripsEveryConstant()
    {
        final EnumCodec<Color> codec = EnumCodec.of(Color.class);
        for (final Color color : Color.values())
        {
            assertThat(roundTrip(codec, color)).isSameAs(color);
        }
        final EnumCodec<WithBodies> withBodies = EnumCodec.of(WithBodies.class);
        assertThat(roundTrip(withBodies, WithBodies.B)).isSameAs(WithBodies.B);
        assertThat(codec.type()).isEqualTo(Color.class);
    }

    @Test
    void enumDecodeRefusesOrdinalsOutOfRangeNamingTheType()
    {
        final EnumCodec<Color> codec = EnumCodec.of(Color.class);
        final CodecBuffer buffer = CodecBuffer.allocate(4);
        for (final int ordinal : new int[]{3, -1, Integer.MAX_VALUE, Integer.MIN_VALUE})
        {
            IntegerCodec.write(buffer, 0, ordinal);
            assertThatThrownBy(() -> codec.decode(buffer, 0, 4))
                .as("ordinal %d", ordinal)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Color.class.getName())
                .hasMessageContaining("ordinal " + ordinal);
        }
        IntegerCodec.write(buffer, 0, 0);
        assertThatThrownBy(() -> EnumCodec.of(Empty.class).decode(buffer, 0, 4))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining(Empty.class.getName());
    }

    @Test
    void enumCodecRefusesClassesThatAreNotEnums()
    {
        @SuppressWarnings({"unchecked", "rawtypes"})
        final Class<Color> notAnEnum = (Class)WithBodies.A.getClass();
        assertThatThrownBy(() -> EnumCodec.of(notAnEnum)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void builtInsReportTheirTypeAndVersion()
    {
        assertThat(LongCodec.INSTANCE.type()).isEqualTo(Long.class);
        assertThat(IntegerCodec.INSTANCE.type()).isEqualTo(Integer.class);
        assertThat(ShortCodec.INSTANCE.type()).isEqualTo(Short.class);
        assertThat(ByteCodec.INSTANCE.type()).isEqualTo(Byte.class);
        assertThat(DoubleCodec.INSTANCE.type()).isEqualTo(Double.class);
        assertThat(FloatCodec.INSTANCE.type()).isEqualTo(Float.class);
        assertThat(BooleanCodec.INSTANCE.type()).isEqualTo(Boolean.class);
        assertThat(CharacterCodec.INSTANCE.type()).isEqualTo(Character.class);
        assertThat(StringCodec.INSTANCE.type()).isEqualTo(String.class);
        assertThat(ByteArrayCodec.INSTANCE.type()).isEqualTo(byte[].class);
        assertThat(LongCodec.INSTANCE.version()).isEqualTo(1);
        assertThat(StringCodec.INSTANCE.version()).isEqualTo(1);
    }
}
