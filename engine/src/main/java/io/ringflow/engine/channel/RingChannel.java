package io.ringflow.engine.channel;

import com.lmax.disruptor.BusySpinWaitStrategy;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.Sequence;

import java.nio.ByteBuffer;

/**
 * One channel: a single-producer single-consumer Disruptor ring from one upstream subtask to one downstream subtask,
 * its slots laid out back to back in one off-heap region ({@link SlotDescriptor}).
 *
 * <p>Exactly one thread uses the {@link #writer()} and exactly one other thread uses the {@link #reader()}. The ring
 * is created with a non-blocking wait strategy: Ringflow never waits inside the Disruptor, its tasks poll and idle on
 * their own terms, so publishing never takes a lock.
 */
public final class RingChannel
{
    private static final int CACHE_LINE = 64;

    private final String name;
    private final RingBuffer<Slot> ring;
    private final Sequence consumed = new Sequence(RingBuffer.INITIAL_CURSOR_VALUE);
    private final ChannelWriter writer;
    private final ChannelReader reader;
    /** The newest unaligned barrier the producer announced; written by the producer, read by the consumer. */
    private volatile BarrierAnnouncement announcement;

    /**
     * @param name         for diagnostics, e.g. {@code "map[0] -> count[1]"}.
     * @param ringSize     number of slots, a power of two.
     * @param slotSize     bytes per slot, a multiple of 8 and at least {@link SlotDescriptor#MIN_SLOT_SIZE}.
     * @param publishBatch how many records the writer claims before it publishes them at once; below ringSize.
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
        // The slots start on a cache line: alignedSlice rounds the region's start up and its end down to one, so
        // allocate a line more at each end. The garbage collector frees the region with the last slot.
        final ByteBuffer slots = ByteBuffer.allocateDirect(
            Math.addExact(Math.multiplyExact(ringSize, slotSize), 2 * CACHE_LINE)).alignedSlice(CACHE_LINE);
        final int[] nextSlot = {0};
        this.ring = RingBuffer.createSingleProducer(
            () -> new Slot(slots, (nextSlot[0]++) * slotSize, slotSize), ringSize, new BusySpinWaitStrategy());
        this.ring.addGatingSequences(consumed);
        this.writer = new ChannelWriter(this, ring, publishBatch, consumerWakeup);
        this.reader = new ChannelReader(this, ring, consumed);
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
        return ring.getBufferSize();
    }

    /**
     * @return slots published but not yet released by the consumer; a racy snapshot from any thread.
     */
    public long backlog()
    {
        return ring.getCursor() - consumed.get();
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

    /**
     * @return the newest barrier announced on this channel, or null. Consumer thread; one volatile read.
     */
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
