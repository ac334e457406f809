package io.ringflow.state.codec;

import java.lang.constant.ConstantDescs;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;

/**
 * Template of the codecs {@link DelimitedLayoutRecordCodec} spins: never loaded as itself. Its bytes are defined
 * again as one hidden class per record type, whose class data holds that record's encoder and decoder method handles;
 * static final fields of a hidden class are constants to the JIT, so each spun codec compiles to straight-line code
 * for its record, with no per-component dispatch, no boxes and no array of constructor arguments.
 *
 * <p>Class data, by index: 0 the encoder {@code (Object record, CodecBuffer, int offset) int}, returning the position
 * after the last component; 1 the decoder {@code (CodecBuffer, int offset, int limit) Object}, which checks that the
 * components end exactly at {@code limit} before it constructs the record; 2 the size of the fixed part (primitives
 * and presence bytes, Integer); 3 the record class.
 */
final class DelimitedLayoutTemplate implements Codec<Object>
{
    private static final MethodHandle ENCODER;
    private static final MethodHandle DECODER;
    private static final int MINIMUM_SIZE;
    private static final Class<Object> TYPE;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            ENCODER = MethodHandles.classDataAt(lookup, ConstantDescs.DEFAULT_NAME, MethodHandle.class, 0);
            DECODER = MethodHandles.classDataAt(lookup, ConstantDescs.DEFAULT_NAME, MethodHandle.class, 1);
            MINIMUM_SIZE = MethodHandles.classDataAt(lookup, ConstantDescs.DEFAULT_NAME, Integer.class, 2);
            @SuppressWarnings("unchecked")
            final Class<Object> type = MethodHandles.classDataAt(lookup, ConstantDescs.DEFAULT_NAME, Class.class, 3);
            TYPE = type;
        }
        catch (final IllegalAccessException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    @Override
    public Class<Object> type()
    {
        return TYPE;
    }

    @Override
    public int encode(final Object value, final CodecBuffer buffer, final int offset)
    {
        if (!buffer.reserve(offset, MINIMUM_SIZE))
        {
            // a fixed window too small even for the fixed-size part: nothing written, the window marked overflowed
            return MINIMUM_SIZE;
        }
        try
        {
            return (int)ENCODER.invokeExact(value, buffer, offset) - offset;
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("encoding " + TYPE.getName(), ex);
        }
    }

    @Override
    public Object decode(final CodecBuffer buffer, final int offset, final int length)
    {
        try
        {
            return (Object)DECODER.invokeExact(buffer, offset, offset + length);
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IllegalArgumentException("the canonical constructor of " + TYPE.getName() +
                " refused the decoded components", ex);
        }
    }

    @Override
    public String toString()
    {
        return "DelimitedLayoutRecordCodec[" + TYPE.getName() + "]";
    }
}
