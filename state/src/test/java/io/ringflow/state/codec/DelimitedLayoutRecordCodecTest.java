package io.ringflow.state.codec;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DelimitedLayoutRecordCodecTest
{
    record Click(long userId, String page, int x, String referrer, boolean touch, double weight)
    {
    }

    record Named(String name)
    {
    }

    record WithBoxed(long id, String name, Long count)
    {
    }

    record Checked(String code, int value)
    {
        Checked
        {
            if (value < 0)
            {
                throw new IllegalArgumentException("negative value");
            }
        }
    }

    @Test
    void recordsOfPrimitivesAndStringsGetTheSpunCodecAndOthersTheGeneralOne()
    {
        final CodecRegistry registry = CodecRegistry.withBuiltIns();
        assertThat(registry.codecFor(Click.class).getClass().isHidden()).isTrue();
        assertThat(registry.codecFor(Named.class).getClass().isHidden()).isTrue();
        assertThat(registry.codecFor(WithBoxed.class)).isInstanceOf(RecordCodec.class);
        assertThat(CodecRegistry.withBuiltIns().codecFor(Click.class)).isSameAs(registry.codecFor(Click.class));
    }

    @Test
    void aStringCodecRegisteredByTheUserKeepsTheGeneralPath()
    {
        final CodecRegistry registry = CodecRegistry.withBuiltIns();
        registry.register(String.class, new Codec<String>()
        {
            @Override
            public Class<String> type()
            {
                return String.class;
            }

            @Override
            public int encode(final String value, final CodecBuffer buffer, final int offset)
            {
                return StringCodec.INSTANCE.encode(value, buffer, offset);
            }

            @Override
            public String decode(final CodecBuffer buffer, final int offset, final int length)
            {
                return StringCodec.INSTANCE.decode(buffer, offset, length);
            }
        });
        assertThat(registry.codecFor(Named.class)).isInstanceOf(RecordCodec.class);
    }

    @Test
    void theSpunCodecWritesExactlyTheBytesOfTheGeneralCodecAndReadsThemBack()
    {
        final long seed = 20261201L;
        final Random random = new Random(seed);
        final Codec<Click> spun = CodecRegistry.withBuiltIns().codecFor(Click.class);
        final RecordCodec<Click> general = RecordCodec.of(Click.class);
        final CodecBuffer a = CodecBuffer.wrap(ByteBuffer.allocateDirect(512), 0, 512);
        final CodecBuffer b = CodecBuffer.wrap(ByteBuffer.allocateDirect(512), 0, 512);
        for (int n = 0; n < 2000; n++)
        {
            final Click value = new Click(random.nextLong(), randomString(random), random.nextInt(),
                randomString(random), random.nextBoolean(), random.nextDouble());
            final int offset = random.nextInt(8);
            final int length = spun.encode(value, a, offset);
            assertThat(general.encode(value, b, offset)).as("seed %d, value %d", seed, n).isEqualTo(length);
            for (int i = 0; i < length; i++)
            {
                assertThat(a.getByte(offset + i)).as("seed %d, value %d, byte %d", seed, n, i)
                    .isEqualTo(b.getByte(offset + i));
            }
            assertThat(spun.decode(a, offset, length)).as("seed %d, value %d", seed, n).isEqualTo(value);
            assertThat(general.decode(a, offset, length)).isEqualTo(value);
        }
    }

    @Test
    void aStringThatDoesNotFitMarksTheWindowAndAFixedPartThatDoesNotFitWritesNothing()
    {
        final Codec<Named> codec = CodecRegistry.withBuiltIns().codecFor(Named.class);
        final CodecBuffer window = CodecBuffer.allocate(16);
        codec.encode(new Named("a name longer than the sixteen-byte window"), window, 0);
        assertThat(window.overflowed()).isTrue();

        final Codec<Click> click = CodecRegistry.withBuiltIns().codecFor(Click.class);
        final CodecBuffer tiny = CodecBuffer.allocate(20);
        assertThat(click.encode(new Click(1, null, 2, null, true, 3.0), tiny, 0)).isEqualTo(8 + 1 + 4 + 1 + 1 + 8);
        assertThat(tiny.overflowed()).isTrue();
        for (int i = 0; i < 20; i++)
        {
            assertThat(tiny.getByte(i)).isZero();
        }
    }

    @Test
    void aGrowableBufferGrowsForTheSpunCodec()
    {
        final Codec<Named> codec = CodecRegistry.withBuiltIns().codecFor(Named.class);
        final CodecBuffer buffer = CodecBuffer.growable(4);
        final String name = "x".repeat(300);
        final int length = codec.encode(new Named(name), buffer, 2);
        assertThat(buffer.overflowed()).isFalse();
        assertThat(length).isEqualTo(1 + 4 + 300);
        assertThat(codec.decode(buffer, 2, length)).isEqualTo(new Named(name));
    }

    @Test
    void corruptInputIsRejectedNamingTheComponent()
    {
        final Codec<Click> codec = CodecRegistry.withBuiltIns().codecFor(Click.class);
        final CodecBuffer buffer = CodecBuffer.allocate(128);
        final int length = codec.encode(new Click(7, "home", 3, "search", false, 0.5), buffer, 0);
        assertThatThrownBy(() -> codec.decode(buffer, 0, length - 1))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ends at " + (length - 1));
        assertThatThrownBy(() -> codec.decode(buffer, 0, length + 1))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ends at " + (length + 1));
        // the boolean and the double take the last 9 bytes: cut into the referrer
        assertThatThrownBy(() -> codec.decode(buffer, 0, length - 10))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'referrer' claims");
        buffer.putByte(8, (byte)5); // the presence byte of 'page', after the long
        assertThatThrownBy(() -> codec.decode(buffer, 0, length))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'page'")
            .hasMessageContaining("presence byte 5");
        buffer.putByte(8, (byte)1);
        buffer.putInt(9, 1_000_000); // the length prefix of 'page'
        assertThatThrownBy(() -> codec.decode(buffer, 0, length))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'page' claims");
    }

    @Test
    void theCanonicalConstructorStillChecksTheDecodedComponents()
    {
        final Codec<Checked> codec = CodecRegistry.withBuiltIns().codecFor(Checked.class);
        final CodecBuffer buffer = CodecBuffer.allocate(64);
        final int length = codec.encode(new Checked("ok", 1), buffer, 0);
        buffer.putInt(length - 4, -1);
        assertThatThrownBy(() -> codec.decode(buffer, 0, length))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative value");
    }

    private static String randomString(final Random random)
    {
        final int kind = random.nextInt(4);
        if (kind == 0)
        {
            return null;
        }
        final int length = random.nextInt(kind == 1 ? 2 : 40);
        final StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++)
        {
            text.append(kind == 3 ? (char)(0x400 + random.nextInt(0x200)) : (char)('a' + random.nextInt(26)));
        }
        return text.toString();
    }
}
