package io.ringflow.engine.runtime.task;

import io.ringflow.state.checkpoint.ChannelStateFormat;
import io.ringflow.state.checkpoint.CorruptCheckpointException;
import io.ringflow.state.codec.CodecBuffer;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The channel state of one unaligned checkpoint at one task: per input channel, the encoded records that were in
 * flight across the checkpoint's cut (Chandy-Lamport's recorded channel messages), in channel order. Records are kept
 * exactly as they sat in the ring slots, so recording one is a copy of its bytes and restoring it is a decode. The
 * file format is {@link ChannelStateFormat}'s. Thread contract: the task thread.
 */
public final class ChannelStateRecorder
{
    static final int MAGIC = ChannelStateFormat.MAGIC;
    static final int VERSION = ChannelStateFormat.VERSION;

    final long checkpointId;
    private final int[] inputIndexes;
    private final CodecBuffer[] buffers;
    private final int[] lengths;
    private final int[] counts;
    private long records;

    ChannelStateRecorder(final long checkpointId, final int[] inputIndexes)
    {
        this.checkpointId = checkpointId;
        this.inputIndexes = inputIndexes;
        final int channels = inputIndexes.length;
        this.buffers = new CodecBuffer[channels];
        this.lengths = new int[channels];
        this.counts = new int[channels];
    }

    /**
     * Appends one in-flight record of a channel.
     *
     * @param channel   the input channel.
     * @param timestamp the record's timestamp, or NO_TIMESTAMP.
     * @param source    where the record's bytes are.
     * @param offset    where they start.
     * @param length    the record's encoded length.
     */
    void append(final int channel, final long timestamp, final CodecBuffer source, final int offset,
        final int length)
    {
        CodecBuffer buffer = buffers[channel];
        if (buffer == null)
        {
            buffer = buffers[channel] = CodecBuffer.growable(Math.max(256, length * 64));
        }
        final int at = lengths[channel];
        // big-endian in a little-endian buffer
        buffer.putInt(at, Integer.reverseBytes(length));
        buffer.putLong(at + 4, Long.reverseBytes(timestamp));
        buffer.putBytes(at + 12, source, offset, length);
        lengths[channel] = at + 12 + length;
        counts[channel]++;
        records++;
    }

    /** @return how many records were recorded. */
    long records()
    {
        return records;
    }

    /** @return the encoded channel state. */
    byte[] finish()
    {
        int total = 12;
        for (int c = 0; c < buffers.length; c++)
        {
            total += 8 + lengths[c];
        }
        final byte[] bytes = new byte[total];
        final ByteBuffer out = ByteBuffer.wrap(bytes);
        out.putInt(0, MAGIC);
        out.putInt(4, VERSION);
        out.putInt(8, buffers.length);
        int at = 12;
        for (int c = 0; c < buffers.length; c++)
        {
            out.putInt(at, inputIndexes[c]);
            out.putInt(at + 4, counts[c]);
            at += 8;
            if (lengths[c] > 0)
            {
                buffers[c].getBytes(0, bytes, at, lengths[c]);
                at += lengths[c];
            }
        }
        return bytes;
    }

    /** Receives restored records. */
    @FunctionalInterface
    interface RecordVisitor
    {
        /**
         * @param channel   the input channel the record was in flight on.
         * @param timestamp its timestamp, or NO_TIMESTAMP.
         * @param bytes     the buffer holding it.
         * @param offset    where it starts.
         * @param length    its encoded length.
         */
        void record(int channel, long timestamp, CodecBuffer bytes, int offset, int length);
    }

    /**
     * Visits every record of an encoded channel state, channel by channel, in the order they were recorded.
     *
     * @param data     the encoded state, already checked against its handle.
     * @param file     its name, for errors.
     * @param channels how many input channels the restoring task has: must match.
     * @param visitor  receives the records.
     */
    static void replay(final byte[] data, final String file, final int[] inputIndexes, final RecordVisitor visitor)
    {
        walk(data, file, inputIndexes, visitor);
    }

    /**
     * Checks, before a task is started, that a channel state fits the task restoring it: same number of input
     * channels, each feeding the same input of the operator.
     *
     * @param data         the encoded state, already checked against its handle.
     * @param file         its name, for errors.
     * @param inputIndexes per input channel of the restoring task, the operator input it feeds.
     * @throws CorruptCheckpointException when the file is not a channel state.
     * @throws IllegalStateException      when it was taken with another channel layout.
     */
    public static void checkLayout(final byte[] data, final String file, final int[] inputIndexes)
    {
        walk(data, file, inputIndexes, null);
    }

    /** Checks header, layout and every length; hands the records to {@code visitor} unless it is null. */
    private static void walk(final byte[] data, final String file, final int[] inputIndexes,
        final RecordVisitor visitor)
    {
        ChannelStateFormat.read(data, file, new ChannelStateFormat.Visitor()
        {
            @Override
            public void channels(final int stored)
            {
                if (stored != inputIndexes.length)
                {
                    throw new IllegalStateException("channel state " + file + " holds " + stored + " input " +
                        "channels, the task now has " + inputIndexes.length + ": in-flight records of an unaligned " +
                        "checkpoint can only be restored with the same parallelism upstream and here");
                }
            }

            @Override
            public void channel(final int channel, final int input, final int records)
            {
                if (input != inputIndexes[channel])
                {
                    throw new IllegalStateException("channel state " + file + " has channel " + channel +
                        " feeding input " + input + ", the task now feeds input " + inputIndexes[channel] +
                        " from it: the job's inputs changed since the unaligned checkpoint");
                }
            }

            @Override
            public void record(final int channel, final long timestamp, final CodecBuffer bytes, final int offset,
                final int length)
            {
                if (visitor != null)
                {
                    visitor.record(channel, timestamp, bytes, offset, length);
                }
            }
        });
    }

    @Override
    public String toString()
    {
        return "ChannelStateRecorder{checkpoint " + checkpointId + ", " + records + " records, per channel " +
            Arrays.toString(counts) + '}';
    }
}
