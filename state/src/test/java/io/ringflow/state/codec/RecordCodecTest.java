package io.ringflow.state.codec;

import io.ringflow.state.codec.fixtures.Elsewhere;
import io.ringflow.state.codec.CodecTesting.Guarded;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import static io.ringflow.state.codec.CodecTesting.assertEquivalent;
import static io.ringflow.state.codec.CodecTesting.bytes;
import static io.ringflow.state.codec.CodecTesting.encoded;
import static io.ringflow.state.codec.CodecTesting.guarded;
import static io.ringflow.state.codec.CodecTesting.roundTrip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class RecordCodecTest
{
    private static final long SEED = 0x5EED_0002L;

    enum Color
    {
        RED, GREEN, BLUE
    }

    record Point(int x, int y)
    {
    }

    record Everything(
        long l, int i, short s, byte b, char c, boolean z, double d, float f,
        Long boxedLong, Integer boxedInt, Short boxedShort, Byte boxedByte, Character boxedChar, Boolean boxedBoolean,
        Double boxedDouble, Float boxedFloat,
        String text, byte[] bytes, Color color, Point point)
    {
    }

    record Sample(int id, String name, Color color, Point at)
    {
    }

    record Node(int value, Node next)
    {
    }

    record Inner(Point point, Color color)
    {
    }

    record Outer(Inner inner, String tag, Inner other)
    {
    }

    record Primitives(long a, int b, boolean c)
    {
    }

    record Nothing()
    {
    }

    record NonNegative(int value)
    {
        NonNegative
        {
            if (value < 0)
            {
                throw new IllegalArgumentException("negative: " + value);
            }
        }
    }

    private record Secret(long id, String label, Point where, float weight, char grade)
    {
    }

    @Test
    void everyComponentKindRoundTrips()
    {
        final RecordCodec<Everything> codec = RecordCodec.of(Everything.class);
        final Everything extremes = new Everything(
            Long.MIN_VALUE, Integer.MAX_VALUE, Short.MIN_VALUE, Byte.MAX_VALUE, '\uffff', true, Double.NaN, -0.0f,
            Long.MAX_VALUE, Integer.MIN_VALUE, Short.MAX_VALUE, Byte.MIN_VALUE, '\ud83d',
            false, Double.NEGATIVE_INFINITY, Float.NaN,
            "a€😀é", bytes(0, 0xff, 7), Color.BLUE, new Point(-1, Integer.MIN_VALUE));
        roundTrip(codec, extremes, "extremes");

        final Everything zeros = new Everything(
            0, 0, (short)0, (byte)0, '\0', false, 0.0, 0.0f, 0L, 0, (short)0, (byte)0, '\0', false, 0.0, 0.0f,
            "", new byte[0], Color.RED, new Point(0, 0));
        roundTrip(codec, zeros, "zeros");
        assertThat(codec.version()).isEqualTo(1);
        assertThat(codec.type()).isEqualTo(Everything.class);
    }

    @Test
    void nullReferenceComponentsRoundTripAsOnePresenceByteEach()
    {
        final RecordCodec<Everything> codec = RecordCodec.of(Everything.class);
        final Everything allNull = new Everything(
            1, 2, (short)3, (byte)4, 'e', true, 6.0, 7.0f,
            null, null, null, null, null, null, null, null, null, null, null, null);
        final int primitives = 8 + 4 + 2 + 1 + 2 + 1 + 8 + 4;
        final int references = 12;

        assertThat(encoded(codec, allNull)).hasSize(primitives + references);
        assertThat(roundTrip(codec, allNull, "all null")).isEqualTo(allNull);
    }

    @Test
    void wireFormatIsComponentsInOrderWithPresenceBytes()
    {
        final RecordCodec<Sample> codec = RecordCodec.of(Sample.class);
        final Sample sample = new Sample(7, "é", null, new Point(1, 2));

        assertThat(encoded(codec, sample)).containsExactly(
            7, 0, 0, 0,                      // id
            1, 2, 0, 0, 0, 0xc3, 0xa9,       // name: present, length 2, UTF-8
            0,                               // color: null
            1, 1, 0, 0, 0, 2, 0, 0, 0);      // at: present, x, y inline
        assertThat(codec.encode(sample, CodecBuffer.allocate(64), 5)).isEqualTo(21);
    }

    @Test
    void nestedRecordsRoundTripAtEveryDepthAndWithNulls()
    {
        final RecordCodec<Outer> codec = RecordCodec.of(Outer.class);
        roundTrip(codec, new Outer(new Inner(new Point(3, 4), Color.GREEN), "tag", new Inner(null, null)), "nested");
        roundTrip(codec, new Outer(null, null, null), "all null");
        roundTrip(codec, new Outer(new Inner(new Point(5, 6), null), "", null), "partly null");
    }

    @Test
    void recordThatRefersToItselfRoundTrips()
    {
        final RecordCodec<Node> codec = RecordCodec.of(Node.class);
        final Node list = new Node(1, new Node(2, new Node(3, null)));

        assertThat(roundTrip(codec, list, "linked list")).isEqualTo(list);
        assertThat(encoded(codec, list)).hasSize(3 * (4 + 1));
    }

    @Test
    void nonPublicRecordsWorkThroughGeneratedAccessors()
    {
        record Local(String name, int count)
        {
        }

        final RecordCodec<Secret> secret = RecordCodec.of(Secret.class);
        roundTrip(secret, new Secret(99L, "hidden", new Point(7, 8), 1.25f, 'A'), "private record");
        assertThat(secret.readsThroughGeneratedAccessors()).isTrue();

        final RecordCodec<Local> local = RecordCodec.of(Local.class);
        roundTrip(local, new Local("local", -3), "local record");
        assertThat(local.readsThroughGeneratedAccessors()).isTrue();

        assertThat(RecordCodec.of(Everything.class).readsThroughGeneratedAccessors()).isTrue();
    }

    @Test
    void packagePrivateRecordInAnotherPackageWorksThroughGeneratedAccessors()
    {
        @SuppressWarnings("unchecked")
        final Class<Record> type = (Class<Record>)Elsewhere.hiddenType();
        final RecordCodec<Record> codec = RecordCodec.of(type);

        assertThat(codec.readsThroughGeneratedAccessors()).isTrue();
        for (int seed = 0; seed < 10; seed++)
        {
            assertThat(roundTrip(codec, Elsewhere.sample(seed), "seed " + seed)).isEqualTo(Elsewhere.sample(seed));
        }
        final RecordCodec<Record> fallback = RecordCodec.of(type, CodecRegistry.withMethodHandleAccessors());
        assertThat(encoded(fallback, Elsewhere.sample(5))).isEqualTo(encoded(codec, Elsewhere.sample(5)));
    }

    @Test
    void methodHandleFallbackWritesTheSameBytes()
    {
        final CodecRegistry fallback = CodecRegistry.withMethodHandleAccessors();
        final RecordCodec<Everything> slow = RecordCodec.of(Everything.class, fallback);
        final RecordCodec<Everything> fast = RecordCodec.of(Everything.class);
        assertThat(slow.readsThroughGeneratedAccessors()).isFalse();

        final Random random = new Random(SEED);
        for (int i = 0; i < 200; i++)
        {
            final Everything value = randomEverything(random);
            assertThat(encoded(slow, value)).as("seed %d, iteration %d", SEED, i).isEqualTo(encoded(fast, value));
            roundTrip(slow, value, "seed " + SEED + ", iteration " + i);
        }
        roundTrip(RecordCodec.of(Secret.class, fallback), new Secret(1, null, null, Float.NaN, '\0'), "private");
    }

    @Test
    void randomRecordsRoundTrip()
    {
        final RecordCodec<Everything> codec = RecordCodec.of(Everything.class);
        final RecordCodec<Outer> outerCodec = RecordCodec.of(Outer.class);
        final Random random = new Random(SEED);
        final CodecBuffer buffer = CodecBuffer.growable(64);
        for (int i = 0; i < 3_000; i++)
        {
            final String description = "seed " + SEED + ", iteration " + i;
            final Everything value = randomEverything(random);
            final int offset = random.nextInt(16);
            final int length = codec.encode(value, buffer, offset);
            assertEquivalent(codec.decode(buffer, offset, length), value, description);

            final Outer outer = new Outer(randomInner(random), randomText(random), randomInner(random));
            final int outerLength = outerCodec.encode(outer, buffer, offset);
            assertThat(outerCodec.decode(buffer, offset, outerLength)).as(description).isEqualTo(outer);
        }
    }

    @Test
    void decodeConsumesExactlyTheBytesEncodeReported()
    {
        final RecordCodec<Sample> codec = RecordCodec.of(Sample.class);
        final CodecBuffer buffer = CodecBuffer.allocate(64);
        final int length = codec.encode(new Sample(1, "abc", Color.RED, new Point(2, 3)), buffer, 0);

        assertThat(length).isEqualTo(4 + 1 + 4 + 3 + 1 + 4 + 1 + 8);
        assertThatThrownBy(() -> codec.decode(buffer, 0, length + 1))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining(Sample.class.getName());
        assertThatThrownBy(() -> codec.decode(buffer, 0, length - 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> codec.decode(buffer, 0, 6))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("'name'");
    }

    @Test
    void corruptPresenceByteIsRefused()
    {
        final RecordCodec<Sample> codec = RecordCodec.of(Sample.class);
        final CodecBuffer buffer = CodecBuffer.allocate(64);
        final int length = codec.encode(new Sample(1, null, Color.RED, null), buffer, 0);
        buffer.putByte(4, (byte)2);

        assertThatThrownBy(() -> codec.decode(buffer, 0, length))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("'name'")
            .hasMessageContaining("presence byte 2");
    }

    @Test
    void canonicalConstructorStillValidatesDecodedRecords()
    {
        final CodecBuffer buffer = CodecBuffer.allocate(4);
        IntegerCodec.write(buffer, 0, -5);

        assertThatThrownBy(() -> RecordCodec.of(NonNegative.class).decode(buffer, 0, 4))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining(NonNegative.class.getName())
            .hasMessageContaining("negative: -5");
    }

    @Test
    void recordWithoutComponentsEncodesToNothing()
    {
        final RecordCodec<Nothing> codec = RecordCodec.of(Nothing.class);
        final CodecBuffer buffer = guarded(0).buffer();
        assertThat(codec.encode(new Nothing(), buffer, 0)).isZero();
        assertThat(buffer.overflowed()).isFalse();
        assertThat(codec.decode(buffer, 0, 0)).isEqualTo(new Nothing());
    }

    @Test
    void fixedSizeRecordThatDoesNotFitMarksTheWindowOverflowedAndWritesNothing()
    {
        final RecordCodec<Primitives> codec = RecordCodec.of(Primitives.class);
        final Primitives value = new Primitives(-1, -1, true);
        final Guarded guarded = guarded(12);

        codec.encode(value, guarded.buffer(), 0);
        assertThat(guarded.buffer().overflowed()).isTrue();
        assertThatThrownBy(() -> codec.encode(value, guarded.buffer(), -1))
            .isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(guarded.untouched()).isTrue();

        final Guarded exact = guarded(13);
        assertThat(codec.encode(value, exact.buffer(), 0)).isEqualTo(13);
        assertThat(exact.buffer().overflowed()).isFalse();
        assertThat(exact.guard()).isEqualTo(CodecTesting.SENTINEL);
    }

    @Test
    void recordWhoseStringDoesNotFitMarksTheWindowOverflowedAndWritesNothingPastCapacity()
    {
        final RecordCodec<Sample> codec = RecordCodec.of(Sample.class);
        final Sample value = new Sample(1, "a string that is too long", Color.RED, new Point(1, 2));
        final int size = encoded(codec, value).length;

        for (int capacity = 0; capacity < size; capacity++)
        {
            final Guarded guarded = guarded(capacity);
            codec.encode(value, guarded.buffer(), 0);
            assertThat(guarded.buffer().overflowed()).as("capacity %d of %d", capacity, size).isTrue();
            assertThat(guarded.guard()).as("guard after capacity %d", capacity).isEqualTo(CodecTesting.SENTINEL);
        }
        final Guarded exact = guarded(size);
        assertThat(codec.encode(value, exact.buffer(), 0)).isEqualTo(size);
        assertThat(exact.buffer().overflowed()).isFalse();
        assertThat(exact.guard()).isEqualTo(CodecTesting.SENTINEL);
        assertThat(codec.decode(exact.buffer(), 0, size)).isEqualTo(value);
    }

    @Test
    void aGrowableBufferGrowsForARecordInsteadOfOverflowing()
    {
        final RecordCodec<Sample> codec = RecordCodec.of(Sample.class);
        final Sample value = new Sample(1, "a string longer than the buffer's first capacity", Color.RED, null);
        final int size = encoded(codec, value).length;
        final CodecBuffer buffer = CodecBuffer.growable(16);

        assertThat(codec.encode(value, buffer, 3)).isEqualTo(size);
        assertThat(buffer.overflowed()).isFalse();
        assertThat(codec.decode(buffer, 3, size)).isEqualTo(value);
    }

    @Test
    void notARecordClassIsRefused()
    {
        assertThatThrownBy(() -> RecordCodec.of(Record.class))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("java.lang.Record");
    }

    @Test
    void encodingAllocatesNothing()
    {
        assumeTrue(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean);
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());

        final Everything value = new Everything(
            1, 2, (short)3, (byte)4, 'e', true, 6.5, 7.5f, 8L, 9, (short)10, (byte)11, 'c', true, 12.5, 13.5f,
            "text with é, € and 😀", bytes(1, 2, 3), Color.GREEN, new Point(14, 15));
        final Outer outer = new Outer(new Inner(new Point(1, 2), Color.RED), "tag", null);
        final RecordCodec<Everything> codec = RecordCodec.of(Everything.class);
        final RecordCodec<Everything> fallback =
            RecordCodec.of(Everything.class, CodecRegistry.withMethodHandleAccessors());
        final RecordCodec<Outer> outerCodec = RecordCodec.of(Outer.class);
        final CodecBuffer buffer = CodecBuffer.allocate(1024);

        final int iterations = 50_000;
        long written = 0;
        for (int i = 0; i < iterations; i++)
        {
            written += codec.encode(value, buffer, 0) + fallback.encode(value, buffer, 256) +
                outerCodec.encode(outer, buffer, 512);
        }
        // the least of a few measured rounds: a JIT compilation finishing during one round may allocate on this
        // thread, but one allocation per encode would put every round far above the bound
        long allocated = Long.MAX_VALUE;
        for (int round = 0; round < 5 && allocated >= iterations; round++)
        {
            final long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < iterations; i++)
            {
                written += codec.encode(value, buffer, 0) + fallback.encode(value, buffer, 256) +
                    outerCodec.encode(outer, buffer, 512);
            }
            allocated = Math.min(allocated, threads.getCurrentThreadAllocatedBytes() - before);
        }

        assertThat(written).isPositive();
        assertThat(allocated)
            .as("bytes allocated by %d encodes (one allocation each would be at least %d)", 3 * iterations,
                16L * 3 * iterations)
            .isLessThan(iterations);
    }

    private static Everything randomEverything(final Random random)
    {
        return new Everything(
            random.nextLong(), random.nextInt(), (short)random.nextInt(), (byte)random.nextInt(),
            (char)random.nextInt(), random.nextBoolean(), Double.longBitsToDouble(random.nextLong()),
            Float.intBitsToFloat(random.nextInt()),
            maybe(random, random.nextLong()), maybe(random, random.nextInt()), maybe(random, (short)random.nextInt()),
            maybe(random, (byte)random.nextInt()), maybe(random, (char)random.nextInt()),
            maybe(random, random.nextBoolean()), maybe(random, random.nextDouble() * 1e300),
            maybe(random, random.nextFloat()), randomText(random),
            maybe(random, randomBytes(random)), maybe(random, Color.values()[random.nextInt(3)]),
            maybe(random, new Point(random.nextInt(), random.nextInt())));
    }

    private static Inner randomInner(final Random random)
    {
        return maybe(random, new Inner(maybe(random, new Point(random.nextInt(), random.nextInt())),
            maybe(random, Color.values()[random.nextInt(3)])));
    }

    private static String randomText(final Random random)
    {
        // Unpaired surrogates do not survive UTF-8, so compare against what the JDK makes of the same text.
        final String text = StringCodecTest.randomString(random, random.nextInt(30));
        return maybe(random, new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8));
    }

    private static byte[] randomBytes(final Random random)
    {
        final byte[] bytes = new byte[random.nextInt(50)];
        random.nextBytes(bytes);
        return bytes;
    }

    private static <T> T maybe(final Random random, final T value)
    {
        return random.nextInt(4) == 0 ? null : value;
    }
}
