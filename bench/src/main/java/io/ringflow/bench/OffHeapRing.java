package io.ringflow.bench;

import com.lmax.disruptor.BusySpinWaitStrategy;
import com.lmax.disruptor.InsufficientCapacityException;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.Sequence;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * The bare baseline: a single-producer single-consumer Disruptor {@link RingBuffer} whose slots are 16 bytes of
 * off-heap memory (two longs), with none of Ringflow's framing, codecs, tasks or idle strategies.
 *
 * <pre>
 *                 track to prevent wrap (gating sequence "consumed")
 *              +-------------------------------------------+
 *              |                                           |
 *              v                                           |
 * +----+    +====+          +======================+    +----+
 * | P1 |--->| RB |--------->| slots: 16 B each,    |--->| C1 |
 * +----+    +====+  cursor  | one aligned off-heap |    +----+
 *  claim, put,              | region               |    read cursor, read slots,
 *  publish(lo, hi)          +======================+    release (one store per poll)
 * </pre>
 *
 * <p>The RingBuffer is used as the sequencer (claim, publish, cursor, gating); its event objects are unused
 * placeholders and the slot of sequence {@code s} is at offset {@code (s & mask) * 16} of one aligned off-heap
 * region. The producer claims with {@link RingBuffer#tryNext(int)} and spins with {@link Thread#onSpinWait()} while
 * the ring is full (the Disruptor's blocking {@code next()} would park for a scheduler tick instead); the consumer
 * reads the cursor, handles every published slot and releases them with one store, as Ringflow's channel reader does.
 *
 * <p>Thread contract: one producer thread calls {@link #claim}, {@link #put} and {@link #publish}; one consumer
 * thread calls {@link #cursor}, {@link #first}, {@link #second} and {@link #release}. {@link #halt()} may be called
 * from any thread and makes the spinning methods throw, so neither side can spin forever after the other died.
 */
final class OffHeapRing
{
    /** Bytes per slot: two longs. */
    static final int SLOT_SIZE = 16;

    private static final int CACHE_LINE = 64;
    private static final Object PLACEHOLDER = new Object();

    private final RingBuffer<Object> ring;
    private final Sequence consumed = new Sequence(RingBuffer.INITIAL_CURSOR_VALUE);
    private final ByteBuffer memory;
    private final UnsafeBuffer slots;
    private final long mask;
    private volatile boolean halted;

    /**
     * @param size number of slots, a power of two.
     */
    OffHeapRing(final int size)
    {
        if (size < 2 || Integer.bitCount(size) != 1)
        {
            throw new IllegalArgumentException("ring size must be a power of two, was " + size);
        }
        this.mask = size - 1;
        this.memory = ByteBuffer.allocateDirect(size * SLOT_SIZE + CACHE_LINE);
        final long address = BufferUtil.address(memory);
        final long aligned = (address + CACHE_LINE - 1) & -CACHE_LINE;
        this.slots = new UnsafeBuffer(aligned, size * SLOT_SIZE);
        this.ring = RingBuffer.createSingleProducer(() -> PLACEHOLDER, size, new BusySpinWaitStrategy());
        this.ring.addGatingSequences(consumed);
    }

    /** @return number of slots. */
    int capacity()
    {
        return ring.getBufferSize();
    }

    // ---------------------------------------------------------------- producer side

    /**
     * Claims {@code n} consecutive slots, spinning while the ring is full.
     *
     * @param n how many, at most the capacity.
     * @return the highest claimed sequence; the claimed ones are {@code hi - n + 1 .. hi}.
     * @throws IllegalStateException when the ring was halted while waiting.
     */
    long claim(final int n)
    {
        while (true)
        {
            try
            {
                return ring.tryNext(n);
            }
            catch (final InsufficientCapacityException full)
            {
                checkNotHalted();
                Thread.onSpinWait();
            }
        }
    }

    /**
     * @param sequence a claimed sequence.
     * @param first    the slot's first long.
     * @param second   the slot's second long.
     */
    void put(final long sequence, final long first, final long second)
    {
        final int offset = offset(sequence);
        slots.putLong(offset, first);
        slots.putLong(offset + Long.BYTES, second);
    }

    /**
     * Publishes every claimed slot up to {@code hi} (one release store of the cursor).
     *
     * @param lo the lowest sequence of the batch.
     * @param hi the highest.
     */
    void publish(final long lo, final long hi)
    {
        ring.publish(lo, hi);
    }

    /**
     * Spins until the consumer has released {@code sequence}.
     *
     * @param sequence a published sequence.
     * @throws IllegalStateException when the ring was halted while waiting.
     */
    void awaitConsumed(final long sequence)
    {
        while (consumed.get() < sequence)
        {
            checkNotHalted();
            Thread.onSpinWait();
        }
    }

    // ---------------------------------------------------------------- consumer side

    /** @return the highest published sequence (acquire load). */
    long cursor()
    {
        return ring.getCursor();
    }

    /**
     * @param sequence a published, unreleased sequence.
     * @return the slot's first long.
     */
    long first(final long sequence)
    {
        return slots.getLong(offset(sequence));
    }

    /**
     * @param sequence a published, unreleased sequence.
     * @return the slot's second long.
     */
    long second(final long sequence)
    {
        return slots.getLong(offset(sequence) + Long.BYTES);
    }

    /**
     * Hands every slot up to {@code sequence} back to the producer (release store).
     *
     * @param sequence the last slot read.
     */
    void release(final long sequence)
    {
        consumed.set(sequence);
    }

    /** @return the last sequence released by the consumer. */
    long consumed()
    {
        return consumed.get();
    }

    // ---------------------------------------------------------------- either side

    /** Makes every spinning call on this ring throw; for shutdown and for a side that failed. */
    void halt()
    {
        halted = true;
    }

    /** @return whether {@link #halt()} was called. */
    boolean isHalted()
    {
        return halted;
    }

    /** @throws IllegalStateException when halted. */
    void checkNotHalted()
    {
        if (halted)
        {
            throw new IllegalStateException("ring halted");
        }
    }

    /** Frees the off-heap slots; only once neither thread uses the ring any more. */
    void free()
    {
        BufferUtil.free(memory);
    }

    private int offset(final long sequence)
    {
        return (int)((sequence & mask) * SLOT_SIZE);
    }
}
