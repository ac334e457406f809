package io.ringflow.engine.runtime.task;

import io.ringflow.engine.channel.ChannelWriter;
import io.ringflow.engine.channel.SlotDescriptor;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;

/**
 * Sends every record to every downstream subtask: a BROADCAST edge. Encodes once, into the first channel's slot, and
 * copies the bytes into the others. A record-path template ({@link ClassCopies}). Task thread only; allocates nothing.
 */
public final class BroadcastOutput implements Output
{
    private final ChannelWriter[] writers;
    private final Codec<Object> codec;

    /**
     * @param writers one per downstream subtask.
     * @param codec   the edge's codec.
     */
    public BroadcastOutput(final ChannelWriter[] writers, final Codec<Object> codec)
    {
        this.writers = writers;
        this.codec = codec;
    }

    @Override
    public void collect(final Object record)
    {
        final ChannelWriter first = writers[0];
        if (record == null)
        {
            throw first.nullRecord();
        }
        final CodecBuffer encoded = first.claimRecord();
        final int length = codec.encode(record, encoded, 0);
        if (encoded.overflowed())
        {
            throw first.tooLarge(codec, record);
        }
        for (int i = 1; i < writers.length; i++)
        {
            final ChannelWriter writer = writers[i];
            writer.claimRecord().putBytes(0, encoded, 0, length);
            writer.commitRecord(SlotDescriptor.NO_KEY_GROUP, length);
        }
        // the first slot last: its window was the source of the copies
        first.commitRecord(SlotDescriptor.NO_KEY_GROUP, length);
    }

    @Override
    public void emitWatermark(final long watermark)
    {
        for (final ChannelWriter writer : writers)
        {
            writer.writeWatermark(watermark);
        }
    }

    @Override
    public void emitWatermarkStatus(final boolean idle)
    {
        for (final ChannelWriter writer : writers)
        {
            writer.writeWatermarkStatus(idle);
        }
    }
}
