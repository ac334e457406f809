package io.ringflow.engine.channel;

import com.lmax.disruptor.InsufficientCapacityException;
import com.lmax.disruptor.RingBuffer;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;

import java.lang.invoke.VarHandle;

/**
 * The producer's end of a {@link RingChannel}.
 *
 * <p>Thread contract: one producer thread only (the upstream task). Records are claimed and written one at a time
 * but published in batches: up to {@code publishBatch} records, or whatever is pending when the task calls
 * {@link #flush()} at the end of each work cycle. Barriers and END_OF_INPUT are published at once, after the records
 * before them, so the consumer always sees slots in the order they were written.
 *
 * <p>Steady state allocates nothing: slots are preallocated, {@link InsufficientCapacityException} is the
 * Disruptor's stackless singleton.
 */
public final class ChannelWriter extends WriterRhsPadding
{
    private final RingChannel channel;
    private final RingBuffer<Slot> ring;
    private final int publishBatch;
    private final ParkingSignal consumerWakeup;
    private BackPressure backPressure = channel -> Thread.onSpinWait();

    ChannelWriter(
        final RingChannel channel, final RingBuffer<Slot> ring, final int publishBatch, final ParkingSignal wakeup)
    {
        this.channel = channel;
        this.ring = ring;
        this.publishBatch = publishBatch;
        this.consumerWakeup = wakeup;
        this.lastClaimed = RingBuffer.INITIAL_CURSOR_VALUE;
        this.lastPublished = RingBuffer.INITIAL_CURSOR_VALUE;
        this.spareSequence = RingBuffer.INITIAL_CURSOR_VALUE;
    }

    /**
     * @param backPressure what to do while the ring is full; set once, before the producer thread starts.
     */
    public void backPressure(final BackPressure backPressure)
    {
        this.backPressure = backPressure;
    }

    /**
     * Encodes {@code record} into the next slot. Publishes when a batch is complete.
     *
     * @param codec  the channel's codec.
     * @param record the record, never null.
     * @param <T>    the record type.
     * @throws RecordTooLargeException when the record does not fit in a slot; nothing is sent then.
     */
    public <T> void writeRecord(final Codec<T> codec, final T record)
    {
        if (record == null)
        {
            throw new NullPointerException("a null record was emitted into channel " + channel.name() +
                "; records must not be null");
        }
        final long sequence = claim();
        final Slot slot = ring.get(sequence);
        final CodecBuffer payload = slot.payload();
        payload.clearOverflow();
        final int length;
        try
        {
            length = codec.encode(record, payload, 0);
        }
        catch (final Throwable failed)
        {
            // Invariant the Disruptor relies on (its tryNext may publish every claimed slot): each claimed slot but
            // the spare is fully written before the next claim. A failed write leaves its slot as the spare.
            spareSequence = sequence;
            throw failed;
        }
        if (payload.overflowed())
        {
            // the record did not fit: its bytes in the slot are not a record, the slot stays the spare
            spareSequence = sequence;
            payload.clearOverflow();
            throw tooLarge(codec, record, payload.capacity());
        }
        slot.setHeader(SlotKind.RECORD, length);
        if (sequence - lastPublished >= publishBatch)
        {
            publish();
        }
    }

    /**
     * Announces a barrier ahead of the data (an unaligned barrier): publishes everything written so far, then tells the
     * consumer where the barrier's slot will be, so it learns of the barrier before reading the records in front of
     * it. The barrier's slot must be written next, with {@link #writeBarrier}, before any other record.
     *
     * @param checkpointId the checkpoint id.
     * @param kind         checkpoint or savepoint.
     * @param timestamp    the trigger time, epoch milliseconds.
     */
    public void announceBarrier(final long checkpointId, final BarrierKind kind, final long timestamp)
    {
        // every record before the barrier must be visible to the consumer before the announcement is
        flush();
        final long barrierSequence = spareSequence != RingBuffer.INITIAL_CURSOR_VALUE ? spareSequence :
            lastClaimed + 1;
        channel.announce(new BarrierAnnouncement(checkpointId, kind, timestamp, barrierSequence));
    }

    /**
     * Writes a barrier after everything written so far, and publishes it with them.
     *
     * @param checkpointId the checkpoint id.
     * @param kind         checkpoint or savepoint.
     * @param timestamp    the trigger time, epoch milliseconds.
     */
    public void writeBarrier(final long checkpointId, final BarrierKind kind, final long timestamp)
    {
        final Slot slot = ring.get(claim());
        final CodecBuffer payload = slot.payload();
        payload.putLong(SlotDescriptor.BARRIER_CHECKPOINT_ID_OFFSET, checkpointId);
        payload.putInt(SlotDescriptor.BARRIER_TYPE_OFFSET, kind.code());
        payload.putLong(SlotDescriptor.BARRIER_TIMESTAMP_OFFSET, timestamp);
        slot.setHeader(SlotKind.BARRIER, SlotDescriptor.BARRIER_PAYLOAD_LENGTH);
        publish();
    }

    /**
     * Writes END_OF_INPUT after everything written so far and publishes. Nothing may be written afterwards.
     */
    public void writeEndOfInput()
    {
        ring.get(claim()).setHeader(SlotKind.END_OF_INPUT, 0);
        publish();
    }

    /**
     * Publishes every slot written so far. Called by the task at the end of each work cycle, so records never wait
     * in an unpublished batch for longer than one cycle.
     */
    public void flush()
    {
        final long last = spareSequence == lastClaimed ? lastClaimed - 1 : lastClaimed;
        if (last > lastPublished)
        {
            publishUpTo(last);
        }
    }

    /** @return the channel this writer writes to. */
    public RingChannel channel()
    {
        return channel;
    }

    private long claim()
    {
        if (spareSequence != RingBuffer.INITIAL_CURSOR_VALUE)
        {
            final long spare = spareSequence;
            spareSequence = RingBuffer.INITIAL_CURSOR_VALUE;
            return spare;
        }
        try
        {
            return lastClaimed = ring.tryNext();
        }
        catch (final InsufficientCapacityException full)
        {
            return lastClaimed = awaitClaim();
        }
    }

    private long awaitClaim()
    {
        // Publish what we hold first: the consumer can only free slots it can see.
        flush();
        while (true)
        {
            backPressure.awaitCapacity(channel);
            try
            {
                return ring.tryNext();
            }
            catch (final InsufficientCapacityException stillFull)
            {
                // keep waiting
            }
        }
    }

    private void publish()
    {
        publishUpTo(lastClaimed);
    }

    private void publishUpTo(final long last)
    {
        // Release store of the cursor: every slot write above happens-before the consumer's read of the cursor.
        ring.publish(last);
        lastPublished = last;
        if (consumerWakeup != null)
        {
            // StoreLoad: the cursor store must be visible before we read the consumer's parked flag (ParkingSignal).
            VarHandle.fullFence();
            consumerWakeup.signal();
        }
    }

    private <T> RecordTooLargeException tooLarge(final Codec<T> codec, final T record, final int capacity)
    {
        int encodedLength;
        try
        {
            // measured in a growable scratch buffer, for the message: the failure path only
            final CodecBuffer scratch = CodecBuffer.growable(capacity * 2);
            encodedLength = codec.encode(record, scratch, 0);
            if (scratch.overflowed())
            {
                encodedLength = -1;
            }
        }
        catch (final RuntimeException ex)
        {
            encodedLength = -1;
        }
        return new RecordTooLargeException(channel.name(), codec.type(), encodedLength, capacity);
    }
}
