package io.ringflow.engine.channel;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;

import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * The producer's end of a {@link RingChannel}.
 *
 * <p>Thread contract: one producer thread only (the upstream task). A record is written in three steps:
 * {@link #claimRecord()} hands out the payload window of the next free slot, the caller's codec encodes into it, and
 * {@link #commitRecord} writes the slot's header (with the record's key group). Records are published in batches: every
 * {@code publishBatch} records, or whatever is committed when the task calls {@link #flush()} at the end of each work
 * cycle. Barriers and END_OF_INPUT are published at once, after the records before them, so the consumer always sees
 * slots in the order they were written.
 *
 * <p>A record that does not fit its slot (the window reports {@link CodecBuffer#overflowed()}) is not committed: the
 * caller asks for {@link #tooLarge} and throws it, and the claimed slot is reused by the next write. Nothing is
 * truncated and no exception decides the normal path.
 *
 * <p>Claiming reads the consumer's progress only when the cached limit is reached (the Disruptor's cached gating
 * sequence); while the ring is full the writer publishes what it holds and idles through its {@link BackPressure}.
 * Steady state allocates nothing.
 */
public final class ChannelWriter extends WriterRhsPadding
{
    private final RingChannel channel;
    private final ByteBuffer slots;
    private final CodecBuffer window;
    private final int payloadCapacity;
    private final int publishBatch;
    private final ParkingSignal consumerWakeup;
    private BackPressure backPressure = channel -> Thread.onSpinWait();
    /** The task's current record timestamp, sent in front of each record that has one. */
    private RecordTimestamp timestamps = new RecordTimestamp();
    /** Whether the claimed slot's payload starts with a timestamp. */
    private boolean pendingStamped;

    ChannelWriter(final RingChannel channel, final int publishBatch, final ParkingSignal wakeup)
    {
        this.channel = channel;
        this.slots = channel.slots();
        this.window = channel.window();
        this.payloadCapacity = SlotDescriptor.payloadCapacity(channel.slotSize());
        this.publishBatch = publishBatch;
        this.consumerWakeup = wakeup;
        this.claimed = -1;
        this.lastPublished = -1;
        this.claimLimit = channel.capacity() - 1;
        this.pending = -1;
    }

    /**
     * @param backPressure what to do while the ring is full; set once, before the producer thread starts.
     */
    public void backPressure(final BackPressure backPressure)
    {
        this.backPressure = backPressure;
    }

    /**
     * @param timestamps the task's record timestamp cell, read at each {@link #claimRecord}; set once, before the
     *                   producer thread starts.
     */
    public void timestamps(final RecordTimestamp timestamps)
    {
        this.timestamps = timestamps;
    }

    /**
     * Claims the next free slot for a record, waiting through the back-pressure while the ring is full. When the
     * task's current record has a timestamp, it is written at the start of the payload and the window begins after
     * it.
     *
     * @return the window over the slot's payload: write the record at 0, within its capacity. Valid until the next
     *     claim.
     */
    public CodecBuffer claimRecord()
    {
        if (pending < 0)
        {
            pending = claim();
        }
        final int payload = channel.offsetOf(pending) + SlotDescriptor.HEADER_LENGTH;
        final long timestamp = timestamps.value;
        if (timestamp == RecordTimestamp.NO_TIMESTAMP)
        {
            pendingStamped = false;
            return window.rewrap(slots, payload, payloadCapacity);
        }
        pendingStamped = true;
        slots.putLong(payload, timestamp);
        return window.rewrap(slots, payload + SlotDescriptor.TIMESTAMP_LENGTH,
            payloadCapacity - SlotDescriptor.TIMESTAMP_LENGTH);
    }

    /**
     * The record written into the claimed window is complete: writes the slot's header, and publishes when a batch is
     * complete.
     *
     * @param keyGroup the key group of the record's key, or {@link SlotDescriptor#NO_KEY_GROUP}.
     * @param length   the record's encoded length.
     */
    public void commitRecord(final int keyGroup, final int length)
    {
        final long sequence = pending;
        pending = -1;
        slots.putLong(channel.offsetOf(sequence), pendingStamped ?
            SlotDescriptor.header(SlotKind.RECORD, SlotDescriptor.FLAG_TIMESTAMP, keyGroup,
                SlotDescriptor.TIMESTAMP_LENGTH + length) :
            SlotDescriptor.header(SlotKind.RECORD, keyGroup, length));
        if (sequence - lastPublished >= publishBatch)
        {
            publishUpTo(sequence);
        }
    }

    /**
     * The record written into the claimed window, after its {@code Long} key at 0, is complete: as
     * {@link #commitRecord}, with the header saying the payload starts with the key.
     *
     * @param keyGroup the key group of the record's key.
     * @param length   the key's {@link SlotDescriptor#LONG_KEY_LENGTH} bytes plus the record's encoded length.
     */
    public void commitLongKeyedRecord(final int keyGroup, final int length)
    {
        final long sequence = pending;
        pending = -1;
        slots.putLong(channel.offsetOf(sequence), pendingStamped ?
            SlotDescriptor.header(SlotKind.RECORD, SlotDescriptor.FLAG_LONG_KEY | SlotDescriptor.FLAG_TIMESTAMP,
                keyGroup, SlotDescriptor.TIMESTAMP_LENGTH + length) :
            SlotDescriptor.header(SlotKind.RECORD, SlotDescriptor.FLAG_LONG_KEY, keyGroup, length));
        if (sequence - lastPublished >= publishBatch)
        {
            publishUpTo(sequence);
        }
    }

    /**
     * Encodes {@code record} into the next slot, without a key group: {@link #claimRecord}, encode,
     * {@link #commitRecord}.
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
            throw nullRecord();
        }
        final CodecBuffer slot = claimRecord();
        final int length = codec.encode(record, slot, 0);
        if (slot.overflowed())
        {
            throw tooLarge(codec, record);
        }
        commitRecord(SlotDescriptor.NO_KEY_GROUP, length);
    }

    /** @return the exception for a null record emitted into this channel, naming it. */
    public NullPointerException nullRecord()
    {
        return new NullPointerException("a null record was emitted into channel " + channel.name() +
            "; records must not be null");
    }

    /**
     * The record encoded into the claimed window did not fit: measures it, for the message. The slot stays claimed
     * and the next write reuses it.
     *
     * @param codec  the channel's codec.
     * @param record the record.
     * @param <T>    the record type.
     * @return the exception to throw, naming the channel, the type and both sizes.
     */
    public <T> RecordTooLargeException tooLarge(final Codec<T> codec, final T record)
    {
        return tooLarge(codec, record, 0);
    }

    /**
     * {@link #tooLarge(Codec, Object)} for a record written after {@code reserved} bytes of the payload (its key).
     *
     * @param codec    the channel's codec.
     * @param record   the record.
     * @param reserved payload bytes in front of the record.
     * @param <T>      the record type.
     * @return the exception to throw.
     */
    public <T> RecordTooLargeException tooLarge(final Codec<T> codec, final T record, final int reserved)
    {
        int encodedLength;
        try
        {
            final CodecBuffer scratch = CodecBuffer.growable(payloadCapacity * 2);
            encodedLength = codec.encode(record, scratch, 0);
        }
        catch (final RuntimeException ex)
        {
            encodedLength = -1;
        }
        final int stamp = pendingStamped ? SlotDescriptor.TIMESTAMP_LENGTH : 0;
        return new RecordTooLargeException(channel.name(), codec.type(), encodedLength,
            payloadCapacity - reserved - stamp, reserved + stamp);
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
        final long barrierSequence = pending >= 0 ? pending : claimed + 1;
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
        final long sequence = pending >= 0 ? pending : claim();
        pending = -1;
        final int offset = channel.offsetOf(sequence);
        final int payload = offset + SlotDescriptor.HEADER_LENGTH;
        slots.putLong(payload + SlotDescriptor.BARRIER_CHECKPOINT_ID_OFFSET, checkpointId);
        slots.putInt(payload + SlotDescriptor.BARRIER_TYPE_OFFSET, kind.code());
        slots.putLong(payload + SlotDescriptor.BARRIER_TIMESTAMP_OFFSET, timestamp);
        slots.putLong(offset, SlotDescriptor.header(SlotKind.BARRIER, SlotDescriptor.NO_KEY_GROUP,
            SlotDescriptor.BARRIER_PAYLOAD_LENGTH));
        publishUpTo(sequence);
    }

    /**
     * Writes a watermark after everything written so far; it is published with them (at the latest when the task
     * flushes at the end of its cycle).
     *
     * @param watermark the event time no later record on this channel is at or below.
     */
    public void writeWatermark(final long watermark)
    {
        writeWatermarkSlot(0, watermark);
    }

    /**
     * Writes a change of the channel's watermark status after everything written so far.
     *
     * @param idle true: the channel goes idle (downstream leaves it out of its watermark); false: active again.
     */
    public void writeWatermarkStatus(final boolean idle)
    {
        writeWatermarkSlot(idle ? SlotDescriptor.FLAG_IDLE : SlotDescriptor.FLAG_ACTIVE, 0);
    }

    private void writeWatermarkSlot(final int flags, final long watermark)
    {
        final long sequence = pending >= 0 ? pending : claim();
        pending = -1;
        final int offset = channel.offsetOf(sequence);
        slots.putLong(offset + SlotDescriptor.HEADER_LENGTH, watermark);
        slots.putLong(offset, SlotDescriptor.header(SlotKind.WATERMARK, flags, SlotDescriptor.NO_KEY_GROUP,
            SlotDescriptor.WATERMARK_PAYLOAD_LENGTH));
        if (sequence - lastPublished >= publishBatch)
        {
            publishUpTo(sequence);
        }
    }

    /** Writes END_OF_INPUT after everything written so far and publishes. Nothing may be written afterwards. */
    public void writeEndOfInput()
    {
        final long sequence = pending >= 0 ? pending : claim();
        pending = -1;
        slots.putLong(channel.offsetOf(sequence),
            SlotDescriptor.header(SlotKind.END_OF_INPUT, SlotDescriptor.NO_KEY_GROUP, 0));
        publishUpTo(sequence);
    }

    /**
     * Publishes every record committed so far. Called by the task at the end of each work cycle, so records never wait
     * in an unpublished batch for longer than one cycle.
     */
    public void flush()
    {
        // a pending slot is the highest claimed, and not written yet: everything below it is committed
        final long last = pending >= 0 ? pending - 1 : claimed;
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
        final long next = claimed + 1;
        if (next > claimLimit)
        {
            awaitCapacity(next);
        }
        claimed = next;
        return next;
    }

    private void awaitCapacity(final long next)
    {
        final int capacity = channel.capacity();
        // acquire load: the consumer is done with every slot up to what it released, so they may be written again
        claimLimit = channel.consumed().get() + capacity;
        if (next <= claimLimit)
        {
            return;
        }
        // publish what we hold first: the consumer can only free slots it can see
        flush();
        while (true)
        {
            backPressure.awaitCapacity(channel);
            claimLimit = channel.consumed().get() + capacity;
            if (next <= claimLimit)
            {
                return;
            }
        }
    }

    private void publishUpTo(final long last)
    {
        // release store of the cursor: every slot write above happens-before the consumer's acquire load of it
        channel.published().set(last);
        lastPublished = last;
        if (consumerWakeup != null)
        {
            // StoreLoad: the cursor store must be visible before we read the consumer's parked flag (ParkingSignal)
            VarHandle.fullFence();
            consumerWakeup.signal();
        }
    }
}
