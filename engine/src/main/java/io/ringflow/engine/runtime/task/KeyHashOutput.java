package io.ringflow.engine.runtime.task;

import io.ringflow.engine.api.functions.KeySelector;
import io.ringflow.engine.channel.ChannelWriter;
import io.ringflow.engine.channel.SlotDescriptor;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.keyed.KeyGroups;

/**
 * Sends each record to the subtask that owns its key: key, key group, owning subtask (a KEY_HASH edge). The key group
 * is computed here, once, and travels in the slot's header, so the keyed operator downstream never hashes the key
 * again; a {@code Long} key travels too, in front of the record, so it never extracts the key again either. A record-path template ({@link ClassCopies}): each edge gets its own copy, so the key selector and the codec
 * calls are monomorphic. Task thread only; allocates nothing beyond what the key selector does.
 */
public final class KeyHashOutput implements Output
{
    private final Codec<Object> codec;
    private final KeySelector<Object, Object> keySelector;
    private final String keyedOperatorName;
    private final int maxParallelism;
    /** Channel of each key group: the subtask that owns it, precomputed to keep a division off the hot path. */
    private final ChannelWriter[] writerOfKeyGroup;
    /** Every channel, for watermarks. */
    private final ChannelWriter[] writers;

    /**
     * @param writers           writer {@code i} leads to downstream subtask {@code i}.
     * @param codec             the edge's codec.
     * @param keySelector       the key.
     * @param keyedOperatorName the operator downstream, for errors.
     * @param maxParallelism    the job's number of key groups.
     */
    public KeyHashOutput(
        final ChannelWriter[] writers,
        final Codec<Object> codec,
        final KeySelector<Object, Object> keySelector,
        final String keyedOperatorName,
        final int maxParallelism)
    {
        this.codec = codec;
        this.keySelector = keySelector;
        this.keyedOperatorName = keyedOperatorName;
        this.maxParallelism = maxParallelism;
        this.writers = writers.clone();
        this.writerOfKeyGroup = new ChannelWriter[maxParallelism];
        for (int keyGroup = 0; keyGroup < maxParallelism; keyGroup++)
        {
            writerOfKeyGroup[keyGroup] = writers[KeyGroups.subtaskOf(keyGroup, maxParallelism, writers.length)];
        }
    }

    @Override
    public void collect(final Object record)
    {
        if (record == null)
        {
            throw writerOfKeyGroup[0].nullRecord();
        }
        final Object key;
        try
        {
            key = keySelector.getKey(record);
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException("the key selector of keyBy(...) before operator '" + keyedOperatorName +
                "' threw", ex);
        }
        if (key == null)
        {
            throw NullKeyException.of(keyedOperatorName, record);
        }
        if (key instanceof Long)
        {
            // unboxed from here on, so the key's box never escapes and the JIT can remove it
            collectByLongKey(record, (Long)key);
            return;
        }
        final int keyGroup = KeyGroups.keyGroupOf(key, maxParallelism);
        final ChannelWriter writer = writerOfKeyGroup[keyGroup];
        final CodecBuffer slot = writer.claimRecord();
        final int length = codec.encode(record, slot, 0);
        if (slot.overflowed())
        {
            throw writer.tooLarge(codec, record);
        }
        writer.commitRecord(keyGroup, length);
    }

    /** The key travels in front of the record: the keyed operator downstream never extracts it again. */
    private void collectByLongKey(final Object record, final long key)
    {
        // Long.hashCode, as KeyGroups.keyGroupOf(Long) hashes it
        final int keyGroup = KeyGroups.keyGroupOfHash(Long.hashCode(key), maxParallelism);
        final ChannelWriter writer = writerOfKeyGroup[keyGroup];
        final CodecBuffer slot = writer.claimRecord();
        slot.putLong(0, key);
        final int length = codec.encode(record, slot, SlotDescriptor.LONG_KEY_LENGTH);
        if (slot.overflowed())
        {
            throw writer.tooLarge(codec, record, SlotDescriptor.LONG_KEY_LENGTH);
        }
        writer.commitLongKeyedRecord(keyGroup, SlotDescriptor.LONG_KEY_LENGTH + length);
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
