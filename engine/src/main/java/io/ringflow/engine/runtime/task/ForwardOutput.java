package io.ringflow.engine.runtime.task;

import io.ringflow.engine.channel.ChannelWriter;
import io.ringflow.engine.channel.SlotDescriptor;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;

/**
 * Writes every record into one channel, to the downstream subtask of the same index: a FORWARD edge that crosses
 * tasks. A record-path template ({@link ClassCopies}): each edge gets its own copy, so the codec call is monomorphic.
 * Task thread only; allocates nothing.
 */
public final class ForwardOutput implements Output
{
    private final ChannelWriter writer;
    private final Codec<Object> codec;

    /**
     * @param writer the channel to the downstream subtask.
     * @param codec  the edge's codec.
     */
    public ForwardOutput(final ChannelWriter writer, final Codec<Object> codec)
    {
        this.writer = writer;
        this.codec = codec;
    }

    @Override
    public void collect(final Object record)
    {
        if (record == null)
        {
            throw writer.nullRecord();
        }
        final CodecBuffer slot = writer.claimRecord();
        final int length = codec.encode(record, slot, 0);
        if (slot.overflowed())
        {
            throw writer.tooLarge(codec, record);
        }
        writer.commitRecord(SlotDescriptor.NO_KEY_GROUP, length);
    }

    @Override
    public void emitWatermark(final long watermark)
    {
        writer.writeWatermark(watermark);
    }

    @Override
    public void emitWatermarkStatus(final boolean idle)
    {
        writer.writeWatermarkStatus(idle);
    }
}
