package io.ringflow.engine.checkpoint.barrier;

import java.util.StringJoiner;

/**
 * A task's input channels as bitmaps: how many there are and which have delivered END_OF_INPUT. Immutable; a state
 * that sees a channel end returns a successor holding {@link #withEnded(int)}.
 *
 * <p>Channel {@code c} is bit {@code 1L << c}, so a task has at most {@link #MAX_CHANNELS} channels.
 *
 * @param count how many channels, 1 to {@link #MAX_CHANNELS}.
 * @param ended the channels that have delivered END_OF_INPUT.
 */
record Inputs(int count, long ended)
{
    /** The most channels a bitmap holds. */
    static final int MAX_CHANNELS = Long.SIZE;

    /**
     * @param channel a channel, 0-based.
     * @return its bit.
     */
    static long bit(final int channel)
    {
        return 1L << channel;
    }

    /** @return every channel. */
    long all()
    {
        return count == MAX_CHANNELS ? -1L : (1L << count) - 1;
    }

    /** @return the channels that have not ended. */
    long live()
    {
        return all() & ~ended;
    }

    /** @return whether every channel has ended. */
    boolean allEnded()
    {
        return ended == all();
    }

    /**
     * @param channel a channel, 0-based.
     * @return whether it has ended.
     */
    boolean isEnded(final int channel)
    {
        return (ended & bit(channel)) != 0;
    }

    /**
     * @param channel the channel that just delivered END_OF_INPUT.
     * @return these inputs with it ended.
     */
    Inputs withEnded(final int channel)
    {
        return new Inputs(count, ended | bit(channel));
    }

    /**
     * @param channels a bitmap of channels.
     * @return the channels as a readable set, for messages: {@code {0, 3}}.
     */
    static String describe(final long channels)
    {
        final StringJoiner joiner = new StringJoiner(", ", "{", "}");
        for (long rest = channels; rest != 0; rest &= rest - 1)
        {
            joiner.add(Integer.toString(Long.numberOfTrailingZeros(rest)));
        }
        return joiner.toString();
    }
}
