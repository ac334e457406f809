package io.ringflow.state.codec;

/**
 * Helpers shared by the built-in codecs. Stateless; nothing here allocates except on the failure paths, which build
 * exception messages.
 */
final class CodecSupport
{
    private CodecSupport()
    {
    }

    /**
     * @throws IllegalArgumentException when a fixed-width value is asked to be decoded from the wrong number of bytes.
     */
    static void checkLength(final int length, final int expected, final Class<?> type)
    {
        if (length != expected)
        {
            throw new IllegalArgumentException(
                type.getName() + " values are encoded in " + expected + " bytes, not " + length);
        }
    }

    /**
     * @return the wrapper class of a primitive type, or {@code type} itself when it is not primitive.
     */
    static Class<?> boxed(final Class<?> type)
    {
        if (!type.isPrimitive())
        {
            return type;
        }
        if (type == long.class)
        {
            return Long.class;
        }
        if (type == int.class)
        {
            return Integer.class;
        }
        if (type == double.class)
        {
            return Double.class;
        }
        if (type == float.class)
        {
            return Float.class;
        }
        if (type == short.class)
        {
            return Short.class;
        }
        if (type == byte.class)
        {
            return Byte.class;
        }
        if (type == char.class)
        {
            return Character.class;
        }
        if (type == boolean.class)
        {
            return Boolean.class;
        }
        return Void.class;
    }
}
