package io.ringflow.state.keyed;

import java.util.Objects;

/**
 * Declares an {@link AggregatingState}: its name, unique within an operator, the function that adds inputs to an
 * accumulator, and the accumulator type, whose codec writes the accumulator (what is stored) into snapshots.
 *
 * @param <IN>  the input type.
 * @param <ACC> the accumulator type.
 * @param <OUT> the result type.
 */
public final class AggregatingStateDescriptor<IN, ACC, OUT> extends StateDescriptor
{
    private final AggregateFunction<IN, ACC, OUT> function;
    private final Class<ACC> accumulatorType;

    /**
     * @param name            the state's name, unique within its operator.
     * @param function        adds inputs to accumulators and computes results.
     * @param accumulatorType the accumulator type.
     */
    public AggregatingStateDescriptor(
        final String name, final AggregateFunction<IN, ACC, OUT> function, final Class<ACC> accumulatorType)
    {
        super(name);
        this.function = Objects.requireNonNull(function, "function");
        this.accumulatorType = Objects.requireNonNull(accumulatorType, "accumulatorType");
    }

    /** @return the function. */
    public AggregateFunction<IN, ACC, OUT> function()
    {
        return function;
    }

    /** @return the accumulator type. */
    @Override
    public Class<ACC> valueType()
    {
        return accumulatorType;
    }

    @Override
    public StateKind kind()
    {
        return StateKind.AGGREGATING;
    }

    @Override
    public AggregatingStateDescriptor<IN, ACC, OUT> enableTimeToLive(final StateTtlConfig config)
    {
        setTimeToLive(config);
        return this;
    }
}
