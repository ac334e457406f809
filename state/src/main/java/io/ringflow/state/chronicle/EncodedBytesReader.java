package io.ringflow.state.chronicle;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.hash.serialization.SizedReader;
import net.openhft.chronicle.hash.serialization.impl.EnumMarshallable;

/**
 * How Chronicle Map copies a stored key or value out: into the {@link EncodedBytes} slot it is given, grown if the
 * bytes do not fit, so a read allocates nothing in steady state.
 *
 * <p>Stateless; one instance serves every thread.
 */
final class EncodedBytesReader implements SizedReader<EncodedBytes>, EnumMarshallable<EncodedBytesReader>
{
    /** The only instance. */
    static final EncodedBytesReader INSTANCE = new EncodedBytesReader();

    private EncodedBytesReader()
    {
    }

    @Override
    @SuppressWarnings("rawtypes")  // SizedReader declares a raw Bytes parameter
    public EncodedBytes read(final Bytes in, final long size, final EncodedBytes using)
    {
        if (size < 0 || size > Integer.MAX_VALUE - 8)
        {
            throw new IllegalStateException("a Chronicle Map entry claims " + size + " bytes: corrupt off-heap state");
        }
        final int length = (int)size;
        final EncodedBytes target = using != null ? using : new EncodedBytes(length);
        target.ensureCapacity(length);
        in.read(target.array(), 0, length);
        target.length(length);
        return target;
    }

    @Override
    public EncodedBytesReader readResolve()
    {
        return INSTANCE;
    }
}
