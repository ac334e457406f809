package io.ringflow.state.codec;

import java.util.Objects;

/**
 * Codec for one enum type. Format: the constant's {@link Enum#ordinal() ordinal} as a 4-byte little-endian
 * {@code int}. Reordering, inserting before, or removing constants therefore changes what stored bytes mean; append
 * new constants at the end.
 *
 * <p>Immutable and thread-safe. Encoding and decoding allocate nothing: the constants are copied once, when the
 * codec is created.
 *
 * @param <E> the enum type.
 */
public final class EnumCodec<E extends Enum<E>> implements Codec<E>, SelfDelimiting
{
    /**
     * Number of bytes every encoded value occupies.
     */
    public static final int SIZE = Integer.BYTES;

    private final Class<E> type;
    private final E[] constants;

    private EnumCodec(final Class<E> type)
    {
        this.type = type;
        this.constants = type.getEnumConstants();
    }

    /**
     * Creates a codec for {@code type}. Prefer {@link CodecRegistry#codecFor}, which creates one per type and caches
     * it.
     *
     * @param type an enum class (not the class of a constant with a body).
     * @param <E>  the enum type.
     * @return a new codec.
     * @throws IllegalArgumentException when {@code type} is not an enum class.
     */
    public static <E extends Enum<E>> EnumCodec<E> of(final Class<E> type)
    {
        Objects.requireNonNull(type, "type");
        if (!type.isEnum())
        {
            throw new IllegalArgumentException(type.getName() + " is not an enum class");
        }
        return new EnumCodec<>(type);
    }

    @Override
    public Class<E> type()
    {
        return type;
    }

    @Override
    public int encode(final E value, final CodecBuffer buffer, final int offset)
    {
        buffer.putInt(offset, value.ordinal());
        return SIZE;
    }

    /**
     * @throws IllegalArgumentException when {@code length} is not {@link #SIZE} or the ordinal names no constant of
     *                                  this enum type.
     */
    @Override
    public E decode(final CodecBuffer buffer, final int offset, final int length)
    {
        CodecSupport.checkLength(length, SIZE, type);
        final int ordinal = buffer.getInt(offset);
        if (ordinal < 0 || ordinal >= constants.length)
        {
            throw new IllegalArgumentException(
                "ordinal " + ordinal + " is not a constant of enum " + type.getName() + ", which has " +
                constants.length + " constants (ordinals 0.." + (constants.length - 1) + ")");
        }
        return constants[ordinal];
    }

    /**
     * @return {@link #SIZE}, whatever the bytes.
     */
    @Override
    public int encodedLength(final CodecBuffer buffer, final int offset)
    {
        return SIZE;
    }

    @Override
    public String toString()
    {
        return "EnumCodec[" + type.getName() + "]";
    }
}
