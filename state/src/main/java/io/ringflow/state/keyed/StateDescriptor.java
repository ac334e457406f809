package io.ringflow.state.keyed;


/**
 * What every state declaration has: a name, unique within an operator, a {@link StateKind}, the types whose codecs
 * write its entries into snapshots, and an optional {@link StateTtlConfig time-to-live}.
 *
 * <p>The kinds: {@link ValueStateDescriptor}, {@link MapStateDescriptor}, {@link ListStateDescriptor},
 * {@link ReducingStateDescriptor}, {@link AggregatingStateDescriptor}; no other subclass can exist.
 *
 * <p>Thread contract: a descriptor is configured ({@code enableTimeToLive}) before it declares a state; the store
 * reads the configuration once, when the state is declared, so later changes do not affect a declared state (and
 * declaring it again with another time-to-live is refused).
 */
public abstract class StateDescriptor
{
    private final String name;
    private volatile StateTtlConfig ttlConfig;

    StateDescriptor(final String name)
    {
        if (name == null || name.isBlank())
        {
            throw new IllegalArgumentException("state name must not be blank");
        }
        this.name = name;
    }

    /** @return the state's name. */
    public final String name()
    {
        return name;
    }

    /** @return the kind of state declared. */
    public abstract StateKind kind();

    /**
     * @return the type of what each snapshot entry's value holds: the value of a value or reducing state, a map
     * state's values, a list state's elements, an aggregating state's accumulator.
     */
    public abstract Class<?> valueType();

    /** @return a map state's user key type; null for every other kind. */
    public Class<?> userKeyType()
    {
        return null;
    }

    /**
     * Gives the state a time-to-live; see {@link StateTtlConfig} for the semantics.
     *
     * @param config the time-to-live.
     * @return this descriptor.
     */
    public abstract StateDescriptor enableTimeToLive(StateTtlConfig config);

    /** @return the time-to-live, or null when entries never expire. */
    public final StateTtlConfig ttlConfig()
    {
        return ttlConfig;
    }

    /** @return whether entries expire. */
    public final boolean isTimeToLiveEnabled()
    {
        return ttlConfig != null;
    }

    final void setTimeToLive(final StateTtlConfig config)
    {
        if (config == null)
        {
            throw new NullPointerException("the time-to-live of state '" + name + "' must not be null");
        }
        ttlConfig = config;
    }

    /** @return the kind and types, for messages: "MAP state of java.lang.String to java.lang.Long". */
    public String describe()
    {
        final Class<?> userKey = userKeyType();
        return kind() + " state of " + (userKey == null ? "" : userKey.getName() + " to ") + valueType().getName();
    }

    @Override
    public String toString()
    {
        final StateTtlConfig ttl = ttlConfig;
        return getClass().getSimpleName() + "{name='" + name + "', " + describe() +
            (ttl == null ? "" : ", " + ttl) + '}';
    }
}
