package io.ringflow.engine.channel;

import io.ringflow.state.codec.CodecBuffer;

import java.nio.ByteBuffer;

/**
 * The consumer's end of a {@link RingChannel}.
 *
 * <p>Thread contract: one consumer thread only (the downstream task). Records are handed over in runs: the consumer
 * asks how many published slots it may read ({@link #available}), reads them at their offsets in {@link #window()},
 * and releases them to the producer once, with {@link #advance}, after it is done with all of them (one release store
 * per run). The producer's cursor is re-read only when the cached value falls short of a read, so an idle check costs
 * one volatile read.
 */
public final class ChannelReader extends ReaderRhsPadding
{
    private final RingChannel channel;
    private final ByteBuffer slots;
    private final CodecBuffer window;

    ChannelReader(final RingChannel channel)
    {
        this.channel = channel;
        this.slots = channel.slots();
        this.window = channel.window();
        this.nextSequence = 0;
        this.publishedCache = -1;
    }

    /**
     * @param limit the most slots wanted.
     * @return how many published slots may be read from {@link #nextSequence()} on, at most {@code limit}; 0 when none.
     */
    public int available(final int limit)
    {
        final long wanted = nextSequence + limit - 1;
        long available = publishedCache;
        if (available < wanted)
        {
            // acquire load, once per run at most: slot contents published before this cursor value are visible
            available = publishedCache = channel.published().get();
            if (nextSequence > available)
            {
                return 0;
            }
        }
        return (int)(Math.min(available, wanted) - nextSequence + 1);
    }

    /** @return whether a published slot is waiting; re-reads the producer's cursor if needed. */
    public boolean hasAvailable()
    {
        return nextSequence <= publishedCache || nextSequence <= (publishedCache = channel.published().get());
    }

    /** @return the sequence of the next slot to read. */
    public long nextSequence()
    {
        return nextSequence;
    }

    /**
     * @param sequence a published slot's sequence.
     * @return its header (see {@link SlotDescriptor#kind}, {@link SlotDescriptor#keyGroup},
     *     {@link SlotDescriptor#length}).
     */
    public long header(final long sequence)
    {
        return slots.getLong(channel.offsetOf(sequence));
    }

    /**
     * @param sequence a published slot's sequence.
     * @return where its payload starts in {@link #window()}.
     */
    public int payloadOffset(final long sequence)
    {
        return channel.offsetOf(sequence) + SlotDescriptor.HEADER_LENGTH;
    }

    /** @return a window over every slot's bytes, to decode payloads from; the consumer's own. */
    public CodecBuffer window()
    {
        return window;
    }

    /** @param sequence a WATERMARK slot's sequence. @return its watermark. */
    public long watermark(final long sequence)
    {
        return slots.getLong(payloadOffset(sequence));
    }

    /**
     * @param sequence a barrier slot's sequence.
     * @return its checkpoint id.
     */
    public long barrierCheckpointId(final long sequence)
    {
        return slots.getLong(payloadOffset(sequence) + SlotDescriptor.BARRIER_CHECKPOINT_ID_OFFSET);
    }

    /** @param sequence a BARRIER slot's sequence. @return its kind. */
    public BarrierKind barrierKind(final long sequence)
    {
        return BarrierKind.fromCode(slots.getInt(payloadOffset(sequence) + SlotDescriptor.BARRIER_TYPE_OFFSET));
    }

    /** @param sequence a BARRIER slot's sequence. @return its trigger time, epoch ms. */
    public long barrierTimestamp(final long sequence)
    {
        return slots.getLong(payloadOffset(sequence) + SlotDescriptor.BARRIER_TIMESTAMP_OFFSET);
    }

    /**
     * Releases {@code count} slots read from {@link #nextSequence()} on: the producer may write them again.
     *
     * @param count how many; 0 does nothing.
     */
    public void advance(final int count)
    {
        if (count > 0)
        {
            nextSequence += count;
            // release store: the producer may reuse these slots only after we are done reading them
            channel.consumed().set(nextSequence - 1);
        }
    }

    /**
     * Hands the records between the read position and {@code untilExclusive} to {@code visitor} without consuming
     * them: an unaligned barrier announced at {@code untilExclusive} overtook them, and they go to the checkpoint's
     * channel state (they are still read later). Slots of other kinds are skipped.
     *
     * @param untilExclusive the announced barrier's sequence; every slot below it has been published.
     * @param visitor        receives each record's encoded bytes (without a key sent in front of them).
     * @return the number of records handed over.
     */
    public int peekRecordsBefore(final long untilExclusive, final RecordVisitor visitor)
    {
        int records = 0;
        for (long sequence = nextSequence; sequence < untilExclusive; sequence++)
        {
            final long header = header(sequence);
            if (SlotDescriptor.kind(header) == SlotKind.RECORD)
            {
                // the record's own bytes and its timestamp: a key sent in front of them is not part of the state
                final boolean stamped = SlotDescriptor.hasTimestamp(header);
                final int offset = payloadOffset(sequence);
                final long timestamp = stamped ? window.getLong(offset) : RecordTimestamp.NO_TIMESTAMP;
                final int skip = (stamped ? SlotDescriptor.TIMESTAMP_LENGTH : 0) +
                    (SlotDescriptor.hasLongKey(header) ? SlotDescriptor.LONG_KEY_LENGTH : 0);
                visitor.record(timestamp, window, offset + skip, SlotDescriptor.length(header) - skip);
                records++;
            }
        }
        return records;
    }

    /** @return the channel this reader reads. */
    public RingChannel channel()
    {
        return channel;
    }

    /** Receives a record's encoded bytes, valid during the call only. */
    @FunctionalInterface
    public interface RecordVisitor
    {
        /**
         * @param timestamp the record's timestamp, or {@link RecordTimestamp#NO_TIMESTAMP}.
         * @param buffer    where the record is.
         * @param offset    where its bytes start.
         * @param length    how many.
         */
        void record(long timestamp, CodecBuffer buffer, int offset, int length);
    }
}
