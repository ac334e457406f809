package io.ringflow.engine.runtime.task;

import io.ringflow.engine.channel.ChannelWriter;
import io.ringflow.engine.channel.SlotDescriptor;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;

/**
 * Spreads records round robin over the downstream subtasks: a REBALANCE edge. A record-path template
 * ({@link ClassCopies}). Task thread only; allocates nothing.
 */
public final class RebalanceOutput implements Output
{
    private final ChannelWriter[] writers;
    private final Codec<Object> codec;
    private int next;

    /**
     * @param writers      writer {@code i} leads to downstream subtask {@code i}.
     * @param codec        the edge's codec.
     * @param subtaskIndex the upstream subtask: each starts at a different channel, so small inputs spread too.
     */
    public RebalanceOutput(final ChannelWriter[] writers, final Codec<Object> codec, final int subtaskIndex)
    {
        this.writers = writers;
        this.codec = codec;
        this.next = subtaskIndex % writers.length;
    }

    @Override
    public void collect(final Object record)
    {
        final ChannelWriter writer = writers[next];
        if (++next == writers.length)
        {
            next = 0;
        }
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
