package io.ringflow.state.snapshot;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.keyed.StateDescriptor;
import io.ringflow.state.keyed.StateKind;
import io.ringflow.state.keyed.StateTtlConfig;

/**
 * The checks every keyed state backend makes, in one place so both give the same answers with the same messages: a
 * name declared again must mean the same state, and restored entries must have been written for the state now
 * declared. For backends; user code has no reason to call it.
 *
 * <p>Stateless; any thread.
 */
public final class StateCompatibility
{
    private StateCompatibility()
    {
    }

    /**
     * @param declared  the descriptor the state was declared with.
     * @param requested the descriptor of another declaration with the same name.
     * @throws IllegalStateException naming the state, when the kind, a type or the time-to-live differ.
     */
    public static void checkRedeclared(final StateDescriptor declared, final StateDescriptor requested)
    {
        if (declared.kind() != requested.kind() || declared.valueType() != requested.valueType() ||
            declared.userKeyType() != requested.userKeyType())
        {
            throw new IllegalStateException("state '" + declared.name() + "' is already declared as " +
                declared.describe() + "; cannot declare it again as " + requested.describe());
        }
        final StateTtlConfig before = declared.ttlConfig();
        final StateTtlConfig now = requested.ttlConfig();
        if (before == null ? now != null : !before.sameExpiry(now))
        {
            throw new IllegalStateException("state '" + declared.name() + "' is already declared with " +
                (before == null ? "no time-to-live" : before) + "; cannot declare it again with " +
                (now == null ? "no time-to-live" : now));
        }
    }

    /**
     * Checks restored entries against the declaration of their state, before any is decoded: kind, time-to-live,
     * types, then codec versions.
     *
     * @param meta         what the snapshot says about the state.
     * @param descriptor   the declaration.
     * @param valueCodec   the codec now registered for {@link StateDescriptor#valueType()}.
     * @param userKeyCodec the codec now registered for {@link StateDescriptor#userKeyType()}; null when none.
     * @throws IllegalStateException naming the state, when they do not match.
     */
    public static void checkRestored(
        final StateMeta meta, final StateDescriptor descriptor, final Codec<?> valueCodec, final Codec<?> userKeyCodec)
    {
        final String name = meta.name();
        if (meta.kind() != descriptor.kind())
        {
            throw new IllegalStateException("state '" + name + "' was saved as " + meta.kind() +
                " state and is now declared as " + descriptor.kind() + " state");
        }
        if (meta.timeToLive() != descriptor.isTimeToLiveEnabled())
        {
            throw new IllegalStateException("state '" + name + "' was saved " +
                (meta.timeToLive() ? "with" : "without") + " a time-to-live and is now declared " +
                (meta.timeToLive() ? "without one" : "with one") + ": its saved values " +
                (meta.timeToLive() ? "start with" : "have no") + " expiry timestamps; declare it " +
                (meta.timeToLive() ? "with enableTimeToLive" : "without a time-to-live") + " to restore it");
        }
        if (!meta.valueType().equals(descriptor.valueType().getName()))
        {
            throw new IllegalStateException("state '" + name + "' was saved with values of type " +
                meta.valueType() + " and is now declared with type " + descriptor.valueType().getName());
        }
        final Class<?> userKeyType = descriptor.userKeyType();
        final String declaredUserKeyType = userKeyType == null ? "" : userKeyType.getName();
        if (!meta.userKeyType().equals(declaredUserKeyType))
        {
            throw new IllegalStateException("state '" + name + "' was saved with user keys of type " +
                meta.userKeyType() + " and is now declared with user keys of type " + declaredUserKeyType);
        }
        if (valueCodec.version() != meta.valueCodecVersion())
        {
            throw new IllegalStateException("state '" + name + "' was saved by codec version " +
                meta.valueCodecVersion() + " of " + meta.valueType() + ", and the codec now registered is version " +
                valueCodec.version() + ": register a codec that reads version " + meta.valueCodecVersion());
        }
        if (userKeyCodec != null && userKeyCodec.version() != meta.userKeyCodecVersion())
        {
            throw new IllegalStateException("state '" + name + "' was saved by codec version " +
                meta.userKeyCodecVersion() + " of its user key type " + meta.userKeyType() + ", and the codec now " +
                "registered is version " + userKeyCodec.version() + ": register a codec that reads version " +
                meta.userKeyCodecVersion());
        }
    }

    /**
     * The codec of restored keys, checked against the version that wrote them.
     *
     * @param meta   what the snapshot says about the state, whose key type is not empty.
     * @param codecs the codecs now registered.
     * @return the key codec.
     * @throws IllegalStateException naming the state, when the key type is not on the class path or its codec is
     *                               another version.
     */
    @SuppressWarnings("unchecked")
    public static Codec<Object> restoredKeyCodec(final StateMeta meta, final CodecRegistry codecs)
    {
        final Codec<Object> keyCodec = (Codec<Object>)codecs.codecFor(restoredKeyClass(meta));
        if (keyCodec.version() != meta.keyCodecVersion())
        {
            throw new IllegalStateException("state '" + meta.name() + "' was saved by codec version " +
                meta.keyCodecVersion() + " of its key type " + meta.keyType() + ", the codec now registered is " +
                "version " + keyCodec.version());
        }
        return keyCodec;
    }

    /**
     * @param meta what a snapshot says about a state, whose key type is not empty.
     * @return the key type, loaded but not initialised (the name only selects a registered codec).
     * @throws IllegalStateException naming the state, when the key type is not on the class path.
     */
    public static Class<?> restoredKeyClass(final StateMeta meta)
    {
        try
        {
            final ClassLoader loader = Thread.currentThread().getContextClassLoader();
            return Class.forName(meta.keyType(), false,
                loader != null ? loader : StateCompatibility.class.getClassLoader());
        }
        catch (final ClassNotFoundException ex)
        {
            throw new IllegalStateException("state '" + meta.name() + "' has keys of type " + meta.keyType() +
                ", which is not on the class path", ex);
        }
    }

    /**
     * @param descriptor   the declaration.
     * @param ttl          the time-to-live the state was declared with (read from the descriptor then), or null.
     * @param keyClass     the store's key type; null when it has seen no key.
     * @param keyCodec     its codec; null when it has seen no key.
     * @param valueCodec   the codec of {@link StateDescriptor#valueType()}.
     * @param userKeyCodec the codec of {@link StateDescriptor#userKeyType()}; null when none.
     * @return what a snapshot says about the state.
     */
    public static StateMeta meta(
        final StateDescriptor descriptor, final StateTtlConfig ttl, final Class<?> keyClass, final Codec<?> keyCodec,
        final Codec<?> valueCodec, final Codec<?> userKeyCodec)
    {
        return new StateMeta(descriptor.name(), descriptor.kind(), keyClass == null ? "" : keyClass.getName(),
            keyCodec == null ? 0 : keyCodec.version(), descriptor.valueType().getName(), valueCodec.version(),
            descriptor.kind() == StateKind.MAP ? descriptor.userKeyType().getName() : "",
            userKeyCodec == null ? 0 : userKeyCodec.version(), ttl != null);
    }
}
