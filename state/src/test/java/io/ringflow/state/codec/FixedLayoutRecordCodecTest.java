package io.ringflow.state.codec;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FixedLayoutRecordCodecTest
{
    record AllPrimitives(long l, int i, short s, byte b, char c, boolean z, double d, float f)
    {
    }

    record PageView(long appId, long timestamp)
    {
    }

    record Empty()
    {
    }

    record WithBox(long id, Long count)
    {
    }

    @Test
    void recordsOfPrimitivesGetTheSpunCodecAndOthersTheGeneralOne()
    {
        final CodecRegistry registry = CodecRegistry.withBuiltIns();
        assertThat(registry.codecFor(PageView.class)).isNotInstanceOf(RecordCodec.class);
        assertThat(registry.codecFor(AllPrimitives.class).getClass().isHidden()).isTrue();
        assertThat(registry.codecFor(WithBox.class)).isInstanceOf(RecordCodec.class);
    }

    @Test
    void everyRegistryOfTheJvmGetsTheSameSpunCodecForARecordType()
    {
        final Codec<PageView> first = CodecRegistry.withBuiltIns().codecFor(PageView.class);
        final Codec<PageView> second = CodecRegistry.withBuiltIns().codecFor(PageView.class);
        assertThat(second).isSameAs(first);
        assertThat(RecordCodec.of(PageView.class).preferred()).isSameAs(first);
        assertThat(CodecRegistry.withBuiltIns().codecFor(AllPrimitives.class)).isNotSameAs(first);
    }

    @Test
    void theSpunCodecWritesExactlyTheBytesOfTheGeneralCodecAndReadsThemBack()
    {
        final Codec<AllPrimitives> spun = CodecRegistry.withBuiltIns().codecFor(AllPrimitives.class);
        final RecordCodec<AllPrimitives> general = RecordCodec.of(AllPrimitives.class);
        final Random random = new Random(99);
        final CodecBuffer a = CodecBuffer.wrap(ByteBuffer.allocateDirect(64), 0, 64);
        final CodecBuffer b = CodecBuffer.wrap(ByteBuffer.allocateDirect(64), 0, 64);
        for (int n = 0; n < 1000; n++)
        {
            final AllPrimitives value = new AllPrimitives(random.nextLong(), random.nextInt(), (short)random.nextInt(),
                (byte)random.nextInt(), (char)random.nextInt(), random.nextBoolean(), random.nextDouble(),
                Float.intBitsToFloat(random.nextInt()));
            final int length = spun.encode(value, a, 3);
            assertThat(general.encode(value, b, 3)).isEqualTo(length).isEqualTo(30);
            for (int i = 0; i < length; i++)
            {
                assertThat(a.getByte(3 + i)).as("seed 99, value %d, byte %d", n, i).isEqualTo(b.getByte(3 + i));
            }
            final AllPrimitives back = spun.decode(a, 3, length);
            assertThat(Float.floatToRawIntBits(back.f())).isEqualTo(Float.floatToRawIntBits(value.f()));
            assertThat(back.l()).isEqualTo(value.l());
            assertThat(back.z()).isEqualTo(value.z());
            assertThat(general.decode(a, 3, length)).isEqualTo(back);
        }
    }

    @Test
    void aBufferTooSmallIsRefusedBeforeAnythingIsWritten()
    {
        final Codec<PageView> codec = CodecRegistry.withBuiltIns().codecFor(PageView.class);
        final CodecBuffer small = CodecBuffer.allocate(15);
        codec.encode(new PageView(1, 2), small, 0);
        assertThat(small.overflowed()).isTrue();
        for (int i = 0; i < 15; i++)
        {
            assertThat(small.getByte(i)).isZero();
        }
        assertThatThrownBy(() -> codec.encode(new PageView(1, 2), small, -1))
            .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void aGrowableBufferGrowsForTheSpunCodec()
    {
        final Codec<PageView> codec = CodecRegistry.withBuiltIns().codecFor(PageView.class);
        final CodecBuffer buffer = CodecBuffer.growable(16);
        assertThat(codec.encode(new PageView(3, 4), buffer, 10)).isEqualTo(16);
        assertThat(buffer.overflowed()).isFalse();
        assertThat(codec.decode(buffer, 10, 16)).isEqualTo(new PageView(3, 4));
    }

    @Test
    void corruptInputIsRejected()
    {
        final Codec<AllPrimitives> codec = CodecRegistry.withBuiltIns().codecFor(AllPrimitives.class);
        final CodecBuffer buffer = CodecBuffer.allocate(64);
        final int length = codec.encode(new AllPrimitives(1, 2, (short)3, (byte)4, 'c', true, 1.5, 2.5f), buffer, 0);
        assertThatThrownBy(() -> codec.decode(buffer, 0, length - 1))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("30 bytes");
        buffer.putByte(17, (byte)7); // the boolean component: after 8 + 4 + 2 + 1 + 2 bytes
        assertThatThrownBy(() -> codec.decode(buffer, 0, length))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("boolean");
    }

    @Test
    void aRecordWithoutComponentsTakesNoBytes()
    {
        final Codec<Empty> codec = CodecRegistry.withBuiltIns().codecFor(Empty.class);
        final CodecBuffer buffer = CodecBuffer.allocate(8);
        assertThat(codec.encode(new Empty(), buffer, 0)).isZero();
        assertThat(codec.decode(buffer, 0, 0)).isEqualTo(new Empty());
    }
}
