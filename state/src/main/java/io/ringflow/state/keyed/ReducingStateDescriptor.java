package io.ringflow.state.keyed;

import java.util.Objects;

/**
 * Declares a {@link ReducingState}: its name, unique within an operator, the function that folds added values, and
 * the value type, whose codec writes the folded value into snapshots.
 *
 * @param <T> the value type.
 */
public final class ReducingStateDescriptor<T> extends StateDescriptor
{
    private final ReduceFunction<T> function;
    private final Class<T> type;

    /**
     * @param name     the state's name, unique within its operator.
     * @param function folds added values.
     * @param type     the value type.
     */
    public ReducingStateDescriptor(final String name, final ReduceFunction<T> function, final Class<T> type)
    {
        super(name);
        this.function = Objects.requireNonNull(function, "function");
        this.type = Objects.requireNonNull(type, "type");
    }

    /** @return the function that folds added values. */
    public ReduceFunction<T> function()
    {
        return function;
    }

    @Override
    public StateKind kind()
    {
        return StateKind.REDUCING;
    }

    @Override
    public Class<T> valueType()
    {
        return type;
    }

    @Override
    public ReducingStateDescriptor<T> enableTimeToLive(final StateTtlConfig config)
    {
        setTimeToLive(config);
        return this;
    }
}
