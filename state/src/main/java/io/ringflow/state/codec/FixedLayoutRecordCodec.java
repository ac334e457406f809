package io.ringflow.state.codec;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;

/**
 * The fast path of {@link RecordCodec} for records whose components are all primitives: the layout is fixed (the
 * same bytes {@link RecordCodec} writes: each component little-endian at a constant offset, no flags), so encoding
 * and decoding compose into one method handle each, installed as constants of a hidden class spun from
 * {@link FixedLayoutTemplate}. Encoding neither boxes nor allocates; decoding allocates only the record.
 *
 * <p>Built once per record type in the JVM, at its first derivation, and shared by every registry afterwards (the
 * layout depends on the type alone), so every job of the JVM runs the same codec class and code the JIT compiled for
 * one still serves the next. Thread-safe.
 */
final class FixedLayoutRecordCodec
{
    private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();
    private static final byte[] TEMPLATE = SpunCodecs.templateBytes(FixedLayoutTemplate.class);
    private static final MethodHandle PLUS;

    static
    {
        try
        {
            PLUS = LOOKUP.findStatic(FixedLayoutRecordCodec.class, "plus",
                MethodType.methodType(int.class, int.class, int.class));
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private FixedLayoutRecordCodec()
    {
    }

    /**
     * @param type           the record class.
     * @param componentTypes its components' types, all primitive, in declaration order.
     * @param getters        the components' accessors, {@code (R) T}.
     * @param constructor    the canonical constructor.
     * @param <T>            the record type.
     * @return the codec spun for the type, the first time it was asked for, or null when a component is not
     *     primitive.
     * @throws ReflectiveOperationException when the hidden class cannot be defined.
     */
    static <T> Codec<T> create(
        final Class<T> type,
        final Class<?>[] componentTypes,
        final MethodHandle[] getters,
        final MethodHandle constructor) throws ReflectiveOperationException
    {
        return SpunCodecs.sharedFor(type, () -> spin(type, componentTypes, getters, constructor));
    }

    @SuppressWarnings("unchecked")
    private static <T> Codec<T> spin(
        final Class<T> type,
        final Class<?>[] componentTypes,
        final MethodHandle[] getters,
        final MethodHandle constructor) throws ReflectiveOperationException
    {
        final int n = componentTypes.length;
        final int[] offsets = new int[n];
        int size = 0;
        for (int i = 0; i < n; i++)
        {
            final int width = width(componentTypes[i]);
            if (width == 0)
            {
                return null;
            }
            offsets[i] = size;
            size += width;
        }

        // encoder: (CodecBuffer, int, Object) void, the components written in order
        MethodHandle encoder = null;
        for (int i = n - 1; i >= 0; i--)
        {
            MethodHandle put = writer(componentTypes[i]);
            put = MethodHandles.filterArguments(put, 1, MethodHandles.insertArguments(PLUS, 1, offsets[i]));
            put = MethodHandles.filterArguments(
                put, 2, getters[i].asType(MethodType.methodType(componentTypes[i], Object.class)));
            encoder = encoder == null ? put : MethodHandles.foldArguments(encoder, put);
        }
        if (encoder == null)
        {
            encoder = MethodHandles.empty(
                MethodType.methodType(void.class, CodecBuffer.class, int.class, Object.class));
        }
        encoder = MethodHandles.permuteArguments(encoder,
            MethodType.methodType(void.class, Object.class, CodecBuffer.class, int.class), 1, 2, 0);

        // decoder: (CodecBuffer, int) Object, the constructor fed by one reader per component
        MethodHandle decoder = constructor.asType(constructor.type().changeReturnType(Object.class));
        for (int i = n - 1; i >= 0; i--)
        {
            final MethodHandle get = MethodHandles.filterArguments(
                reader(componentTypes[i]), 1, MethodHandles.insertArguments(PLUS, 1, offsets[i]));
            decoder = MethodHandles.collectArguments(decoder, i, get);
        }
        final int[] reorder = new int[2 * n];
        for (int i = 0; i < n; i++)
        {
            reorder[2 * i] = 0;
            reorder[2 * i + 1] = 1;
        }
        final MethodType decoderType = MethodType.methodType(Object.class, CodecBuffer.class, int.class);
        decoder = n == 0 ? MethodHandles.dropArguments(decoder, 0, CodecBuffer.class, int.class) :
            MethodHandles.permuteArguments(decoder, decoderType, reorder);

        final MethodHandles.Lookup spun = LOOKUP.defineHiddenClassWithClassData(
            TEMPLATE, List.of(encoder, decoder, size, type), true);
        try
        {
            return (Codec<T>)spun.findConstructor(spun.lookupClass(), MethodType.methodType(void.class)).invoke();
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

    /**
     * @param type a component type.
     * @return its encoded width, or 0 when it is not a primitive.
     */
    static int width(final Class<?> type)
    {
        if (type == long.class || type == double.class)
        {
            return 8;
        }
        if (type == int.class || type == float.class)
        {
            return 4;
        }
        if (type == short.class || type == char.class)
        {
            return 2;
        }
        if (type == byte.class || type == boolean.class)
        {
            return 1;
        }
        return 0;
    }

    static int plus(final int offset, final int delta)
    {
        return offset + delta;
    }

    static void putBoolean(final CodecBuffer buffer, final int index, final boolean value)
    {
        buffer.putByte(index, value ? (byte)1 : (byte)0);
    }

    static boolean getBoolean(final CodecBuffer buffer, final int index)
    {
        final byte b = buffer.getByte(index);
        if (b != 0 && b != 1)
        {
            throw new IllegalArgumentException("corrupt boolean component: byte " + b + " is neither 0 nor 1");
        }
        return b == 1;
    }

    static MethodHandle writer(final Class<?> type) throws ReflectiveOperationException
    {
        if (type == boolean.class)
        {
            return LOOKUP.findStatic(FixedLayoutRecordCodec.class, "putBoolean",
                MethodType.methodType(void.class, CodecBuffer.class, int.class, boolean.class));
        }
        return LOOKUP.findVirtual(CodecBuffer.class, "put" + capitalized(type),
            MethodType.methodType(void.class, int.class, type));
    }

    static MethodHandle reader(final Class<?> type) throws ReflectiveOperationException
    {
        if (type == boolean.class)
        {
            return LOOKUP.findStatic(FixedLayoutRecordCodec.class, "getBoolean",
                MethodType.methodType(boolean.class, CodecBuffer.class, int.class));
        }
        return LOOKUP.findVirtual(CodecBuffer.class, "get" + capitalized(type), MethodType.methodType(type, int.class));
    }

    private static String capitalized(final Class<?> primitive)
    {
        final String name = primitive.getName();
        return Character.toUpperCase(name.charAt(0)) + name.substring(1);
    }
}
