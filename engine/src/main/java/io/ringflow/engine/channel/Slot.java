package io.ringflow.engine.channel;

import io.ringflow.state.codec.CodecBuffer;

import java.nio.ByteBuffer;

/**
 * The Disruptor event of a ring channel: a preallocated flyweight over one fixed-size off-heap slot. The producer
 * writes it between claim and publish; the consumer reads it between seeing the publication and releasing the
 * sequence. Nothing else touches it. Its header and payload are fixed {@link CodecBuffer} windows over the ring's
 * direct buffer.
 */
public final class Slot
{
    private final CodecBuffer header;
    private final CodecBuffer payload;

    Slot(final ByteBuffer slots, final int offset, final int slotSize)
    {
        header = CodecBuffer.wrap(slots, offset, SlotDescriptor.HEADER_LENGTH);
        payload = CodecBuffer.wrap(slots, offset + SlotDescriptor.HEADER_LENGTH,
            SlotDescriptor.payloadCapacity(slotSize));
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
     * The payload region; its capacity is the slot's payload capacity, so a codec that overruns it is stopped at its
     * end, and marks it {@link CodecBuffer#overflowed() overflowed}, instead of writing into the next slot.
     *
     * @return the payload window.
     */
    public CodecBuffer payload()
    {
        return payload;
    }

    void setHeader(final int kind, final int length)
    {
        header.putInt(SlotDescriptor.KIND_OFFSET, kind);
        header.putInt(SlotDescriptor.LENGTH_OFFSET, length);
    }
}
