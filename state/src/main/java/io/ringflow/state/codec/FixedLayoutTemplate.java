package io.ringflow.state.codec;

import java.lang.constant.ConstantDescs;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;

/**
 * Template of the codecs {@link FixedLayoutRecordCodec} spins: never loaded as itself. Its bytes are defined again as
 * one hidden class per record type, whose class data holds that record's encoder and decoder method handles. Static
 * final fields of a hidden class are constants to the JIT, so each spun codec compiles to straight-line field reads
 * and stores, as if written by hand for its record.
 *
 * <p>Class data, by index: 0 the encoder {@code (Object record, CodecBuffer, int offset) void}, 1 the
 * decoder {@code (CodecBuffer, int offset) Object}, 2 the encoded size (Integer), 3 the record class.
 */
final class FixedLayoutTemplate implements Codec<Object>
{
    private static final MethodHandle ENCODER;
    private static final MethodHandle DECODER;
    private static final int SIZE;
    private static final Class<Object> TYPE;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            ENCODER = MethodHandles.classDataAt(lookup, ConstantDescs.DEFAULT_NAME, MethodHandle.class, 0);
            DECODER = MethodHandles.classDataAt(lookup, ConstantDescs.DEFAULT_NAME, MethodHandle.class, 1);
            SIZE = MethodHandles.classDataAt(lookup, ConstantDescs.DEFAULT_NAME, Integer.class, 2);
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
        if (!buffer.reserve(offset, SIZE))
        {
            // a fixed window too small: nothing written, the window marked overflowed
            return SIZE;
        }
        try
        {
            ENCODER.invokeExact(value, buffer, offset);
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("encoding " + TYPE.getName(), ex);
        }
        return SIZE;
    }

    @Override
    public Object decode(final CodecBuffer buffer, final int offset, final int length)
    {
        if (length != SIZE)
        {
            throw new IllegalArgumentException("corrupt " + TYPE.getName() + ": its components take " + SIZE +
                " bytes, but " + length + " were given");
        }
        try
        {
            return (Object)DECODER.invokeExact(buffer, offset);
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
    public int maxEncodedLength()
    {
        return SIZE;
    }

    @Override
    public String toString()
    {
        return "FixedLayoutRecordCodec{" + TYPE.getName() + ", " + SIZE + " bytes}";
    }
}
