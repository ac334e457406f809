package io.ringflow.engine.runtime.task;

import io.ringflow.engine.api.functions.KeySelector;
import io.ringflow.engine.channel.ChannelWriter;
import io.ringflow.engine.graph.PartitionKind;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.keyed.KeyGroups;

/**
 * Writes records into the ring channels of one edge, choosing the channel by the edge's partitioning. Writer
 * {@code i} leads to downstream subtask {@code i} (for FORWARD there is exactly one writer).
 */
public abstract class ChannelOutput implements Output
{
    final ChannelWriter[] writers;
    final Codec<Object> codec;

    ChannelOutput(final ChannelWriter[] writers, final Codec<Object> codec)
    {
        this.writers = writers;
        this.codec = codec;
    }

    public static ChannelOutput create(
        final PartitionKind partition,
        final ChannelWriter[] writers,
        final Codec<Object> codec,
        final KeySelector<Object, Object> keySelector,
        final String keyedOperatorName,
        final int maxParallelism,
        final int subtaskIndex)
    {
        switch (partition)
        {
            case FORWARD:
                return new Forward(writers, codec);
            case REBALANCE:
                return new Rebalance(writers, codec, subtaskIndex);
            case BROADCAST:
                return new Broadcast(writers, codec);
            case KEY_HASH:
                return new KeyHash(writers, codec, keySelector, keyedOperatorName, maxParallelism);
            default:
                throw new IllegalArgumentException("unknown partitioning " + partition);
        }
    }

    private static final class Forward extends ChannelOutput
    {
        private final ChannelWriter writer;

        Forward(final ChannelWriter[] writers, final Codec<Object> codec)
        {
            super(writers, codec);
            writer = writers[0];
        }

        @Override
        public void collect(final Object record)
        {
            writer.writeRecord(codec, record);
        }
    }

    private static final class Rebalance extends ChannelOutput
    {
        private int next;

        Rebalance(final ChannelWriter[] writers, final Codec<Object> codec, final int subtaskIndex)
        {
            super(writers, codec);
            // Start each upstream subtask at a different channel, so small inputs spread too.
            next = subtaskIndex % writers.length;
        }

        @Override
        public void collect(final Object record)
        {
            writers[next].writeRecord(codec, record);
            if (++next == writers.length)
            {
                next = 0;
            }
        }
    }

    private static final class Broadcast extends ChannelOutput
    {
        Broadcast(final ChannelWriter[] writers, final Codec<Object> codec)
        {
            super(writers, codec);
        }

        @Override
        public void collect(final Object record)
        {
            for (final ChannelWriter writer : writers)
            {
                writer.writeRecord(codec, record);
            }
        }
    }

    private static final class KeyHash extends ChannelOutput
    {
        private final KeySelector<Object, Object> keySelector;
        private final String keyedOperatorName;
        private final int maxParallelism;
        /** Channel of each key group: the subtask that owns it, precomputed to keep a division off the hot path. */
        private final ChannelWriter[] writerOfKeyGroup;

        KeyHash(
            final ChannelWriter[] writers,
            final Codec<Object> codec,
            final KeySelector<Object, Object> keySelector,
            final String keyedOperatorName,
            final int maxParallelism)
        {
            super(writers, codec);
            this.keySelector = keySelector;
            this.keyedOperatorName = keyedOperatorName;
            this.maxParallelism = maxParallelism;
            this.writerOfKeyGroup = new ChannelWriter[maxParallelism];
            for (int keyGroup = 0; keyGroup < maxParallelism; keyGroup++)
            {
                writerOfKeyGroup[keyGroup] = writers[KeyGroups.subtaskOf(keyGroup, maxParallelism, writers.length)];
            }
        }

        @Override
        public void collect(final Object record)
        {
            final Object key;
            try
            {
                key = keySelector.getKey(record);
            }
            catch (final Exception ex)
            {
                throw new IllegalStateException("the key selector of keyBy(...) before operator '" +
                    keyedOperatorName + "' threw", ex);
            }
            if (key == null)
            {
                throw NullKeyException.of(keyedOperatorName, record);
            }
            writerOfKeyGroup[KeyGroups.keyGroupOf(key, maxParallelism)].writeRecord(codec, record);
        }
    }
}
