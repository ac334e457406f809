package io.ringflow.state.snapshot;

import java.util.Objects;

/**
 * What a keyed snapshot says about one declared state, so a restore can check it against the state's declaration
 * before decoding a single value: its name, kind and the types and codec versions of its keys and values.
 *
 * @param name              the state's name, unique within its operator.
 * @param kind              value, map, list, reducing or aggregating.
 * @param keyType           the binary name of the key type.
 * @param keyCodecVersion   the version of the codec that wrote the keys.
 * @param valueType         the binary name of the value type (for a map state, the map's value type).
 * @param valueCodecVersion the version of the codec that wrote the values.
 */
public record StateMeta(
    String name, StateKind kind, String keyType, int keyCodecVersion, String valueType, int valueCodecVersion)
{
    /** Checks every field is present. */
    public StateMeta
    {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(keyType, "keyType");
        Objects.requireNonNull(valueType, "valueType");
    }
}
