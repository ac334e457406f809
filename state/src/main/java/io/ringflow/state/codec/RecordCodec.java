package io.ringflow.state.codec;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.RecordComponent;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * Codec for a Java record, derived once from the record class: its components are read through generated accessors
 * and it is rebuilt through its canonical constructor. Obtain one from {@link CodecRegistry#codecFor} or
 * {@link #of(Class, CodecRegistry)}; the registry derives each record type once and caches it.
 *
 * <p>Format (version 1): the components in declaration order, nothing before, between or after them.
 * <ul>
 *   <li>A primitive component is written in the format of its built-in codec, with no presence flag:
 *   {@code long}/{@code double} 8 bytes, {@code int}/{@code float} 4, {@code short}/{@code char} 2,
 *   {@code byte}/{@code boolean} 1, all little-endian.</li>
 *   <li>A reference component starts with a presence byte: {@code 0} for null, after which nothing follows, or
 *   {@code 1}, followed by the value:
 *   <ul>
 *     <li>a box, {@code String}, {@code byte[]} or enum in its built-in codec's format (which is self-delimiting);</li>
 *     <li>a record with a derived codec as its own components, inline, in this same format;</li>
 *     <li>any other type (a codec registered with {@link CodecRegistry#register}) as a 4-byte little-endian length
 *     followed by that codec's bytes.</li>
 *   </ul></li>
 *   <li>A primitive component whose wrapper type has a registered codec is boxed and written as length plus that
 *   codec's bytes, with no presence flag.</li>
 * </ul>
 *
 * <p>Allocation: encoding allocates nothing and boxes nothing. Decoding allocates the record, one {@code Object[]}
 * per record (nested ones included) for the constructor arguments, the boxes of primitive components, and whatever
 * the component codecs return. A record whose components are all primitives, or primitives and {@code String}s, is
 * handed out by the registry as a spun codec of the same format ({@link #preferred()}) that allocates only the record
 * and its strings.
 *
 * <p>Bounds: nothing is ever written at or past {@code buffer.capacity()}. A record that cannot fit even its
 * fixed-size part (primitives and presence bytes) is refused before anything is written (the fixed window is marked
 * {@link CodecBuffer#overflowed() overflowed}); one whose variable-size components (strings, arrays, nested records)
 * do not fit is written as far as it fits, marking the window overflowed and leaving the bytes between
 * {@code offset} and the capacity undefined. So when every component is primitive, nothing is written on failure.
 *
 * <p>Thread-safety: immutable once derived; one instance may encode and decode on many threads at once.
 *
 * @param <T> the record type.
 */
public final class RecordCodec<T extends Record> implements Codec<T>
{
    /**
     * Reads a {@code float} component without boxing. Public only because the generated accessors live in the
     * record's own package and must be able to implement it; not meant for other use.
     *
     * @param <R> the record type.
     */
    @FunctionalInterface
    public interface ToFloatFunction<R>
    {
        /**
         * @param record the record.
         * @return the component value.
         */
        float applyAsFloat(R record);
    }

    private static final byte ABSENT = 0;
    private static final byte PRESENT = 1;
    private static final int LENGTH_SIZE = Integer.BYTES;

    private final Class<T> type;

    // Set once by initialize(), before the registry publishes this codec through a ConcurrentHashMap (which makes
    // them visible to every thread that gets the codec from the registry). Not final because a record that refers
    // to itself needs this codec to exist while its components are being derived.
    private Component[] components;
    private MethodHandle constructor;
    private int minimumSize;
    /**
     * The spun codec when every component is a primitive or a {@code String} in its built-in format
     * ({@link FixedLayoutRecordCodec} for primitives only, {@link DelimitedLayoutRecordCodec} with strings), else null.
     */
    private Codec<T> fixedLayout;
    private int generatedReaders;

    RecordCodec(final Class<T> type)
    {
        this.type = type;
    }

    /**
     * Returns the codec derived from {@code type}'s components, resolved through {@code registry}; the same instance
     * on every call with the same registry. Unlike {@link CodecRegistry#codecFor}, a codec registered for
     * {@code type} itself is ignored (codecs registered for its components are used). Freezes the registry.
     *
     * @param type     a record class.
     * @param registry resolves the component types.
     * @param <T>      the record type.
     * @return the derived codec.
     * @throws MissingCodecException    when a component type has no codec.
     * @throws IllegalArgumentException when {@code type} is not a record class or its members are not accessible.
     */
    public static <T extends Record> RecordCodec<T> of(final Class<T> type, final CodecRegistry registry)
    {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(registry, "registry");
        if (!type.isRecord())
        {
            throw new IllegalArgumentException(type.getName() + " is not a record class");
        }
        return registry.recordCodec(type);
    }

    /**
     * Derives a codec for {@code type} whose components may only be built-in types, enums and records. Each call
     * derives afresh: keep the result.
     *
     * @see #of(Class, CodecRegistry)
     */
    public static <T extends Record> RecordCodec<T> of(final Class<T> type)
    {
        return of(type, CodecRegistry.withBuiltIns());
    }

    @Override
    public Class<T> type()
    {
        return type;
    }

    /**
     * @return 1, the format described in the class comment.
     */
    @Override
    public int version()
    {
        return 1;
    }

    @Override
    public int encode(final T value, final CodecBuffer buffer, final int offset)
    {
        if (!buffer.reserve(offset, minimumSize))
        {
            // a fixed window too small even for the fixed-size part: nothing written, the window marked overflowed
            return minimumSize;
        }
        return encodeComponents(value, buffer, offset) - offset;
    }

    /**
     * @throws IllegalArgumentException when the bytes are not a valid encoding of this record type, or the canonical
     *                                  constructor refuses the decoded components.
     */
    @Override
    public T decode(final CodecBuffer buffer, final int offset, final int length)
    {
        final int limit = offset + length;
        final Object[] values = new Object[components.length];
        final int end = decodeComponents(buffer, offset, limit, values);
        if (end != limit)
        {
            throw new IllegalArgumentException("corrupt " + type.getName() + ": its components take " +
                (end - offset) + " bytes, but " + length + " were given");
        }
        return construct(values);
    }

    @Override
    public String toString()
    {
        return "RecordCodec[" + type.getName() + "]";
    }

    /**
     * Derives the components; called once by the registry, with its lock held, before the codec is published.
     */
    void initialize(final CodecRegistry registry, final Map<Class<?>, RecordCodec<?>> inProgress)
    {
        final RecordComponent[] recordComponents = type.getRecordComponents();
        final MethodHandles.Lookup lookup = Accessors.privateLookup(type);
        final MethodHandles.Lookup lambdaLookup =
            registry.lambdaAccessors() && lookup != null && lookup.hasFullPrivilegeAccess() ? lookup : null;

        final Component[] derived = new Component[recordComponents.length];
        final Class<?>[] parameterTypes = new Class<?>[recordComponents.length];
        int fixedSize = 0;
        for (int i = 0; i < recordComponents.length; i++)
        {
            final RecordComponent recordComponent = recordComponents[i];
            final Class<?> componentType = recordComponent.getType();
            final Codec<?> codec;
            try
            {
                codec = registry.resolveLocked(CodecSupport.boxed(componentType), inProgress);
            }
            catch (final MissingCodecException ex)
            {
                throw MissingCodecException.forComponent(type, recordComponent, ex);
            }
            final MethodHandle getter = Accessors.getter(lookup, type, recordComponent);
            derived[i] = component(recordComponent, codec, getter, lambdaLookup);
            parameterTypes[i] = componentType;
            fixedSize += derived[i].fixedSize;
        }

        constructor = Accessors.constructor(lookup, type, parameterTypes);
        minimumSize = fixedSize;
        components = derived;
        fixedLayout = fixedLayout(recordComponents, parameterTypes, lookup);
    }

    /**
     * @return the codec to hand out: the spun codec when there is one (same bytes, no per-component
     *     dispatch), else this one.
     */
    Codec<T> preferred()
    {
        return fixedLayout != null ? fixedLayout : this;
    }

    private Codec<T> fixedLayout(
        final RecordComponent[] recordComponents, final Class<?>[] parameterTypes, final MethodHandles.Lookup lookup)
    {
        boolean allPrimitive = true;
        for (int i = 0; i < parameterTypes.length; i++)
        {
            if (parameterTypes[i] == String.class && components[i].isBuiltInString())
            {
                allPrimitive = false;
            }
            else if (!parameterTypes[i].isPrimitive() || FixedLayoutRecordCodec.width(parameterTypes[i]) == 0 ||
                !(components[i] instanceof PrimitiveComponent))
            {
                return null;
            }
        }
        if (lookup == null)
        {
            return null;
        }
        try
        {
            final MethodHandle[] getters = new MethodHandle[parameterTypes.length];
            for (int i = 0; i < getters.length; i++)
            {
                getters[i] = Accessors.getter(lookup, type, recordComponents[i]);
            }
            final MethodHandle canonical =
                lookup.findConstructor(type, java.lang.invoke.MethodType.methodType(void.class, parameterTypes));
            if (allPrimitive)
            {
                return FixedLayoutRecordCodec.create(type, parameterTypes, getters, canonical);
            }
            final String[] names = new String[parameterTypes.length];
            for (int i = 0; i < names.length; i++)
            {
                names[i] = recordComponents[i].getName();
            }
            return DelimitedLayoutRecordCodec.create(type, parameterTypes, names, getters, canonical, minimumSize);
        }
        catch (final ReflectiveOperationException | RuntimeException | LinkageError unavailable)
        {
            // Correct without it: the component-by-component path writes the same bytes.
            return null;
        }
    }

    private Component component(
        final RecordComponent recordComponent,
        final Codec<?> codec,
        final MethodHandle getter,
        final MethodHandles.Lookup lambdaLookup)
    {
        final Class<?> componentType = recordComponent.getType();
        final String name = recordComponent.getName();
        if (componentType.isPrimitive() && CodecRegistry.isBuiltIn(codec))
        {
            if (componentType == long.class)
            {
                return new LongComponent(name, generated(Accessors.longReader(lambdaLookup, type, getter)));
            }
            if (componentType == int.class)
            {
                return new IntComponent(name, generated(Accessors.intReader(lambdaLookup, type, getter)));
            }
            if (componentType == double.class)
            {
                return new DoubleComponent(name, generated(Accessors.doubleReader(lambdaLookup, type, getter)));
            }
            if (componentType == float.class)
            {
                return new FloatComponent(name, generated(Accessors.floatReader(lambdaLookup, type, getter)));
            }
            if (componentType == short.class)
            {
                return new ShortComponent(name, generated(Accessors.intReader(lambdaLookup, type, getter)));
            }
            if (componentType == byte.class)
            {
                return new ByteComponent(name, generated(Accessors.intReader(lambdaLookup, type, getter)));
            }
            if (componentType == char.class)
            {
                return new CharComponent(name, generated(Accessors.intReader(lambdaLookup, type, getter)));
            }
            return new BooleanComponent(name, generated(Accessors.booleanReader(lambdaLookup, type, getter)));
        }

        final Function<Object, Object> reader = generated(Accessors.referenceReader(lambdaLookup, type, getter));
        final boolean nullable = !componentType.isPrimitive();
        if (codec instanceof RecordCodec)
        {
            return new NestedComponent(name, reader, nullable, (RecordCodec<?>)codec);
        }
        if (codec instanceof SelfDelimiting)
        {
            return new DelimitedComponent(name, reader, nullable, codec, (SelfDelimiting)codec);
        }
        return new PrefixedComponent(name, reader, nullable, codec);
    }

    /**
     * Counts {@code reader} when it was spun by the lambda metafactory for the record rather than being the method
     * handle fallback (whose lambdas are nestmates of {@link Accessors}).
     */
    private <R> R generated(final R reader)
    {
        if (reader.getClass().getNestHost() != Accessors.class)
        {
            generatedReaders++;
        }
        return reader;
    }

    /**
     * For tests: whether every component is read through a lambda-metafactory accessor, not the method handle
     * fallback.
     */
    boolean readsThroughGeneratedAccessors()
    {
        return generatedReaders == components.length;
    }

    int encodeComponents(final Object record, final CodecBuffer buffer, final int offset)
    {
        int position = offset;
        for (final Component component : components)
        {
            position = component.encode(record, buffer, position);
        }
        return position;
    }

    int decodeComponents(final CodecBuffer buffer, final int offset, final int limit, final Object[] values)
    {
        final Component[] components = this.components;
        int position = offset;
        for (int i = 0; i < components.length; i++)
        {
            position = components[i].decode(buffer, position, limit, values, i);
        }
        return position;
    }

    int arity()
    {
        return components.length;
    }

    @SuppressWarnings("unchecked")
    T construct(final Object[] values)
    {
        try
        {
            return (T)(Object)constructor.invokeExact(values);
        }
        catch (final RuntimeException ex)
        {
            throw new IllegalArgumentException(
                "record " + type.getName() + " refused the decoded components: " + ex.getMessage(), ex);
        }
        catch (final Error error)
        {
            throw error;
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private IllegalArgumentException corrupt(final String component, final String problem)
    {
        return new IllegalArgumentException(
            "corrupt " + type.getName() + ": component '" + component + "' " + problem);
    }

    /**
     * Writes and reads one record component. Implementations are immutable.
     */
    private abstract static class Component
    {
        final String name;
        /** Bytes this component always takes, whatever its value. */
        final int fixedSize;

        Component(final String name, final int fixedSize)
        {
            this.name = name;
            this.fixedSize = fixedSize;
        }

        /**
         * @return the position after the bytes written.
         */
        /** @return whether this is a {@code String} component in {@link StringCodec}'s format. */
        boolean isBuiltInString()
        {
            return false;
        }

        abstract int encode(Object record, CodecBuffer buffer, int position);

        /**
         * Stores the decoded value in {@code values[index]}, boxed when primitive.
         *
         * @return the position after the bytes read.
         */
        abstract int decode(CodecBuffer buffer, int position, int limit, Object[] values, int index);
    }

    /** A primitive component written in its built-in fixed-width format. */
    private abstract static class PrimitiveComponent extends Component
    {
        PrimitiveComponent(final String name, final int fixedSize)
        {
            super(name, fixedSize);
        }
    }

    private static final class LongComponent extends PrimitiveComponent
    {
        private final ToLongFunction<Object> reader;

        LongComponent(final String name, final ToLongFunction<Object> reader)
        {
            super(name, Long.BYTES);
            this.reader = reader;
        }

        @Override
        int encode(final Object record, final CodecBuffer buffer, final int position)
        {
            buffer.putLong(position, reader.applyAsLong(record));
            return position + Long.BYTES;
        }

        @Override
        int decode(
            final CodecBuffer buffer, final int position, final int limit, final Object[] values, final int index)
        {
            values[index] = buffer.getLong(position);
            return position + Long.BYTES;
        }
    }

    private static final class IntComponent extends PrimitiveComponent
    {
        private final ToIntFunction<Object> reader;

        IntComponent(final String name, final ToIntFunction<Object> reader)
        {
            super(name, Integer.BYTES);
            this.reader = reader;
        }

        @Override
        int encode(final Object record, final CodecBuffer buffer, final int position)
        {
            buffer.putInt(position, reader.applyAsInt(record));
            return position + Integer.BYTES;
        }

        @Override
        int decode(
            final CodecBuffer buffer, final int position, final int limit, final Object[] values, final int index)
        {
            values[index] = buffer.getInt(position);
            return position + Integer.BYTES;
        }
    }

    private static final class ShortComponent extends PrimitiveComponent
    {
        private final ToIntFunction<Object> reader;

        ShortComponent(final String name, final ToIntFunction<Object> reader)
        {
            super(name, Short.BYTES);
            this.reader = reader;
        }

        @Override
        int encode(final Object record, final CodecBuffer buffer, final int position)
        {
            buffer.putShort(position, (short)reader.applyAsInt(record));
            return position + Short.BYTES;
        }

        @Override
        int decode(
            final CodecBuffer buffer, final int position, final int limit, final Object[] values, final int index)
        {
            values[index] = buffer.getShort(position);
            return position + Short.BYTES;
        }
    }

    private static final class ByteComponent extends PrimitiveComponent
    {
        private final ToIntFunction<Object> reader;

        ByteComponent(final String name, final ToIntFunction<Object> reader)
        {
            super(name, Byte.BYTES);
            this.reader = reader;
        }

        @Override
        int encode(final Object record, final CodecBuffer buffer, final int position)
        {
            buffer.putByte(position, (byte)reader.applyAsInt(record));
            return position + Byte.BYTES;
        }

        @Override
        int decode(
            final CodecBuffer buffer, final int position, final int limit, final Object[] values, final int index)
        {
            values[index] = buffer.getByte(position);
            return position + Byte.BYTES;
        }
    }

    private static final class CharComponent extends PrimitiveComponent
    {
        private final ToIntFunction<Object> reader;

        CharComponent(final String name, final ToIntFunction<Object> reader)
        {
            super(name, Character.BYTES);
            this.reader = reader;
        }

        @Override
        int encode(final Object record, final CodecBuffer buffer, final int position)
        {
            buffer.putChar(position, (char)reader.applyAsInt(record));
            return position + Character.BYTES;
        }

        @Override
        int decode(
            final CodecBuffer buffer, final int position, final int limit, final Object[] values, final int index)
        {
            values[index] = buffer.getChar(position);
            return position + Character.BYTES;
        }
    }

    private static final class BooleanComponent extends PrimitiveComponent
    {
        private final Predicate<Object> reader;

        BooleanComponent(final String name, final Predicate<Object> reader)
        {
            super(name, BooleanCodec.SIZE);
            this.reader = reader;
        }

        @Override
        int encode(final Object record, final CodecBuffer buffer, final int position)
        {
            return position + BooleanCodec.write(buffer, position, reader.test(record));
        }

        @Override
        int decode(
            final CodecBuffer buffer, final int position, final int limit, final Object[] values, final int index)
        {
            values[index] = BooleanCodec.read(buffer, position);
            return position + BooleanCodec.SIZE;
        }
    }

    private static final class DoubleComponent extends PrimitiveComponent
    {
        private final ToDoubleFunction<Object> reader;

        DoubleComponent(final String name, final ToDoubleFunction<Object> reader)
        {
            super(name, Double.BYTES);
            this.reader = reader;
        }

        @Override
        int encode(final Object record, final CodecBuffer buffer, final int position)
        {
            buffer.putDouble(position, reader.applyAsDouble(record));
            return position + Double.BYTES;
        }

        @Override
        int decode(
            final CodecBuffer buffer, final int position, final int limit, final Object[] values, final int index)
        {
            values[index] = buffer.getDouble(position);
            return position + Double.BYTES;
        }
    }

    private static final class FloatComponent extends PrimitiveComponent
    {
        private final ToFloatFunction<Object> reader;

        FloatComponent(final String name, final ToFloatFunction<Object> reader)
        {
            super(name, Float.BYTES);
            this.reader = reader;
        }

        @Override
        int encode(final Object record, final CodecBuffer buffer, final int position)
        {
            buffer.putFloat(position, reader.applyAsFloat(record));
            return position + Float.BYTES;
        }

        @Override
        int decode(
            final CodecBuffer buffer, final int position, final int limit, final Object[] values, final int index)
        {
            values[index] = buffer.getFloat(position);
            return position + Float.BYTES;
        }
    }

    /**
     * A component read as an object: a reference component (with a presence byte) or a primitive one whose codec was
     * registered by the user (boxed, no presence byte).
     */
    private abstract class ValueComponent extends Component
    {
        private final Function<Object, Object> reader;
        private final boolean nullable;

        /**
         * @param prefixSize bytes written before every non-null value (a length prefix), whatever the value.
         */
        ValueComponent(
            final String name, final Function<Object, Object> reader, final boolean nullable, final int prefixSize)
        {
            super(name, nullable ? 1 : prefixSize);
            this.reader = reader;
            this.nullable = nullable;
        }

        @Override
        final int encode(final Object record, final CodecBuffer buffer, final int position)
        {
            final Object value = reader.apply(record);
            if (!nullable)
            {
                return encodeValue(value, buffer, position);
            }
            if (value == null)
            {
                buffer.putByte(position, ABSENT);
                return position + 1;
            }
            buffer.putByte(position, PRESENT);
            return encodeValue(value, buffer, position + 1);
        }

        @Override
        final int decode(
            final CodecBuffer buffer, final int position, final int limit, final Object[] values, final int index)
        {
            if (!nullable)
            {
                return decodeValue(buffer, position, limit, values, index);
            }
            final byte presence = buffer.getByte(position);
            if (presence == ABSENT)
            {
                values[index] = null;
                return position + 1;
            }
            if (presence != PRESENT)
            {
                throw corrupt(name, "has presence byte " + presence + " (expected 0 or 1)");
            }
            return decodeValue(buffer, position + 1, limit, values, index);
        }

        abstract int encodeValue(Object value, CodecBuffer buffer, int position);

        abstract int decodeValue(CodecBuffer buffer, int position, int limit, Object[] values, int index);
    }

    /**
     * A value in a built-in codec's own, self-delimiting format.
     */
    private final class DelimitedComponent extends ValueComponent
    {
        private final Codec<Object> codec;
        private final SelfDelimiting framing;

        @SuppressWarnings("unchecked")
        DelimitedComponent(
            final String name,
            final Function<Object, Object> reader,
            final boolean nullable,
            final Codec<?> codec,
            final SelfDelimiting framing)
        {
            super(name, reader, nullable, 0);
            this.codec = (Codec<Object>)codec;
            this.framing = framing;
        }

        @Override
        boolean isBuiltInString()
        {
            return (Object)codec == StringCodec.INSTANCE;
        }

        @Override
        int encodeValue(final Object value, final CodecBuffer buffer, final int position)
        {
            return position + codec.encode(value, buffer, position);
        }

        @Override
        int decodeValue(
            final CodecBuffer buffer, final int position, final int limit, final Object[] values, final int index)
        {
            final int length = framing.encodedLength(buffer, position);
            if (length < 0 || length > limit - position)
            {
                throw corrupt(name, "claims " + length + " bytes at offset " + position + " but the record ends at " +
                    limit);
            }
            values[index] = codec.decode(buffer, position, length);
            return position + length;
        }
    }

    /**
     * A nested record with a derived codec, written inline.
     */
    private final class NestedComponent extends ValueComponent
    {
        private final RecordCodec<?> nested;

        NestedComponent(
            final String name,
            final Function<Object, Object> reader,
            final boolean nullable,
            final RecordCodec<?> nested)
        {
            super(name, reader, nullable, 0);
            this.nested = nested;
        }

        @Override
        int encodeValue(final Object value, final CodecBuffer buffer, final int position)
        {
            return nested.encodeComponents(value, buffer, position);
        }

        @Override
        int decodeValue(
            final CodecBuffer buffer, final int position, final int limit, final Object[] values, final int index)
        {
            final Object[] nestedValues = new Object[nested.arity()];
            final int end = nested.decodeComponents(buffer, position, limit, nestedValues);
            values[index] = nested.construct(nestedValues);
            return end;
        }
    }

    /**
     * A value in a codec that does not delimit itself (one registered by the user): 4-byte length, then the bytes.
     */
    private final class PrefixedComponent extends ValueComponent
    {
        private final Codec<Object> codec;

        @SuppressWarnings("unchecked")
        PrefixedComponent(
            final String name, final Function<Object, Object> reader, final boolean nullable, final Codec<?> codec)
        {
            super(name, reader, nullable, LENGTH_SIZE);
            this.codec = (Codec<Object>)codec;
        }

        @Override
        int encodeValue(final Object value, final CodecBuffer buffer, final int position)
        {
            final int length = codec.encode(value, buffer, position + LENGTH_SIZE);
            if (length < 0)
            {
                throw new IllegalStateException(codec + " returned a negative length " + length + " for component '" +
                    name + "' of " + type.getName());
            }
            buffer.putInt(position, length);
            return position + LENGTH_SIZE + length;
        }

        @Override
        int decodeValue(
            final CodecBuffer buffer, final int position, final int limit, final Object[] values, final int index)
        {
            final int length = buffer.getInt(position);
            final int start = position + LENGTH_SIZE;
            if (length < 0 || length > limit - start)
            {
                throw corrupt(
                    name, "claims " + length + " bytes at offset " + start + " but the record ends at " + limit);
            }
            values[index] = codec.decode(buffer, start, length);
            return start + length;
        }
    }
}
