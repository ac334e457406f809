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
     * @param payloadCapacity how many bytes a slot's payload holds.
     */
    public RecordTooLargeException(
        final String channel, final Class<?> type, final int encodedLength, final int payloadCapacity)
    {
        super("a record of type " + type.getName() + " encodes to " + encodedLength + " bytes but a slot of channel " +
            channel + " holds at most " + payloadCapacity + " payload bytes; raise JobConfig slotSize to at least " +
            (encodedLength + SlotDescriptor.HEADER_LENGTH) + " (rounded up to a multiple of 8)");
    }
}
