package io.ringflow.state.keyed;

/**
 * Adds inputs to an accumulator and turns it into a result, for an {@link AggregatingState}. Called on the task
 * thread. The accumulator is what the state stores and snapshots, through the codec of the descriptor's accumulator
 * type; {@link #add} may change the accumulator it is given and return it (both backends copy it at a barrier).
 *
 * @param <IN>  the input type.
 * @param <ACC> the accumulator type.
 * @param <OUT> the result type.
 */
public interface AggregateFunction<IN, ACC, OUT>
{
    /** @return a new accumulator, for a key that has none. */
    ACC createAccumulator();

    /**
     * @param value       the input, never null.
     * @param accumulator the key's accumulator, never null.
     * @return the accumulator with the input added, never null.
     */
    ACC add(IN value, ACC accumulator);

    /**
     * @param accumulator the key's accumulator, never null.
     * @return its result.
     */
    OUT getResult(ACC accumulator);

    /**
     * Merges two accumulators into one: needed by session windows, whose windows merge. The default refuses.
     *
     * @param a an accumulator.
     * @param b another.
     * @return their merge.
     */
    default ACC merge(final ACC a, final ACC b)
    {
        throw new UnsupportedOperationException(getClass().getName() + " does not implement merge(a, b), which " +
            "merging (session) windows need");
    }
}
