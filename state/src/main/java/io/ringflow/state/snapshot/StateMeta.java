package io.ringflow.state.snapshot;

import io.ringflow.state.keyed.StateKind;

import java.util.Objects;

/**
 * What a keyed snapshot says about one declared state, so a restore can check it against the state's declaration
 * before decoding a single value: its name, kind, the types and codec versions of its keys, user keys and values, and
 * whether its values carry a time-to-live timestamp.
 *
 * <p>What "value" means per kind, and so what {@link #valueType()} names: the value of a VALUE or REDUCING state, the
 * map value of a MAP state (whose user key is {@link #userKeyType()}), the element of a LIST state, and the
 * accumulator of an AGGREGATING state.
 *
 * @param name                the state's name, unique within its operator.
 * @param kind                value, map, list, reducing or aggregating.
 * @param keyType             the binary name of the key type; empty when the state never had a key.
 * @param keyCodecVersion     the version of the codec that wrote the keys.
 * @param valueType           the binary name of the value type (see above).
 * @param valueCodecVersion   the version of the codec that wrote the values.
 * @param userKeyType         the binary name of a MAP state's user key type, written as the entries' sub-keys; empty
 *                            for every other kind.
 * @param userKeyCodecVersion the version of the codec that wrote the user keys; 0 when there are none.
 * @param timeToLive          whether every value starts with a time-to-live timestamp ({@link TtlValues}).
 */
public record StateMeta(
    String name, StateKind kind, String keyType, int keyCodecVersion, String valueType, int valueCodecVersion,
    String userKeyType, int userKeyCodecVersion, boolean timeToLive)
{
    /** Checks every field is present. */
    public StateMeta
    {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(keyType, "keyType");
        Objects.requireNonNull(valueType, "valueType");
        Objects.requireNonNull(userKeyType, "userKeyType");
    }

    /**
     * A state without user keys and without time-to-live: what every state of a format version 1 snapshot is.
     *
     * @param name              the state's name.
     * @param kind              its kind.
     * @param keyType           the binary name of the key type.
     * @param keyCodecVersion   the version of the key codec.
     * @param valueType         the binary name of the value type.
     * @param valueCodecVersion the version of the value codec.
     */
    public StateMeta(
        final String name, final StateKind kind, final String keyType, final int keyCodecVersion,
        final String valueType, final int valueCodecVersion)
    {
        this(name, kind, keyType, keyCodecVersion, valueType, valueCodecVersion, "", 0, false);
    }
}
