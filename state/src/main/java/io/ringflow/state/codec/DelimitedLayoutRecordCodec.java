package io.ringflow.state.codec;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;

/**
 * The fast path of {@link RecordCodec} for records whose components are primitives and {@code String}s, at least one
 * of them a {@code String}: the same bytes {@link RecordCodec} writes (a primitive little-endian with no flag; a
 * {@code String} as a presence byte, then, when present, {@link StringCodec}'s length-prefixed UTF-8), encoded and
 * decoded by one method handle each, threading the position from component to component, installed as constants of a
 * hidden class spun from {@link DelimitedLayoutTemplate}. Encoding neither boxes nor allocates; decoding allocates
 * the record and its strings only: no {@code Object[]} of constructor arguments, no boxes.
 *
 * <p>Built once per record type in the JVM, at its first derivation, and shared by every registry afterwards (the
 * layout depends on the type alone, since only built-in codecs take part). Thread-safe.
 */
final class DelimitedLayoutRecordCodec
{
    private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();
    private static final byte[] TEMPLATE = SpunCodecs.templateBytes(DelimitedLayoutTemplate.class);
    private static final byte ABSENT = 0;
    private static final byte PRESENT = 1;
    private static final MethodHandle PLUS;
    private static final MethodHandle PUT_STRING;
    private static final MethodHandle GET_STRING;
    private static final MethodHandle STRING_END;
    private static final MethodHandle CHECK_END;

    static
    {
        try
        {
            PLUS = LOOKUP.findStatic(FixedLayoutRecordCodec.class, "plus",
                MethodType.methodType(int.class, int.class, int.class));
            PUT_STRING = LOOKUP.findStatic(DelimitedLayoutRecordCodec.class, "putString",
                MethodType.methodType(int.class, CodecBuffer.class, int.class, String.class));
            GET_STRING = LOOKUP.findStatic(DelimitedLayoutRecordCodec.class, "getString",
                MethodType.methodType(String.class, String.class, String.class, CodecBuffer.class, int.class,
                    int.class));
            STRING_END = LOOKUP.findStatic(DelimitedLayoutRecordCodec.class, "stringEnd",
                MethodType.methodType(int.class, String.class, String.class, CodecBuffer.class, int.class,
                    int.class));
            CHECK_END = LOOKUP.findStatic(DelimitedLayoutRecordCodec.class, "checkEnd",
                MethodType.methodType(void.class, String.class, int.class, int.class));
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private DelimitedLayoutRecordCodec()
    {
    }

    /**
     * @param type           the record class.
     * @param componentTypes its components' types, each a primitive or {@code String}, in declaration order.
     * @param names          the components' names, for error messages.
     * @param getters        the components' accessors, {@code (R) T}.
     * @param constructor    the canonical constructor.
     * @param minimumSize    bytes of the fixed part: primitives and presence bytes.
     * @param <T>            the record type.
     * @return the codec spun for the type, the first time it was asked for.
     * @throws ReflectiveOperationException when the hidden class cannot be defined.
     */
    static <T> Codec<T> create(
        final Class<T> type,
        final Class<?>[] componentTypes,
        final String[] names,
        final MethodHandle[] getters,
        final MethodHandle constructor,
        final int minimumSize) throws ReflectiveOperationException
    {
        return SpunCodecs.sharedFor(type, () -> spin(type, componentTypes, names, getters, constructor, minimumSize));
    }

    /**
     * @param type a component type.
     * @return whether this layout can hold it.
     */
    static boolean holds(final Class<?> type)
    {
        return type == String.class || FixedLayoutRecordCodec.width(type) > 0;
    }

    private static Codec<?> spin(
        final Class<?> type,
        final Class<?>[] componentTypes,
        final String[] names,
        final MethodHandle[] getters,
        final MethodHandle constructor,
        final int minimumSize) throws ReflectiveOperationException
    {
        final int n = componentTypes.length;

        // encoder W_i(record, buffer, position) = W_i+1(record, buffer, put_i(buffer, position, get_i(record))),
        // W_n(record, buffer, position) = position
        MethodHandle encoder = MethodHandles.dropArguments(
            MethodHandles.identity(int.class), 0, Object.class, CodecBuffer.class);
        for (int i = n - 1; i >= 0; i--)
        {
            MethodHandle put = MethodHandles.filterArguments(putter(componentTypes[i]), 2,
                getters[i].asType(MethodType.methodType(componentTypes[i], Object.class)));
            put = MethodHandles.permuteArguments(put,
                MethodType.methodType(int.class, Object.class, CodecBuffer.class, int.class), 1, 2, 0);
            final MethodHandle next = MethodHandles.permuteArguments(encoder,
                MethodType.methodType(int.class, int.class, Object.class, CodecBuffer.class, int.class), 1, 2, 0);
            encoder = MethodHandles.foldArguments(next, 0, put);
        }

        // decoder D_i(v_0 .. v_i-1, buffer, position, limit)
        //   = D_i+1(v_0 .. v_i-1, get_i(buffer, position, limit), buffer, end_i(buffer, position, limit), limit),
        // D_n(v_0 .. v_n-1, buffer, position, limit) = checkEnd(position, limit), then the constructor
        final String typeName = type.getName();
        MethodHandle decoder = constructor.asType(constructor.type().changeReturnType(Object.class));
        decoder = MethodHandles.dropArguments(decoder, n, CodecBuffer.class, int.class, int.class);
        decoder = MethodHandles.foldArguments(decoder, n + 1,
            MethodHandles.insertArguments(CHECK_END, 0, typeName).asType(
                MethodType.methodType(void.class, int.class, int.class)));
        // foldArguments passes the arguments from n + 1 on: (position, limit)
        for (int i = n - 1; i >= 0; i--)
        {
            final Class<?>[] values = new Class<?>[i + 1];
            System.arraycopy(componentTypes, 0, values, 0, i + 1);
            // (v_0 .. v_i, newPosition, buffer, position, limit) -> D_i+1(v_0 .. v_i, buffer, newPosition, limit)
            final MethodType withNewPosition = MethodType.methodType(Object.class, values)
                .appendParameterTypes(int.class, CodecBuffer.class, int.class, int.class);
            final int[] reorder = new int[i + 4];
            for (int k = 0; k <= i; k++)
            {
                reorder[k] = k;
            }
            reorder[i + 1] = i + 2;
            reorder[i + 2] = i + 1;
            reorder[i + 3] = i + 4;
            MethodHandle step = MethodHandles.permuteArguments(decoder, withNewPosition, reorder);
            step = MethodHandles.foldArguments(step, i + 1, end(componentTypes[i], typeName, names[i]));
            decoder = MethodHandles.foldArguments(step, i, getter(componentTypes[i], typeName, names[i]));
        }

        final MethodHandles.Lookup spun = LOOKUP.defineHiddenClassWithClassData(
            TEMPLATE, List.of(encoder, decoder, minimumSize, type), true);
        try
        {
            return (Codec<?>)spun.findConstructor(spun.lookupClass(), MethodType.methodType(void.class)).invoke();
        }
        catch (final ReflectiveOperationException | RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("cannot instantiate the codec spun for " + type.getName(), ex);
        }
    }

    /** @return {@code (CodecBuffer, int position, T value) int}: writes the value, returns the position after it. */
    private static MethodHandle putter(final Class<?> type) throws ReflectiveOperationException
    {
        if (type == String.class)
        {
            return PUT_STRING;
        }
        // put(buffer, position, value), then position + width
        final MethodHandle after = MethodHandles.dropArguments(
            MethodHandles.insertArguments(PLUS, 1, FixedLayoutRecordCodec.width(type)), 0, CodecBuffer.class);
        return MethodHandles.foldArguments(MethodHandles.dropArguments(after, 2, type),
            FixedLayoutRecordCodec.writer(type));
    }

    /** @return {@code (CodecBuffer, int position, int limit) T}: the value at the position. */
    private static MethodHandle getter(final Class<?> type, final String typeName, final String name)
        throws ReflectiveOperationException
    {
        if (type == String.class)
        {
            return MethodHandles.insertArguments(GET_STRING, 0, typeName, name);
        }
        return MethodHandles.dropArguments(FixedLayoutRecordCodec.reader(type), 2, int.class);
    }

    /** @return {@code (CodecBuffer, int position, int limit) int}: the position after the value. */
    private static MethodHandle end(final Class<?> type, final String typeName, final String name)
    {
        if (type == String.class)
        {
            return MethodHandles.insertArguments(STRING_END, 0, typeName, name);
        }
        return MethodHandles.dropArguments(
            MethodHandles.dropArguments(
                MethodHandles.insertArguments(PLUS, 1, FixedLayoutRecordCodec.width(type)), 1, int.class),
            0, CodecBuffer.class);
    }

    static int putString(final CodecBuffer buffer, final int position, final String value)
    {
        if (value == null)
        {
            buffer.putByte(position, ABSENT);
            return position + 1;
        }
        buffer.putByte(position, PRESENT);
        return position + 1 + StringCodec.INSTANCE.encode(value, buffer, position + 1);
    }

    static String getString(
        final String typeName, final String name, final CodecBuffer buffer, final int position, final int limit)
    {
        final int end = stringEnd(typeName, name, buffer, position, limit);
        return end == position + 1 ? null : StringCodec.INSTANCE.decode(buffer, position + 1, end - position - 1);
    }

    /** @return the position after the string component at {@code position}: after its presence byte when null. */
    static int stringEnd(
        final String typeName, final String name, final CodecBuffer buffer, final int position, final int limit)
    {
        final byte presence = buffer.getByte(position);
        if (presence == ABSENT)
        {
            return position + 1;
        }
        if (presence != PRESENT)
        {
            throw new IllegalArgumentException("corrupt " + typeName + ": component '" + name + "' has presence byte " +
                presence + " (expected 0 or 1)");
        }
        final int length = StringCodec.INSTANCE.encodedLength(buffer, position + 1);
        if (length < 0 || length > limit - position - 1)
        {
            throw new IllegalArgumentException("corrupt " + typeName + ": component '" + name + "' claims " + length +
                " bytes at offset " + (position + 1) + " but the record ends at " + limit);
        }
        return position + 1 + length;
    }

    static void checkEnd(final String typeName, final int end, final int limit)
    {
        if (end != limit)
        {
            throw new IllegalArgumentException("corrupt " + typeName + ": its components end at offset " + end +
                ", but the record ends at " + limit);
        }
    }
}
