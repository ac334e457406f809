package io.ringflow.state.keyed;

/**
 * One accumulator per key, to which inputs are added by the descriptor's {@link AggregateFunction}; what is stored
 * (and snapshotted) is the accumulator, what is read its result.
 *
 * <p>Thread contract: the task thread only, like every state.
 *
 * @param <IN>  the input type.
 * @param <OUT> the result type.
 */
public interface AggregatingState<IN, OUT> extends State
{
    /** @return the result of the current key's accumulator, or null when nothing was added (or it has expired). */
    OUT get();

    /**
     * Adds {@code value} to the current key's accumulator, created by the function when there is none.
     *
     * @param value the input.
     * @throws NullPointerException when it is null.
     */
    void add(IN value);

    /** Removes the current key's accumulator. */
    @Override
    void clear();
}
