package io.ringflow.engine.channel;

/**
 * Layout of one ring slot. Every slot of a channel has the same fixed size and lives off-heap; the Disruptor's
 * preallocated event objects are flyweights over it ({@link Slot}).
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                           kind                                |  RECORD, BARRIER, END_OF_INPUT, WATERMARK
 *  +---------------------------------------------------------------+
 *  |                      payload length                           |  bytes used after the header
 *  +---------------------------------------------------------------+
 *  |                          payload                             ...  record: the codec's bytes
 *  ...                                                             |
 *  +---------------------------------------------------------------+
 *
 *  BARRIER payload:      checkpoint id (long) | barrier type (int) | padding (int) | trigger time, epoch ms (long)
 *  WATERMARK payload:    event time (long)  -- reserved for the event-time issue
 *  END_OF_INPUT payload: none
 * </pre>
 *
 * A slot is written completely by the producer before its sequence is published, and read only after the consumer
 * has seen the publication, so the header needs no ordering of its own.
 */
public final class SlotDescriptor
{
    /** Offset of the kind field. */
    public static final int KIND_OFFSET = 0;
    /** Offset of the payload length field. */
    public static final int LENGTH_OFFSET = 4;
    /** Size of the header in front of the payload. */
    public static final int HEADER_LENGTH = 8;

    /** Offset of the checkpoint id inside a barrier's payload. */
    public static final int BARRIER_CHECKPOINT_ID_OFFSET = 0;
    /** Offset of the barrier type inside a barrier's payload. */
    public static final int BARRIER_TYPE_OFFSET = 8;
    /** Offset of the trigger timestamp inside a barrier's payload. */
    public static final int BARRIER_TIMESTAMP_OFFSET = 16;
    /** Length of a barrier's payload. */
    public static final int BARRIER_PAYLOAD_LENGTH = 24;

    /** Smallest slot accepted: the header plus a barrier. */
    public static final int MIN_SLOT_SIZE = HEADER_LENGTH + BARRIER_PAYLOAD_LENGTH;

    private SlotDescriptor()
    {
    }

    /**
     * @param slotSize the size of a whole slot.
     * @return how many payload bytes such a slot holds.
     */
    public static int payloadCapacity(final int slotSize)
    {
        return slotSize - HEADER_LENGTH;
    }
}
