package io.ringflow.state.chronicle;

import net.openhft.chronicle.bytes.RandomDataInput;
import net.openhft.chronicle.hash.AbstractData;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.hash.serialization.DataAccess;
import net.openhft.chronicle.wire.WireIn;
import net.openhft.chronicle.wire.WireOut;

/**
 * How Chronicle Map reads the bytes of an {@link EncodedBytes} it is given as a key or value: straight from the
 * slot's array, with no copy into an intermediate buffer and no allocation.
 *
 * <p>Thread contract: Chronicle Map {@link #copy() copies} a data access for each of its per-thread contexts, so an
 * instance is only ever used by one thread.
 */
final class EncodedBytesAccess extends AbstractData<EncodedBytes> implements DataAccess<EncodedBytes>
{
    private transient EncodedBytes slot;

    @Override
    public Data<EncodedBytes> getData(final EncodedBytes instance)
    {
        slot = instance;
        return this;
    }

    @Override
    public void uninit()
    {
        slot = null;
    }

    @Override
    public DataAccess<EncodedBytes> copy()
    {
        return new EncodedBytesAccess();
    }

    @Override
    public RandomDataInput bytes()
    {
        return slot.store();
    }

    @Override
    public long offset()
    {
        return 0;
    }

    @Override
    public long size()
    {
        return slot.length();
    }

    @Override
    public EncodedBytes get()
    {
        return slot;
    }

    @Override
    public EncodedBytes getUsing(final EncodedBytes using)
    {
        final EncodedBytes target = using != null ? using : new EncodedBytes(slot.length());
        target.copyFrom(slot.array(), 0, slot.length());
        return target;
    }

    @Override
    public void readMarshallable(final WireIn wire)
    {
        // stateless: nothing is configured
    }

    @Override
    public void writeMarshallable(final WireOut wire)
    {
        // stateless: nothing is configured
    }
}
