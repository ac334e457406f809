package io.ringflow.state.codec;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static io.ringflow.state.codec.CodecTesting.encoded;
import static io.ringflow.state.codec.CodecTesting.roundTrip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class CodecRegistryTest
{
    static final class Plain
    {
    }

    enum Color
    {
        RED, GREEN
    }

    record Point(int x, int y)
    {
    }

    record HasPlain(int id, Plain bad)
    {
    }

    record Wrapper(String name, HasPlain inner)
    {
    }

    record Mixed(Point ok, Plain bad)
    {
    }

    record Box<T>(T value)
    {
    }

    record Listing(List<String> names)
    {
    }

    record CycleA(CycleB b, Plain bad)
    {
    }

    record CycleB(CycleA a)
    {
    }

    record Named(String name, int id)
    {
    }

    record Counter(long count, Long boxed)
    {
    }

    record Holder(Plain plain, Point point)
    {
    }

    /** Writes the characters reversed, one byte each, with no length prefix: not self-delimiting. */
    static final class ReversedAsciiCodec implements Codec<String>
    {
        @Override
        public Class<String> type()
        {
            return String.class;
        }

        @Override
        public int encode(final String value, final CodecBuffer buffer, final int offset)
        {
            for (int i = 0; i < value.length(); i++)
            {
                buffer.putByte(offset + i, (byte)value.charAt(value.length() - 1 - i));
            }
            return value.length();
        }

        @Override
        public String decode(final CodecBuffer buffer, final int offset, final int length)
        {
            final byte[] bytes = buffer.toByteArray(offset, length);
            return new StringBuilder(new String(bytes, StandardCharsets.US_ASCII)).reverse().toString();
        }
    }

    /** Writes a long as decimal ASCII digits. */
    static final class DecimalLongCodec implements Codec<Long>
    {
        @Override
        public Class<Long> type()
        {
            return Long.class;
        }

        @Override
        public int encode(final Long value, final CodecBuffer buffer, final int offset)
        {
            final byte[] digits = Long.toString(value).getBytes(StandardCharsets.US_ASCII);
            buffer.putBytes(offset, digits, 0, digits.length);
            return digits.length;
        }

        @Override
        public Long decode(final CodecBuffer buffer, final int offset, final int length)
        {
            return Long.parseLong(new String(buffer.toByteArray(offset, length), StandardCharsets.US_ASCII));
        }
    }

    /** Writes a Plain as a single marker byte. */
    static final class PlainCodec implements Codec<Plain>
    {
        @Override
        public Class<Plain> type()
        {
            return Plain.class;
        }

        @Override
        public int encode(final Plain value, final CodecBuffer buffer, final int offset)
        {
            buffer.putByte(offset, (byte)'P');
            return 1;
        }

        @Override
        public Plain decode(final CodecBuffer buffer, final int offset, final int length)
        {
            return new Plain();
        }
    }

    @Test
    void primitiveClassesShareTheirWrapperCodec()
    {
        final CodecRegistry registry = CodecRegistry.withBuiltIns();
        assertThat(registry.codecFor(long.class)).isSameAs(LongCodec.INSTANCE).isSameAs(registry.codecFor(Long.class));
        assertThat(registry.codecFor(int.class)).isSameAs(IntegerCodec.INSTANCE);
        assertThat(registry.codecFor(short.class)).isSameAs(ShortCodec.INSTANCE);
        assertThat(registry.codecFor(byte.class)).isSameAs(ByteCodec.INSTANCE);
        assertThat(registry.codecFor(double.class)).isSameAs(DoubleCodec.INSTANCE);
        assertThat(registry.codecFor(float.class)).isSameAs(FloatCodec.INSTANCE);
        assertThat(registry.codecFor(boolean.class)).isSameAs(BooleanCodec.INSTANCE);
        assertThat(registry.codecFor(char.class)).isSameAs(CharacterCodec.INSTANCE);
        assertThat(registry.codecFor(String.class)).isSameAs(StringCodec.INSTANCE);
        assertThat(registry.codecFor(byte[].class)).isSameAs(ByteArrayCodec.INSTANCE);

        final Codec<Long> forPrimitive = registry.codecFor(long.class);
        assertThat(roundTrip(forPrimitive, Long.MIN_VALUE)).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void enumsAndRecordsAreDerivedOnceAndCached()
    {
        final CodecRegistry registry = CodecRegistry.withBuiltIns();
        final Codec<Color> color = registry.codecFor(Color.class);
        assertThat(color).isInstanceOf(EnumCodec.class).isSameAs(registry.codecFor(Color.class));
        assertThat(roundTrip(color, Color.GREEN)).isSameAs(Color.GREEN);

        final Codec<Point> point = registry.codecFor(Point.class);
        // a record of primitives is handed out as its spun fixed-layout codec; RecordCodec.of gives the general one
        assertThat(point).isSameAs(registry.codecFor(Point.class));
        assertThat(RecordCodec.of(Point.class, registry)).isSameAs(RecordCodec.of(Point.class, registry));
        assertThat(roundTrip(point, new Point(1, -1))).isEqualTo(new Point(1, -1));
        assertThat(registry.hasCodec(Point.class)).isTrue();
        assertThat(registry.hasCodec(int.class)).isTrue();
    }

    @Test
    void plainClassHasNoCodecAndTheMessageSaysHowToFixIt()
    {
        final CodecRegistry registry = CodecRegistry.withBuiltIns();
        final MissingCodecException missing =
            catchThrowableOfType(MissingCodecException.class, () -> registry.codecFor(Plain.class));

        assertThat(missing.type()).isEqualTo(Plain.class);
        assertThat(missing).hasMessage(
            "no codec for type " + Plain.class.getName() + "; register one with the job's CodecRegistry " +
            "(registry.register(" + Plain.class.getName() + ".class, codec)) or make " + Plain.class.getName() +
            " a Java record");
        assertThat(registry.hasCodec(Plain.class)).isFalse();
    }

    @Test
    void interfacesAndArraysAreNotAdvisedToBecomeRecords()
    {
        final CodecRegistry registry = CodecRegistry.withBuiltIns();
        assertThatThrownBy(() -> registry.codecFor(Runnable.class))
            .isInstanceOf(MissingCodecException.class)
            .hasMessageContaining("java.lang.Runnable")
            .hasMessageContaining("register")
            .hasMessageNotContaining("record");
        assertThatThrownBy(() -> registry.codecFor(int[].class))
            .isInstanceOf(MissingCodecException.class)
            .hasMessageContaining("no codec for type int[]");
    }

    @Test
    void recordComponentWithoutCodecIsNamedInTheMessage()
    {
        final CodecRegistry registry = CodecRegistry.withBuiltIns();
        final MissingCodecException missing =
            catchThrowableOfType(MissingCodecException.class, () -> registry.codecFor(HasPlain.class));

        assertThat(missing.type()).isEqualTo(Plain.class);
        assertThat(missing).hasMessage(
            "record " + HasPlain.class.getName() + " component 'bad' of type " + Plain.class.getName() +
            " has no codec; register one with the job's CodecRegistry (registry.register(" + Plain.class.getName() +
            ".class, codec)) or make " + Plain.class.getName() + " a Java record");
        assertThat(missing).hasCauseInstanceOf(MissingCodecException.class);
    }

    @Test
    void nestedRecordFailureNamesTheInnermostComponentAndThePathToIt()
    {
        final CodecRegistry registry = CodecRegistry.withBuiltIns();
        assertThatThrownBy(() -> registry.codecFor(Wrapper.class))
            .isInstanceOf(MissingCodecException.class)
            .hasMessageStartingWith("record " + HasPlain.class.getName() + " component 'bad' of type " +
                Plain.class.getName() + " has no codec")
            .hasMessageEndingWith("(reached from record " + Wrapper.class.getName() + " component 'inner')");
    }

    @Test
    void genericComponentsAreExplained()
    {
        final CodecRegistry registry = CodecRegistry.withBuiltIns();
        assertThatThrownBy(() -> registry.codecFor(Box.class))
            .isInstanceOf(MissingCodecException.class)
            .hasMessageContaining("component 'value' of type type variable T (erased to java.lang.Object");
        assertThatThrownBy(() -> registry.codecFor(Listing.class))
            .isInstanceOf(MissingCodecException.class)
            .hasMessageContaining("component 'names' of type java.util.List<java.lang.String> has no codec")
            .hasMessageContaining("registry.register(java.util.List.class, codec)");
    }

    @Test
    void failedDerivationCachesNothingHalfBuilt()
    {
        final CodecRegistry registry = CodecRegistry.withBuiltIns();
        assertThatThrownBy(() -> registry.codecFor(Mixed.class)).isInstanceOf(MissingCodecException.class);
        assertThatThrownBy(() -> registry.codecFor(Mixed.class)).isInstanceOf(MissingCodecException.class);
        assertThatThrownBy(() -> registry.codecFor(CycleB.class))
            .isInstanceOf(MissingCodecException.class)
            .hasMessageContaining("component 'bad'")
            .hasMessageContaining("(reached from record " + CycleB.class.getName() + " component 'a')");
        assertThatThrownBy(() -> registry.codecFor(CycleA.class)).isInstanceOf(MissingCodecException.class);

        assertThat(roundTrip(registry.codecFor(Point.class), new Point(4, 5))).isEqualTo(new Point(4, 5));
    }

    @Test
    void registeredCodecTakesPrecedenceOverTheBuiltIn()
    {
        final ReversedAsciiCodec reversed = new ReversedAsciiCodec();
        final CodecRegistry registry = CodecRegistry.withBuiltIns().register(String.class, reversed);

        assertThat(registry.codecFor(String.class)).isSameAs(reversed);
        final Codec<Named> named = registry.codecFor(Named.class);
        assertThat(encoded(named, new Named("abc", 1))).containsExactly(
            1, 3, 0, 0, 0, 'c', 'b', 'a',   // present, length prefix (the codec does not delimit itself), bytes
            1, 0, 0, 0);
        assertThat(roundTrip(named, new Named("xyz", 2))).isEqualTo(new Named("xyz", 2));
        assertThat(roundTrip(named, new Named(null, 3))).isEqualTo(new Named(null, 3));

        assertThat(encoded(RecordCodec.of(Named.class), new Named("abc", 1)))
            .as("another registry is not affected")
            .containsExactly(1, 3, 0, 0, 0, 'a', 'b', 'c', 1, 0, 0, 0);
    }

    @Test
    void codecRegisteredForAPrimitiveWrapperAlsoEncodesThePrimitive()
    {
        final DecimalLongCodec decimal = new DecimalLongCodec();
        final CodecRegistry registry = CodecRegistry.withBuiltIns().register(long.class, decimal);

        assertThat(registry.codecFor(Long.class)).isSameAs(decimal);
        assertThat(registry.codecFor(long.class)).isSameAs(decimal);
        final Codec<Counter> counter = registry.codecFor(Counter.class);
        assertThat(encoded(counter, new Counter(42, -7L))).containsExactly(
            2, 0, 0, 0, '4', '2',          // primitive: no presence byte, length prefix, digits
            1, 2, 0, 0, 0, '-', '7');      // boxed: presence byte, length prefix, digits
        assertThat(roundTrip(counter, new Counter(Long.MIN_VALUE, null))).isEqualTo(new Counter(Long.MIN_VALUE, null));
    }

    @Test
    void registeredCodecMakesARecordWithThatComponentDerivable()
    {
        final CodecRegistry registry = CodecRegistry.withBuiltIns().register(Plain.class, new PlainCodec());
        final Codec<Holder> holder = registry.codecFor(Holder.class);

        assertThat(encoded(holder, new Holder(new Plain(), null))).containsExactly(1, 1, 0, 0, 0, 'P', 0);
        final Holder decoded = holder.decode(
            CodecBuffer.wrap(bytes(1, 1, 0, 0, 0, 'P', 1, 3, 0, 0, 0, 4, 0, 0, 0)), 0, 15);
        assertThat(decoded.plain()).isNotNull();
        assertThat(decoded.point()).isEqualTo(new Point(3, 4));
    }

    @Test
    void codecRegisteredForARecordWinsButTheDerivedOneIsStillAvailable()
    {
        final Codec<Point> custom = new Codec<>()
        {
            @Override
            public Class<Point> type()
            {
                return Point.class;
            }

            @Override
            public int encode(final Point value, final CodecBuffer buffer, final int offset)
            {
                buffer.putByte(offset, (byte)value.x());
                return 1;
            }

            @Override
            public Point decode(final CodecBuffer buffer, final int offset, final int length)
            {
                return new Point(buffer.getByte(offset), 0);
            }
        };
        final CodecRegistry registry = CodecRegistry.withBuiltIns().register(Point.class, custom);

        assertThat(registry.codecFor(Point.class)).isSameAs(custom);
        final RecordCodec<Point> derived = RecordCodec.of(Point.class, registry);
        assertThat(encoded(derived, new Point(1, 2))).containsExactly(1, 0, 0, 0, 2, 0, 0, 0);
    }

    @Test
    void registrationIsRefusedOnceTheRegistryHasBeenUsed()
    {
        final CodecRegistry registry = CodecRegistry.withBuiltIns();
        registry.hasCodec(Point.class);

        assertThatThrownBy(() -> registry.register(Plain.class, new PlainCodec()))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining(Plain.class.getName())
            .hasMessageContaining("already been used");
        assertThat(registry.hasCodec(Plain.class)).isFalse();
    }

    @Test
    void duplicateOrMismatchedRegistrationIsRefused()
    {
        final CodecRegistry registry = CodecRegistry.withBuiltIns().register(Plain.class, new PlainCodec());
        assertThatThrownBy(() -> registry.register(Plain.class, new PlainCodec()))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("already registered");
        assertThatThrownBy(() -> registry.register(Long.class, new DecimalLongCodec()).register(long.class,
            new DecimalLongCodec()))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("already registered");

        @SuppressWarnings({"unchecked", "rawtypes"})
        final Codec<Integer> wrongType = (Codec)new DecimalLongCodec();
        assertThatThrownBy(() -> CodecRegistry.withBuiltIns().register(Integer.class, wrongType))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("java.lang.Long")
            .hasMessageContaining("java.lang.Integer");
    }

    @Test
    void concurrentFirstLookupsGetTheSameCodec() throws Exception
    {
        final CodecRegistry registry = CodecRegistry.withBuiltIns();
        final int threads = 4;
        final CountDownLatch start = new CountDownLatch(1);
        final ExecutorService executor = Executors.newFixedThreadPool(threads);
        try
        {
            final List<Future<Codec<Counter>>> results = new ArrayList<>();
            for (int i = 0; i < threads; i++)
            {
                final Callable<Codec<Counter>> lookup = () ->
                {
                    start.await();
                    return registry.codecFor(Counter.class);
                };
                results.add(executor.submit(lookup));
            }
            start.countDown();
            final Codec<Counter> first = results.get(0).get();
            for (final Future<Codec<Counter>> result : results)
            {
                assertThat(result.get()).isSameAs(first);
            }
            assertThat(roundTrip(first, new Counter(1, 2L))).isEqualTo(new Counter(1, 2L));
        }
        finally
        {
            executor.shutdownNow();
        }
    }

    private static byte[] bytes(final int... values)
    {
        return CodecTesting.bytes(values);
    }
}
