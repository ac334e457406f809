package io.ringflow.engine.runtime.task;

import io.ringflow.engine.channel.ChannelReader;
import io.ringflow.engine.channel.RecordTimestamp;
import io.ringflow.engine.channel.SlotDescriptor;
import io.ringflow.engine.channel.SlotKind;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;

/**
 * The record loop of one input channel: a run of published slots at a time, decoded and handed to the head operator
 * with the key group the producer computed (and the key, when it was a {@code Long}). A record-path template ({@link ClassCopies}): each channel of a job gets
 * its own copy, so the decode and the head's call are monomorphic and the JIT can inline the chain that follows.
 * Task thread only; allocates nothing beyond what decoding does.
 */
public final class ChannelInput extends InputChannel
{
    /** What the prefetch loads summed to; kept only so that the JIT keeps those loads. Task thread. */
    private long prefetched;

    /**
     * @param task       the task.
     * @param index      the channel's index in the task.
     * @param reader     the channel.
     * @param codec      its records' codec.
     * @param inputIndex the head operator's input it feeds.
     * @param head       the head operator.
     */
    public ChannelInput(final InputTask task, final int index, final ChannelReader reader, final Codec<Object> codec,
        final int inputIndex, final StreamOperator head)
    {
        super(task, index, reader, codec, inputIndex, head);
    }

    @Override
    public int drain(final int limit)
    {
        final ChannelReader in = reader;
        final int available = in.available(limit);
        if (available == 0)
        {
            return 0;
        }
        final CodecBuffer window = in.window();
        final long first = in.nextSequence();
        // the keys in the next `burst` slots go to the head as hints, all at once before any of them is processed:
        // the store's hint is a plain load, which the processor cannot retire before its line arrives, so only loads
        // issued back to back overlap their misses (slots below first + available are published: reading them early
        // is safe). A run cut short by a control slot hints the slots after it again in the next run.
        final int burst = task.keyPrefetch();
        final boolean prefetching = burst > 0 && inputIndex == 0 && head.prefetchesKeys();
        int ahead = 0;
        long touched = 0;
        int read = 0;
        try
        {
            while (read < available)
            {
                if (prefetching && ahead == read)
                {
                    final int until = Math.min(available, read + burst);
                    while (ahead < until)
                    {
                        touched += hintKeyAt(in, window, first + ahead);
                        ahead++;
                    }
                }
                final long sequence = first + read;
                final long header = in.header(sequence);
                read++;
                if (SlotDescriptor.kind(header) != SlotKind.RECORD)
                {
                    if (!task.onControlSlot(this, sequence, SlotDescriptor.kind(header)))
                    {
                        break;
                    }
                    continue;
                }
                final int payload = in.payloadOffset(sequence);
                // the timestamp comes first, then a Long key sent by the producer; the record's own bytes follow
                final long timestamp;
                final int offset;
                if (SlotDescriptor.hasTimestamp(header))
                {
                    timestamp = window.getLong(payload);
                    offset = payload + SlotDescriptor.TIMESTAMP_LENGTH;
                }
                else
                {
                    timestamp = RecordTimestamp.NO_TIMESTAMP;
                    offset = payload;
                }
                time.value = timestamp;
                final boolean longKey = SlotDescriptor.hasLongKey(header);
                final int recordOffset = offset + (longKey ? SlotDescriptor.LONG_KEY_LENGTH : 0);
                final int recordLength = SlotDescriptor.length(header) - (recordOffset - payload);
                if (recording != null)
                {
                    recording.append(index, timestamp, window, recordOffset, recordLength);
                }
                final Object record = codec.decode(window, recordOffset, recordLength);
                final int keyGroup = SlotDescriptor.keyGroup(header);
                try
                {
                    if (longKey)
                    {
                        final long key = window.getLong(offset);
                        if (inputIndex == 0)
                        {
                            head.processElement(record, keyGroup, key);
                        }
                        else
                        {
                            head.processElement2(record, keyGroup, key);
                        }
                    }
                    else if (inputIndex == 0)
                    {
                        head.processElement(record, keyGroup);
                    }
                    else
                    {
                        head.processElement2(record, keyGroup);
                    }
                }
                catch (final Throwable ex)
                {
                    throw OperatorException.wrap(head.runtime(), ex);
                }
            }
        }
        finally
        {
            in.advance(read);
            prefetched += touched;
        }
        return read;
    }

    /**
     * Passes the key of the record in slot {@code sequence} to the head as a hint, if the slot is a record sent by its
     * {@code Long} key; nothing otherwise. {@code sequence} must be published (below the run's end). Never throws.
     */
    private long hintKeyAt(final ChannelReader in, final CodecBuffer window, final long sequence)
    {
        final long header = in.header(sequence);
        if (SlotDescriptor.kind(header) != SlotKind.RECORD || !SlotDescriptor.hasLongKey(header))
        {
            return 0L;
        }
        final int payload = in.payloadOffset(sequence);
        return head.prefetchKey(window.getLong(SlotDescriptor.hasTimestamp(header) ?
            payload + SlotDescriptor.TIMESTAMP_LENGTH : payload));
    }
}
