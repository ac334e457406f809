package io.ringflow.state.checkpoint;

import io.ringflow.state.codec.CodecBuffer;

import java.nio.ByteBuffer;

/**
 * The format of a channel state file: the in-flight records an unaligned checkpoint stored for one task, per input
 * channel, exactly as they sat in the ring slots (Chandy-Lamport's recorded channel messages).
 *
 * <pre>
 *   magic "RFCS" (int) | version (int) | channel count (int)
 *   per channel: input index (int: 0, or 1 for a two-input operator's second input) | record count (int)
 *                per record: length (int) | event-time timestamp (long; Long.MIN_VALUE: none) | bytes
 *                            (version 2: length (int) | bytes, without a timestamp)
 * </pre>
 *
 * All integers big-endian; the records' own bytes are their codecs', little-endian. The engine writes it (its
 * {@code ChannelStateRecorder}); the engine's restore and the checkpoint tools read it through {@link #read}.
 */
public final class ChannelStateFormat
{
    /** "RFCS". */
    public static final int MAGIC = 0x52464353;
    /** 3: each record carries its timestamp; 2 (still read): none; 1 (refused): channels had no input index. */
    public static final int VERSION = 3;
    /** The oldest version this build reads. */
    public static final int OLDEST_READABLE_VERSION = 2;
    /** The timestamp of a record that has none. */
    public static final long NO_TIMESTAMP = Long.MIN_VALUE;
    /** Bytes before the first channel. */
    public static final int HEADER_LENGTH = 12;

    private ChannelStateFormat()
    {
    }

    /** Receives a channel state's structure and records, in file order. */
    public interface Visitor
    {
        /**
         * Called once, before any channel.
         *
         * @param count how many input channels the file holds.
         */
        default void channels(final int count)
        {
        }

        /**
         * Called at the start of each channel, before its records.
         *
         * @param channel    the channel's position in the file.
         * @param inputIndex the operator input it feeds.
         * @param records    how many records follow.
         */
        default void channel(final int channel, final int inputIndex, final int records)
        {
        }

        /**
         * @param channel   the channel the record was in flight on.
         * @param timestamp the record's event-time timestamp, or {@link #NO_TIMESTAMP}.
         * @param bytes     the buffer holding it (little-endian, as codecs read).
         * @param offset    where it starts.
         * @param length    its encoded length.
         */
        default void record(final int channel, final long timestamp, final CodecBuffer bytes, final int offset,
            final int length)
        {
        }
    }

    /**
     * Checks the header and every length, and visits the file.
     *
     * @param data    the file's bytes, already checked against its handle's length and checksum.
     * @param file    its name, for messages.
     * @param visitor receives channels and records.
     * @throws CorruptCheckpointException when it is not a channel state file of this version, or a length is wrong.
     */
    public static void read(final byte[] data, final String file, final Visitor visitor)
    {
        final ByteBuffer in = ByteBuffer.wrap(data);
        final CodecBuffer records = CodecBuffer.wrap(data);
        if (data.length < HEADER_LENGTH || in.getInt(0) != MAGIC)
        {
            throw new CorruptCheckpointException(file, "not a Ringflow channel state file");
        }
        final int version = in.getInt(4);
        if (version < OLDEST_READABLE_VERSION || version > VERSION)
        {
            throw new CorruptCheckpointException(file, "channel state format version " + version +
                ", this build reads " + OLDEST_READABLE_VERSION + " to " + VERSION);
        }
        final int stampLength = version >= 3 ? 8 : 0;
        final int stored = in.getInt(8);
        if (stored < 0)
        {
            throw new CorruptCheckpointException(file, "negative channel count " + stored);
        }
        visitor.channels(stored);
        int at = HEADER_LENGTH;
        for (int c = 0; c < stored; c++)
        {
            final int input = readInt(in, at, file);
            final int count = readInt(in, at + 4, file);
            if (count < 0)
            {
                throw new CorruptCheckpointException(file, "negative record count " + count + " at offset " + at);
            }
            visitor.channel(c, input, count);
            at += 8;
            for (int r = 0; r < count; r++)
            {
                final int length = readInt(in, at, file);
                if (length < 0 || at + 4L + stampLength + length > data.length)
                {
                    throw new CorruptCheckpointException(file, "record length " + length + " at offset " + at);
                }
                final long timestamp = stampLength == 0 ? NO_TIMESTAMP : in.getLong(at + 4);
                visitor.record(c, timestamp, records, at + 4 + stampLength, length);
                at += 4 + stampLength + length;
            }
        }
        if (at != data.length)
        {
            throw new CorruptCheckpointException(file, (data.length - at) + " unexpected bytes at the end");
        }
    }

    private static int readInt(final ByteBuffer in, final int at, final String file)
    {
        if (at < 0 || at + 4 > in.capacity())
        {
            throw new CorruptCheckpointException(file, "ends early at offset " + at);
        }
        return in.getInt(at);
    }
}
