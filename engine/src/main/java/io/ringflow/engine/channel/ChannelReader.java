package io.ringflow.engine.channel;

import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.Sequence;

/**
 * The consumer's end of a {@link RingChannel}.
 *
 * <p>Thread contract: one consumer thread only (the downstream task). {@link #poll} hands published slots to a
 * {@link SlotHandler} in order, and releases them to the producer once per call, after the handler has finished
 * with all of them (one release store per batch). The producer's cursor is re-read only when the cached value is
 * short of the
 * poll's limit, so an idle poll costs one volatile read.
 */
public final class ChannelReader extends ReaderRhsPadding
{
    private final RingChannel channel;
    private final RingBuffer<Slot> ring;
    private final Sequence consumed;

    ChannelReader(final RingChannel channel, final RingBuffer<Slot> ring, final Sequence consumed)
    {
        this.channel = channel;
        this.ring = ring;
        this.consumed = consumed;
        this.nextSequence = RingBuffer.INITIAL_CURSOR_VALUE + 1;
        this.availableCache = RingBuffer.INITIAL_CURSOR_VALUE;
    }

    /**
     * Hands up to {@code limit} slots to {@code handler}, stopping early when the handler returns false.
     *
     * @param handler receives each slot; the slot is valid only during the call.
     * @param limit   the most slots to read in this call.
     * @return the number of slots handed over.
     */
    public int poll(final SlotHandler handler, final int limit)
    {
        final long wanted = nextSequence + limit - 1;
        long available = availableCache;
        if (available < wanted)
        {
            // Acquire load, once per poll at most: slot contents published before this cursor value are visible.
            available = availableCache = ring.getCursor();
            if (nextSequence > available)
            {
                return 0;
            }
        }
        final long last = Math.min(available, wanted);
        long sequence = nextSequence;
        int count = 0;
        try
        {
            while (sequence <= last)
            {
                final Slot slot = ring.get(sequence);
                sequence++;
                count++;
                if (!handler.onSlot(slot))
                {
                    break;
                }
            }
        }
        finally
        {
            nextSequence = sequence;
            // Release store: the producer may reuse these slots only after we are done reading them.
            consumed.set(sequence - 1);
        }
        return count;
    }

    /**
     * @return whether a published slot is waiting; re-reads the producer's cursor if needed.
     */
    public boolean hasAvailable()
    {
        return nextSequence <= availableCache || nextSequence <= (availableCache = ring.getCursor());
    }

    /** @return the sequence of the next slot {@link #poll} will hand over. */
    public long nextSequence()
    {
        return nextSequence;
    }

    /**
     * Hands the records between the read position and {@code untilExclusive} to {@code handler} without consuming
     * them: an unaligned barrier announced at {@code untilExclusive} overtook them, and they go to the checkpoint's
     * channel state (they are still processed later by {@link #poll}). Slots of other kinds are skipped.
     *
     * @param untilExclusive the announced barrier's sequence; every slot below it has been published.
     * @param handler        receives each record slot; its return value is ignored.
     * @return the number of records handed over.
     */
    public int peekRecordsBefore(final long untilExclusive, final SlotHandler handler)
    {
        int records = 0;
        for (long sequence = nextSequence; sequence < untilExclusive; sequence++)
        {
            final Slot slot = ring.get(sequence);
            if (slot.kind() == SlotKind.RECORD)
            {
                handler.onSlot(slot);
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
}
