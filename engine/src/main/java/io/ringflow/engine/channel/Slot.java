package io.ringflow.engine.channel;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * The Disruptor event of a ring channel: a preallocated flyweight over one fixed-size off-heap slot. The producer
 * writes it between claim and publish; the consumer reads it between seeing the publication and releasing the
 * sequence. Nothing else touches it.
 */
public final class Slot
{
    private final UnsafeBuffer header;
    private final UnsafeBuffer payload;

    Slot(final long address, final int slotSize)
    {
        header = new UnsafeBuffer(address, SlotDescriptor.HEADER_LENGTH);
        payload = new UnsafeBuffer(address + SlotDescriptor.HEADER_LENGTH, SlotDescriptor.payloadCapacity(slotSize));
    }

    /** @return the slot kind, a {@link SlotKind} code. */
    public int kind()
    {
        return header.getInt(SlotDescriptor.KIND_OFFSET);
    }

    /** @return the number of payload bytes in use. */
    public int length()
    {
        return header.getInt(SlotDescriptor.LENGTH_OFFSET);
    }

    /**
     * The payload region; its capacity is the slot's payload capacity, so a codec that overruns it fails instead of
     * writing into the next slot.
     *
     * @return the payload buffer.
     */
    public UnsafeBuffer payload()
    {
        return payload;
    }

    void setHeader(final int kind, final int length)
    {
        header.putInt(SlotDescriptor.KIND_OFFSET, kind);
        header.putInt(SlotDescriptor.LENGTH_OFFSET, length);
    }
}
