package io.ringflow.engine.channel;

import com.lmax.disruptor.Sequence;
import io.ringflow.state.codec.CodecBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One channel: a single-producer single-consumer ring from one upstream subtask to one downstream subtask. The slots
 * lie back to back in one off-heap region ({@link SlotDescriptor}); the sequencing is the LMAX Disruptor's: two padded
 * {@link Sequence}s, the producer's published cursor and the consumer's consumed one, each written by one thread with a
 * release store and read by the other with an acquire load, and each side caching the other's position so it reads it
 * only when it would otherwise stop. Unlike a Disruptor {@code RingBuffer}, no event objects stand between a sequence
 * and its bytes: slot {@code s} is at a computed offset, one pointer chase less per record.
 *
 * <p>Exactly one thread uses the {@link #writer()} and exactly one other thread uses the {@link #reader()}. Nothing
 * ever waits inside the channel: tasks poll and idle on their own terms, so publishing never takes a lock.
 */
public final class RingChannel
{
    private static final int CACHE_LINE = 64;

    private final String name;
    private final int ringSize;
    private final int slotSize;
    /** The slots; position and limit unused (absolute access only). */
    private final ByteBuffer slots;
    /** The highest sequence published by the producer; -1 before any. Written by the producer only. */
    private final Sequence published = new Sequence(-1);
    /** The highest sequence the consumer is done with; -1 before any. Written by the consumer only. */
    private final Sequence consumed = new Sequence(-1);
    private final ChannelWriter writer;
    private final ChannelReader reader;
    /** The newest unaligned barrier the producer announced; written by the producer, read by the consumer. */
    private volatile BarrierAnnouncement announcement;

    /**
     * @param name           for diagnostics, e.g. {@code "map[0] -> count[1]"}.
     * @param ringSize       number of slots, a power of two.
     * @param slotSize       bytes per slot, a multiple of 8 and at least {@link SlotDescriptor#MIN_SLOT_SIZE}.
     * @param publishBatch   how many records the writer writes before it publishes them at once; below ringSize.
     * @param consumerWakeup signalled after each publication; {@code null} when the consumer never parks untimed.
     */
    public RingChannel(
        final String name,
        final int ringSize,
        final int slotSize,
        final int publishBatch,
        final ParkingSignal consumerWakeup)
    {
        if (Integer.bitCount(ringSize) != 1)
        {
            throw new IllegalArgumentException("ring size must be a power of two, was " + ringSize);
        }
        if (slotSize < SlotDescriptor.MIN_SLOT_SIZE || (slotSize & 7) != 0)
        {
            throw new IllegalArgumentException("slot size must be a multiple of 8 and at least " +
                SlotDescriptor.MIN_SLOT_SIZE + ", was " + slotSize);
        }
        if (publishBatch < 1 || publishBatch >= ringSize)
        {
            throw new IllegalArgumentException("publish batch must be in [1, ringSize), was " + publishBatch);
        }
        this.name = name;
        this.ringSize = ringSize;
        this.slotSize = slotSize;
        // The slots start on a cache line: alignedSlice rounds the region's start up and its end down to one, so
        // allocate a line more at each end. The garbage collector frees the region with the channel.
        this.slots = ByteBuffer.allocateDirect(Math.addExact(Math.multiplyExact(ringSize, slotSize), 2 * CACHE_LINE))
            .alignedSlice(CACHE_LINE).order(ByteOrder.LITTLE_ENDIAN);
        this.writer = new ChannelWriter(this, publishBatch, consumerWakeup);
        this.reader = new ChannelReader(this);
    }

    /** @return the producer's end; use from the upstream task thread only. */
    public ChannelWriter writer()
    {
        return writer;
    }

    /** @return the consumer's end; use from the downstream task thread only. */
    public ChannelReader reader()
    {
        return reader;
    }

    /** @return the channel's name, for diagnostics. */
    public String name()
    {
        return name;
    }

    /** @return the number of slots. */
    public int capacity()
    {
        return ringSize;
    }

    /** @return bytes per slot. */
    int slotSize()
    {
        return slotSize;
    }

    /** @return the slots' bytes. */
    ByteBuffer slots()
    {
        return slots;
    }

    /** @return a new window over every slot's bytes, for one side's use. */
    CodecBuffer window()
    {
        return CodecBuffer.wrap(slots, 0, ringSize * slotSize);
    }

    /** @return the producer's published cursor. */
    Sequence published()
    {
        return published;
    }

    /** @return the consumer's consumed sequence. */
    Sequence consumed()
    {
        return consumed;
    }

    /**
     * @param sequence a ring sequence.
     * @return where its slot starts in {@link #slots()}.
     */
    int offsetOf(final long sequence)
    {
        return (int)(sequence & (ringSize - 1)) * slotSize;
    }

    /** @return slots published so far (records and control slots); a racy snapshot from any thread. */
    public long publishedSlots()
    {
        return published.get() + 1;
    }

    /** @return slots released by the consumer so far; a racy snapshot from any thread. */
    public long consumedSlots()
    {
        return consumed.get() + 1;
    }

    /** @return slots published but not yet released by the consumer; a racy snapshot from any thread. */
    public long backlog()
    {
        return published.get() - consumed.get();
    }

    /**
     * Called once both the producer and the consumer thread have stopped. Frees nothing explicitly: the off-heap
     * slots are a direct {@link ByteBuffer}, which the garbage collector frees once the channel is unreachable.
     */
    public void release()
    {
        // nothing to free by hand
    }

    /**
     * Publishes an unaligned barrier ahead of the data. Producer thread, after publishing every slot before it.
     *
     * @param value the barrier and where its slot will be.
     */
    void announce(final BarrierAnnouncement value)
    {
        announcement = value;
    }

    /** @return the newest barrier announced on this channel, or null. Consumer thread; one volatile read. */
    public BarrierAnnouncement announcement()
    {
        return announcement;
    }

    @Override
    public String toString()
    {
        return "RingChannel{" + name + '}';
    }
}
