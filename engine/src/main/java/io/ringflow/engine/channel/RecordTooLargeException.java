package io.ringflow.engine.channel;

/**
 * A record's encoding does not fit in a ring slot. Nothing was truncated: the record was not sent.
 */
public final class RecordTooLargeException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param channel         the channel it was written to.
     * @param type            the record's type.
     * @param encodedLength   how many bytes it encodes to.
     * @param payloadCapacity how many bytes of a slot's payload the record may take.
     * @param reserved        payload bytes the slot also carries for the record (its key), 0 when none.
     */
    public RecordTooLargeException(final String channel, final Class<?> type, final int encodedLength,
        final int payloadCapacity, final int reserved)
    {
        super("a record of type " + type.getName() + " encodes to " + encodedLength + " bytes but a slot of channel " +
            channel + " holds at most " + payloadCapacity + " payload bytes" +
            (reserved > 0 ? " for it (" + reserved + " more carry its key)" : "") +
            "; raise JobConfig slotSize to at least " +
            (encodedLength + reserved + SlotDescriptor.HEADER_LENGTH) + " (rounded up to a multiple of 8)");
    }
}
