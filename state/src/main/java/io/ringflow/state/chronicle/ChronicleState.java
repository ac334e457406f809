package io.ringflow.state.chronicle;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.keyed.State;
import io.ringflow.state.keyed.StateDescriptor;
import io.ringflow.state.keyed.StateTtlConfig;
import io.ringflow.state.snapshot.StateCompatibility;
import io.ringflow.state.snapshot.StateMeta;
import io.ringflow.state.snapshot.TtlValues;

/**
 * What every Chronicle state shares: its declaration, its {@link StateMap}, its codecs and time-to-live, and the
 * current key, encoded once per record by the store.
 *
 * <p>Stored values are exactly snapshot values: with a time-to-live each starts with the {@link TtlValues} timestamp
 * ({@link #prefix} bytes), and a map state's values are {@link MapBlobLayout map values}.
 *
 * <p>Thread contract: the task thread only.
 */
abstract class ChronicleState implements State
{
    final ChronicleKeyedStateStore store;
    final StateMap map;
    /** The declaration; replaced only by {@link #rebind}. */
    StateDescriptor descriptor;
    /** The codec of {@link StateDescriptor#valueType()}. */
    final Codec<Object> valueCodec;
    /** The time-to-live, or null; replaced only by {@link #rebind} (null stays null: redeclarations agree on it). */
    StateTtlConfig ttl;
    /** Bytes of the time-to-live prefix of each value: 0 or {@link TtlValues#PREFIX_LENGTH}. */
    final int prefix;
    final int maxEntrySize;
    /**
     * What {@link #meta} last built, and the key type and codec it was built for (compared by identity); null until
     * the first barrier and after a {@link #rebind}.
     */
    private StateMeta meta;
    private Class<?> metaKeyClass;
    private Codec<?> metaKeyCodec;

    ChronicleState(
        final ChronicleKeyedStateStore store, final StateMap map, final StateDescriptor descriptor,
        final Codec<Object> valueCodec, final int maxEntrySize)
    {
        this.store = store;
        this.map = map;
        this.descriptor = descriptor;
        this.valueCodec = valueCodec;
        this.ttl = descriptor.ttlConfig();
        this.prefix = ttl == null ? 0 : TtlValues.PREFIX_LENGTH;
        this.maxEntrySize = maxEntrySize;
    }

    /** @return the time-to-live read from the descriptor at declaration, or null. */
    final StateTtlConfig ttl()
    {
        return ttl;
    }

    /** @return the declaration. */
    final StateDescriptor descriptor()
    {
        return descriptor;
    }

    /** @return the state's map. */
    final StateMap map()
    {
        return map;
    }

    /** @return the codec of a map state's user keys; null for every other kind. */
    Codec<Object> userKeyCodec()
    {
        return null;
    }

    /**
     * @param keyClass the store's key type, or null.
     * @param keyCodec its codec, or null.
     * @return what a snapshot says about this state.
     */
    final StateMeta meta(final Class<?> keyClass, final Codec<?> keyCodec)
    {
        // the same at every barrier once the store has seen a key: built again only when an input changed (the first
        // key, a rebind), so the synchronous part does not describe the state anew each time
        StateMeta known = meta;
        if (known == null || keyClass != metaKeyClass || keyCodec != metaKeyCodec)
        {
            known = StateCompatibility.meta(descriptor, ttl, keyClass, keyCodec, valueCodec, userKeyCodec());
            meta = known;
            metaKeyClass = keyClass;
            metaKeyCodec = keyCodec;
        }
        return known;
    }

    /**
     * @param keyCodec         the store's key codec at the barrier; null while no key was seen.
     * @param maxParallelism   the job's number of key groups.
     * @param changedSinceBase for a delta, its base: only front entries changed after the base's barrier are copied;
     *                         {@link Long#MIN_VALUE} for a full snapshot (every entry).
     * @return a frozen copy of this state's hot-key front for a snapshot taken now, or null when the state has no
     *     front or nothing to copy. Task thread, at the barrier.
     */
    FrontOverlay frontOverlay(final Codec<Object> keyCodec, final int maxParallelism, final long changedSinceBase)
    {
        return null;
    }

    /**
     * @param keyCodec the store's key codec.
     * @return whether a delta may rewrite a slice of this state's hot-key front, if it has one (see
     *     {@link FrontOverlay#canRewriteSlice}); true for a state without a front. Task thread, at the barrier.
     */
    boolean frontCanRewriteSlice(final Codec<Object> keyCodec)
    {
        return true;
    }

    /**
     * Closes the lookup this state keeps open between a read and a write of the current key, if any. Task thread;
     * called by the store before anything else touches this state's map, and when the current key changes.
     */
    void releaseHeld()
    {
    }

    /**
     * Marks a snapshot's barrier in this state's hot-key front: entries changed from now on are changed after it.
     * Task thread, after {@link #frontOverlay}.
     *
     * @param checkpointId the snapshot's checkpoint.
     */
    void sealFront(final long checkpointId)
    {
    }

    /** @return the keys of this state's hot-key front that also have a (stale) value in its map; 0 without a front. */
    long frontShadowedEntries()
    {
        return 0;
    }

    /** @return the keys of this state's hot-key front that have no value in its map; 0 without a front. */
    long frontOnlyEntries()
    {
        return 0;
    }

    /**
     * Writes this state's hot-key front back to its map and empties it; nothing without a front. Task thread.
     *
     * @throws IllegalStateException when the map refuses a write; the front then keeps every entry.
     */
    void writeBackFront()
    {
    }

    /**
     * Local recovery: hands over the keys of this state's hot-key front changed after {@code checkpointId}'s barrier
     * ({@link HotKeyFront#forEachKeyChangedSince}); nothing without a front.
     *
     * @param checkpointId a barrier taken while changes were tracked.
     * @param keys         takes each such key, boxed.
     */
    void forEachFrontKeyChangedSince(final long checkpointId, final java.util.function.Consumer<Object> keys)
    {
    }

    /**
     * Local recovery wrote this state's map directly: forget anything remembered about its entries (a value state's
     * last probed key). Task thread (or the thread that reverts the store, before a task thread uses it again).
     */
    void forgetRememberedEntries()
    {
    }

    /**
     * A new attempt of the job declared this state again, with a descriptor {@link
     * io.ringflow.state.snapshot.StateCompatibility#checkRedeclared} accepted: the state takes its functions and
     * time-to-live clock, so no user object of the failed attempt is called again.
     *
     * @param redeclared the new attempt's descriptor.
     */
    void rebind(final StateDescriptor redeclared)
    {
        descriptor = redeclared;
        ttl = redeclared.ttlConfig();
        meta = null;
    }

    /** Drops this state's hot-key front without writing it back: the store is closing. Task thread. */
    void discardFront()
    {
    }

    /**
     * Decodes a restored stored value, to check that the codecs now registered read it; the result is dropped.
     *
     * @param value a stored value of this state.
     * @throws RuntimeException when it cannot be decoded.
     */
    abstract void checkStoredValue(EncodedBytes value);

    /** @return the current key, encoded; valid until the next record. */
    final EncodedBytes currentKey()
    {
        return store.encodedCurrentKey(descriptor.name());
    }

    /** @return the time now, from the time-to-live's clock; only with a time-to-live. */
    final long now()
    {
        return ttl.clock().getAsLong();
    }

    final boolean expired(final long timestamp, final long now)
    {
        return TtlValues.isExpired(timestamp, ttl.ttlMillis(), now);
    }

    final boolean refreshesOnRead()
    {
        return ttl != null && ttl.updateType() == StateTtlConfig.UpdateType.OnReadAndWrite;
    }

    /**
     * @param what        what was too large, for the message ("the value", "the map of the current key").
     * @param valueLength its encoded length, or -1 when encoding stopped at the limit.
     * @param keyLength   the encoded length of the current key.
     * @return the error for a write that would exceed the maximum entry size; nothing was changed.
     */
    final IllegalArgumentException tooLarge(final String what, final int valueLength, final int keyLength)
    {
        return new IllegalArgumentException("state '" + descriptor.name() + "': " + what + " " +
            (valueLength < 0 ? "encodes to more than " + maxEntrySize + " bytes" :
            "encodes to " + valueLength + " bytes, with the key's " + keyLength + " more than " + maxEntrySize) +
            ", the maxEntrySize of the Chronicle state backend; the state was not changed (" +
            descriptor.describe() + ")");
    }

    @Override
    public String toString()
    {
        return getClass().getSimpleName() + '{' + descriptor + '}';
    }
}
