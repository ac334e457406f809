package io.ringflow.state.keyed;

/**
 * A {@code long} per key, read and written without boxing: the unboxed view of a {@code ValueState<Long>}, for
 * counters and sums on the record path.
 *
 * <p>It is a view, not a state of its own: {@code getLongState(descriptor)} and {@code getState(descriptor)} with the
 * same descriptor see the same values, and checkpoints hold them as the {@code ValueState<Long>} they are, so a job
 * may move from one to the other across a restore. Both built-in backends serve it unboxed for {@code Long} keys
 * (the heap backend from a primitive map, the Chronicle backend from its hot-key front); any other backend gets
 * {@link #over(ValueState, long)}, which boxes.
 *
 * <p>Thread contract: as every state, the task thread only, while a record of some key is being processed.
 */
public interface LongValueState extends State
{
    /**
     * @return the current key's value, or the default (the descriptor's, or 0 when it has none) when the key has
     *     none.
     */
    long value();

    /**
     * Sets the current key's value.
     *
     * @param value the new value.
     */
    void update(long value);

    /**
     * Adds to the current key's value: {@code update(value() + delta)}.
     *
     * @param delta what to add.
     * @return the new value.
     */
    default long add(final long delta)
    {
        final long next = value() + delta;
        update(next);
        return next;
    }

    /**
     * The view any backend can give: every call boxes or unboxes through {@code state}.
     *
     * @param state        the {@code ValueState<Long>}.
     * @param defaultValue what {@link #value()} reads for a key without a value.
     * @return the view.
     */
    static LongValueState over(final ValueState<Long> state, final long defaultValue)
    {
        return new LongValueState()
        {
            @Override
            public long value()
            {
                final Long value = state.value();
                return value != null ? value : defaultValue;
            }

            @Override
            public void update(final long value)
            {
                state.update(value);
            }

            @Override
            public void clear()
            {
                state.clear();
            }
        };
    }

    /**
     * @param descriptor a {@code Long} value state's declaration.
     * @return what {@link #value()} reads for a key without a value: the descriptor's default, or 0.
     */
    static long defaultOf(final ValueStateDescriptor<Long> descriptor)
    {
        final Long value = descriptor.defaultValue();
        return value != null ? value : 0L;
    }
}
