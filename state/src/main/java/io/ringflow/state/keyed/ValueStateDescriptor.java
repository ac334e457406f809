package io.ringflow.state.keyed;

import java.util.Objects;

/**
 * Declares a {@link ValueState}: its name, unique within an operator, the value type (whose codec writes it into
 * snapshots) and the value returned for keys that have none.
 *
 * @param <T> the value type.
 */
public final class ValueStateDescriptor<T> extends StateDescriptor
{
    private final Class<T> type;
    private final T defaultValue;

    /**
     * @param name the state's name, unique within its operator.
     * @param type the value type.
     */
    public ValueStateDescriptor(final String name, final Class<T> type)
    {
        this(name, type, null);
    }

    /**
     * @param name         the state's name, unique within its operator.
     * @param type         the value type.
     * @param defaultValue returned by {@link ValueState#value()} for keys without a value; may be null.
     */
    public ValueStateDescriptor(final String name, final Class<T> type, final T defaultValue)
    {
        super(name);
        this.type = Objects.requireNonNull(type, "type");
        this.defaultValue = defaultValue;
    }

    /** @return the value type. */
    public Class<T> type()
    {
        return type;
    }

    /** @return the value for keys without one; may be null. */
    public T defaultValue()
    {
        return defaultValue;
    }

    @Override
    public StateKind kind()
    {
        return StateKind.VALUE;
    }

    @Override
    public Class<T> valueType()
    {
        return type;
    }

    @Override
    public ValueStateDescriptor<T> enableTimeToLive(final StateTtlConfig config)
    {
        setTimeToLive(config);
        return this;
    }
}
