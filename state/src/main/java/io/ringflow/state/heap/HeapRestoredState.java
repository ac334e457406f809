package io.ringflow.state.heap;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.keyed.StateDescriptor;
import io.ringflow.state.keyed.StateKind;
import io.ringflow.state.snapshot.ListCodec;
import io.ringflow.state.snapshot.StateCompatibility;
import io.ringflow.state.snapshot.StateMeta;
import io.ringflow.state.snapshot.TtlValues;

import java.util.ArrayList;
import java.util.List;

/**
 * Entries of one state read from snapshots, kept encoded until the state is declared, then checked against the
 * declaration and decoded into it. Until then they are carried into every snapshot unchanged.
 *
 * <p>Thread contract: the task thread; a snapshot's flusher reads the raw entries of a state that is not declared
 * (they are never changed once restore is over).
 */
final class HeapRestoredState
{
    /** Visits raw entries. */
    @FunctionalInterface
    interface RawVisitor
    {
        /**
         * @param keyGroup the entry's key group.
         * @param key      the encoded key.
         * @param userKey  the encoded user key, or null.
         * @param value    the encoded value, as in the snapshot.
         */
        void entry(int keyGroup, byte[] key, byte[] userKey, byte[] value);
    }

    final StateMeta meta;
    private final List<Integer> keyGroups = new ArrayList<>();
    private final List<byte[]> keys = new ArrayList<>();
    private final List<byte[]> userKeys = new ArrayList<>();
    private final List<byte[]> values = new ArrayList<>();

    HeapRestoredState(final StateMeta meta)
    {
        this.meta = meta;
    }

    void check(final StateMeta other)
    {
        if (!meta.equals(other))
        {
            throw new IllegalStateException("state '" + meta.name() + "' is described differently by two " +
                "snapshots being restored: " + meta + " and " + other);
        }
    }

    void add(final int keyGroup, final byte[] key, final byte[] userKey, final byte[] value)
    {
        keyGroups.add(keyGroup);
        keys.add(key);
        userKeys.add(userKey);
        values.add(value);
    }

    int size()
    {
        return keys.size();
    }

    void forEachRaw(final RawVisitor visitor)
    {
        for (int i = 0; i < keys.size(); i++)
        {
            visitor.entry(keyGroups.get(i), keys.get(i), userKeys.get(i), values.get(i));
        }
    }

    /**
     * Checks the entries against {@code state}'s declaration and puts each, decoded, into it.
     *
     * @param state  the state just declared, empty.
     * @param codecs the codecs now registered.
     * @throws IllegalStateException naming the state, when the entries do not match the declaration or cannot be
     *                               decoded.
     */
    @SuppressWarnings("unchecked")
    void decodeInto(final HeapState state, final CodecRegistry codecs)
    {
        final StateDescriptor descriptor = state.descriptor;
        final Codec<Object> valueCodec = (Codec<Object>)codecs.codecFor(descriptor.valueType());
        final Codec<Object> userKeyCodec = descriptor.kind() == StateKind.MAP ?
            (Codec<Object>)codecs.codecFor(descriptor.userKeyType()) : null;
        StateCompatibility.checkRestored(meta, descriptor, valueCodec, userKeyCodec);
        if (keys.isEmpty())
        {
            return;
        }
        final Codec<Object> keyCodec = StateCompatibility.restoredKeyCodec(meta, codecs);
        final Codec<?> decoder = descriptor.kind() == StateKind.LIST ? new ListCodec<>(valueCodec) : valueCodec;
        final int prefix = meta.timeToLive() ? TtlValues.PREFIX_LENGTH : 0;
        for (int i = 0; i < keys.size(); i++)
        {
            try
            {
                final Object key = keyCodec.decode(CodecBuffer.wrap(keys.get(i)), 0, keys.get(i).length);
                Object userKey = null;
                if (userKeyCodec != null)
                {
                    final byte[] rawUserKey = userKeys.get(i);
                    if (rawUserKey == null)
                    {
                        throw new IllegalArgumentException("a map entry without a user key");
                    }
                    userKey = userKeyCodec.decode(CodecBuffer.wrap(rawUserKey), 0, rawUserKey.length);
                }
                final byte[] value = values.get(i);
                if (value.length < prefix)
                {
                    throw new IllegalArgumentException("a value of " + value.length + " bytes has no room for its " +
                        "time-to-live timestamp");
                }
                final CodecBuffer buffer = CodecBuffer.wrap(value);
                final long timestamp = prefix == 0 ? 0 : TtlValues.timestamp(buffer, 0);
                state.putRestored(key, userKey, decoder.decode(buffer, prefix, value.length - prefix), timestamp);
            }
            catch (final RuntimeException ex)
            {
                throw new IllegalStateException("state '" + meta.name() + "' has a restored entry that the codecs " +
                    "now registered cannot decode (keys " + meta.keyType() + ", values " + meta.valueType() + "): " +
                    ex, ex);
            }
        }
    }
}
