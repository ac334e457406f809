package io.ringflow.state.keyed;

import java.util.Objects;

/**
 * Declares a {@link ListState}: its name, unique within an operator, and the element type, whose codec writes the
 * elements into snapshots.
 *
 * @param <T> the element type.
 */
public final class ListStateDescriptor<T> extends StateDescriptor
{
    private final Class<T> elementType;

    /**
     * @param name        the state's name, unique within its operator.
     * @param elementType the element type.
     */
    public ListStateDescriptor(final String name, final Class<T> elementType)
    {
        super(name);
        this.elementType = Objects.requireNonNull(elementType, "elementType");
    }

    @Override
    public StateKind kind()
    {
        return StateKind.LIST;
    }

    /** @return the element type. */
    @Override
    public Class<T> valueType()
    {
        return elementType;
    }

    @Override
    public ListStateDescriptor<T> enableTimeToLive(final StateTtlConfig config)
    {
        setTimeToLive(config);
        return this;
    }
}
