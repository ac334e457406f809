package io.ringflow.state.keyed;

import java.util.Objects;

/**
 * Declares a {@link MapState}: its name, unique within an operator, and the user key and value types, whose codecs
 * write each entry into snapshots (the user key as the entry's sub-key).
 *
 * @param <UK> the user key type.
 * @param <UV> the value type.
 */
public final class MapStateDescriptor<UK, UV> extends StateDescriptor
{
    private final Class<UK> userKeyType;
    private final Class<UV> valueType;

    /**
     * @param name        the state's name, unique within its operator.
     * @param userKeyType the user key type.
     * @param valueType   the value type.
     */
    public MapStateDescriptor(final String name, final Class<UK> userKeyType, final Class<UV> valueType)
    {
        super(name);
        this.userKeyType = Objects.requireNonNull(userKeyType, "userKeyType");
        this.valueType = Objects.requireNonNull(valueType, "valueType");
    }

    @Override
    public StateKind kind()
    {
        return StateKind.MAP;
    }

    @Override
    public Class<UK> userKeyType()
    {
        return userKeyType;
    }

    @Override
    public Class<UV> valueType()
    {
        return valueType;
    }

    @Override
    public MapStateDescriptor<UK, UV> enableTimeToLive(final StateTtlConfig config)
    {
        setTimeToLive(config);
        return this;
    }
}
