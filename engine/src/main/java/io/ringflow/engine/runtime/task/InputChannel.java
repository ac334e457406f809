package io.ringflow.engine.runtime.task;

import io.ringflow.engine.channel.BarrierAnnouncement;
import io.ringflow.engine.channel.ChannelReader;
import io.ringflow.engine.channel.RecordTimestamp;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;

/**
 * One input channel of an {@link InputTask}: its reader, its codec, the head operator input it feeds, and what the
 * task's barrier handling keeps per channel. The record loop itself is {@link #drain}, implemented by
 * {@link ChannelInput}, a record-path template that each channel of a job gets a copy of ({@link ClassCopies}).
 *
 * <p>Thread contract: the task thread only.
 */
public abstract class InputChannel
{
    final InputTask task;
    final int index;
    final ChannelReader reader;
    final Codec<Object> codec;
    /** The head operator's input this channel feeds: 0, or 1 for a two-input operator's second. */
    final int inputIndex;
    final StreamOperator head;
    /** The task's record timestamp cell: set from each record's slot before the head sees it. */
    final RecordTimestamp time;
    boolean ended;
    /** Where this channel's records go while it is recorded as channel state; null otherwise. */
    ChannelStateRecorder recording;
    /** The newest barrier of this channel already handed to the handler. */
    long handledBarrier;
    /** The last announcement looked at. */
    BarrierAnnouncement seenAnnouncement;

    /**
     * @param task       the task.
     * @param index      the channel's index in the task.
     * @param reader     the channel.
     * @param codec      its records' codec.
     * @param inputIndex the head operator's input it feeds.
     * @param head       the head operator.
     */
    protected InputChannel(final InputTask task, final int index, final ChannelReader reader,
        final Codec<Object> codec, final int inputIndex, final StreamOperator head)
    {
        this.task = task;
        this.index = index;
        this.reader = reader;
        this.codec = codec;
        this.inputIndex = inputIndex;
        this.head = head;
        this.time = head.runtime() == null ? new RecordTimestamp() : head.runtime().time().timestamp;
    }

    /**
     * Reads up to {@code limit} published slots in one run: each record is decoded and handed to the head operator
     * (and copied into the channel state while the channel is recorded); a barrier or END_OF_INPUT goes to the task
     * and may end the run early. The slots read are released to the producer at once, at the end.
     *
     * @param limit the most slots to read.
     * @return how many were read.
     */
    public abstract int drain(int limit);

    /**
     * Decodes one record held in {@code buffer} and hands it to the head operator, outside a run (channel state
     * replayed on restore).
     *
     * @param timestamp the record's timestamp, or NO_TIMESTAMP.
     * @param buffer    where the record is.
     * @param offset    where it starts.
     * @param length    its encoded length.
     */
    final void process(final long timestamp, final CodecBuffer buffer, final int offset, final int length)
    {
        final Object record = codec.decode(buffer, offset, length);
        time.value = timestamp;
        try
        {
            if (inputIndex == 0)
            {
                head.processElement(record);
            }
            else
            {
                head.processElement2(record);
            }
        }
        catch (final Throwable ex)
        {
            throw OperatorException.wrap(head.runtime(), ex);
        }
    }
}
