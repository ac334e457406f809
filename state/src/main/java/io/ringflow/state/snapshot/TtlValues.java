package io.ringflow.state.snapshot;

import io.ringflow.state.codec.CodecBuffer;

/**
 * The time-to-live prefix of a stored value: every value of a state declared with a time-to-live, in both keyed
 * backends and in snapshots, is the time it was last written (or, with update-on-read, last read or written) followed
 * by the value as before.
 *
 * <pre>
 *   0                                8
 *   +--------------------------------+-----------------------------------------------+
 *   | timestamp, epoch millis        | value, as its kind stores it without TTL       |
 *   | (long, little-endian)          | (codec bytes; a list in ListCodec's format)    |
 *   +--------------------------------+-----------------------------------------------+
 * </pre>
 *
 * Little-endian like the codecs: the prefix is part of the value bytes, which the codecs own. A snapshot says in
 * {@link StateMeta#timeToLive()} whether its values carry the prefix; a MAP state carries one per user key (in each
 * entry's value), every other kind one per key.
 */
public final class TtlValues
{
    /** Bytes of the prefix; where the value starts. */
    public static final int PREFIX_LENGTH = Long.BYTES;

    private TtlValues()
    {
    }

    /**
     * @param buffer    a stored value.
     * @param offset    where it starts.
     * @param timestamp the epoch millis to write.
     */
    public static void putTimestamp(final CodecBuffer buffer, final int offset, final long timestamp)
    {
        buffer.putLong(offset, timestamp);
    }

    /**
     * @param buffer a stored value.
     * @param offset where it starts.
     * @return its timestamp.
     */
    public static long timestamp(final CodecBuffer buffer, final int offset)
    {
        return buffer.getLong(offset);
    }

    /**
     * @param bytes  a stored value.
     * @param offset where it starts.
     * @return its timestamp.
     */
    public static long timestamp(final byte[] bytes, final int offset)
    {
        long value = 0;
        for (int i = PREFIX_LENGTH - 1; i >= 0; i--)
        {
            value = value << 8 | (bytes[offset + i] & 0xFF);
        }
        return value;
    }

    /**
     * The one expiry rule of both backends: a value written at {@code timestamp} is visible while
     * {@code now < timestamp + ttlMillis}.
     *
     * @param timestamp the value's timestamp.
     * @param ttlMillis the time-to-live, positive.
     * @param now       the time now, from the state's clock.
     * @return whether the value has expired.
     */
    public static boolean isExpired(final long timestamp, final long ttlMillis, final long now)
    {
        return now - timestamp >= ttlMillis;
    }
}
