package io.ringflow.engine.channel;

/**
 * Layout of one ring slot. Every slot of a channel has the same fixed size; the slots lie back to back in one
 * off-heap region, slot {@code s} of a ring at byte {@code (s & mask) * slotSize}.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------+---------------+-------------------------------+
 *  |     kind      |     flags     |      key group (unsigned)     |  the header: one little-endian long
 *  +---------------+---------------+-------------------------------+
 *  |                       payload length                          |  bytes used after the header
 *  +---------------------------------------------------------------+
 *  |                          payload                             ...  record: the codec's bytes
 *  ...                                                             |
 *  +---------------------------------------------------------------+
 *
 *  kind:       RECORD, BARRIER, END_OF_INPUT, WATERMARK ({@link SlotKind})
 *  flags:      of a record: {@value #FLAG_TIMESTAMP} (TIMESTAMP): the payload starts with the record's event-time
 *              timestamp (8 bytes); {@value #FLAG_LONG_KEY} (LONG_KEY): the record was sent by a {@code Long} key, whose
 *              value follows (8 bytes, before the codec's bytes), so the consumer need not extract it again.
 *              Of a watermark: {@value #FLAG_IDLE} (IDLE): the channel is idle from here on, the payload is ignored;
 *              {@value #FLAG_ACTIVE} (ACTIVE): the channel is active again; neither: the payload is the watermark
 *  key group:  for a record sent by key, the key group of its key, computed once by the producer so the consumer
 *              never hashes the key again; {@value #NO_KEY_GROUP} otherwise
 *  BARRIER payload:      checkpoint id (long) | barrier kind (int) | padding (int) | trigger time, epoch ms (long)
 *  RECORD payload:       [timestamp (long)] [Long key (long)] codec's bytes, as the flags say
 *  WATERMARK payload:    event time (long): no record with a timestamp at or below it follows on this channel
 *  END_OF_INPUT payload: none
 * </pre>
 *
 * The header is written with one store and read with one load. A slot is written completely by the producer before
 * its sequence is published, and read only after the consumer has seen the publication, so the header needs no
 * ordering of its own.
 */
public final class SlotDescriptor
{
    /** Size of the header in front of the payload. */
    public static final int HEADER_LENGTH = 8;
    /** The key group field of a slot that was not sent by key. */
    public static final int NO_KEY_GROUP = 0xFFFF;

    /** Header flag: the payload starts with the record's {@code Long} key (see the layout). */
    public static final int FLAG_LONG_KEY = 1;
    /** Bytes the key takes in front of the record's bytes when {@link #FLAG_LONG_KEY} is set. */
    public static final int LONG_KEY_LENGTH = 8;
    /** Header flag of a record: the payload starts with the record's timestamp (see the layout). */
    public static final int FLAG_TIMESTAMP = 2;
    /** Bytes the timestamp takes at the start of the payload when {@link #FLAG_TIMESTAMP} is set. */
    public static final int TIMESTAMP_LENGTH = 8;
    /** Header flag of a watermark slot: the channel goes idle. */
    public static final int FLAG_IDLE = 4;
    /** Header flag of a watermark slot: the channel is active again. */
    public static final int FLAG_ACTIVE = 8;
    /** Length of a watermark's payload. */
    public static final int WATERMARK_PAYLOAD_LENGTH = 8;

    /** Offset of the checkpoint id inside a barrier's payload. */
    public static final int BARRIER_CHECKPOINT_ID_OFFSET = 0;
    /** Offset of the barrier kind inside a barrier's payload. */
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

    /**
     * @param kind     a {@link SlotKind} code.
     * @param keyGroup the key group, or {@link #NO_KEY_GROUP}.
     * @param length   the payload's length.
     * @return the header, as one long.
     */
    public static long header(final int kind, final int keyGroup, final int length)
    {
        return header(kind, 0, keyGroup, length);
    }

    /**
     * @param kind     a {@link SlotKind} code.
     * @param flags    {@link #FLAG_LONG_KEY} or 0.
     * @param keyGroup the key group, or {@link #NO_KEY_GROUP}.
     * @param length   the payload's length.
     * @return the header, as one long.
     */
    public static long header(final int kind, final int flags, final int keyGroup, final int length)
    {
        return (kind & 0xFFL) | (flags & 0xFFL) << 8 | (long)(keyGroup & 0xFFFF) << 16 | (long)length << 32;
    }

    /** @param header a header. @return whether the payload starts with the record's {@code Long} key. */
    public static boolean hasLongKey(final long header)
    {
        return (header & (FLAG_LONG_KEY << 8)) != 0;
    }

    /** @param header a header. @return whether a record's payload starts with its timestamp. */
    public static boolean hasTimestamp(final long header)
    {
        return (header & (FLAG_TIMESTAMP << 8)) != 0;
    }

    /** @param header a header. @return its flags. */
    public static int flags(final long header)
    {
        return (int)(header >>> 8) & 0xFF;
    }

    /** @param header a header. @return its kind. */
    public static int kind(final long header)
    {
        return (int)header & 0xFF;
    }

    /** @param header a header. @return its key group, or {@link #NO_KEY_GROUP}. */
    public static int keyGroup(final long header)
    {
        return (int)(header >>> 16) & 0xFFFF;
    }

    /** @param header a header. @return its payload's length. */
    public static int length(final long header)
    {
        return (int)(header >>> 32);
    }
}
