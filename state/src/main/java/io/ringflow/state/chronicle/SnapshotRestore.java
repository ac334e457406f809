package io.ringflow.state.chronicle;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.StateKind;
import io.ringflow.state.snapshot.KeyedSnapshotReader;
import io.ringflow.state.snapshot.StateCompatibility;
import io.ringflow.state.snapshot.StateMeta;

import java.util.List;
import java.util.function.Function;

/**
 * Restore into one store's maps: the snapshot's bytes are inserted as they are (a stored value is exactly what its
 * codec wrote, so nothing is decoded or encoded), a map state's entries joined into one stored value per key
 * ({@link MapBlobLayout}); then, when a restored state is declared, its entries are checked against the declaration
 * and decoded once ({@link #checkRestored}).
 *
 * <p>Thread contract: the store's task thread.
 */
final class SnapshotRestore
{
    private final CodecRegistry codecs;
    private final int maxParallelism;
    private final KeyGroupRange keyGroups;
    private final int maxEntrySize;
    private final StoreKeys keys;
    /** The map of a restored state, created at its first entry, checked to be described alike by every snapshot. */
    private final Function<StateMeta, StateMap> restoredMap;

    /**
     * @param codecs         the store's codecs.
     * @param maxParallelism the job's number of key groups.
     * @param keyGroups      the key groups the store owns.
     * @param maxEntrySize   the largest encoded key plus value.
     * @param keys           the store's keys.
     * @param restoredMap    the map of a restored state, created at its first entry.
     */
    SnapshotRestore(
        final CodecRegistry codecs, final int maxParallelism, final KeyGroupRange keyGroups, final int maxEntrySize,
        final StoreKeys keys, final Function<StateMeta, StateMap> restoredMap)
    {
        this.codecs = codecs;
        this.maxParallelism = maxParallelism;
        this.keyGroups = keyGroups;
        this.maxEntrySize = maxEntrySize;
        this.keys = keys;
        this.restoredMap = restoredMap;
    }

    /**
     * Inserts the entries of the store's key groups.
     *
     * @param snapshots full snapshots (a chain of deltas merged by {@code KeyedSnapshotChain}).
     * @throws IllegalStateException when a snapshot is a delta, of another maximum parallelism, describes a state
     *                               differently from another, or holds an entry larger than {@code maxEntrySize}.
     */
    void restore(final List<KeyedSnapshotReader> snapshots)
    {
        final EncodedBytes key = new EncodedBytes(64);
        final EncodedBytes value = new EncodedBytes(256);
        for (final KeyedSnapshotReader snapshot : snapshots)
        {
            snapshot.checkRestorableInto(maxParallelism);
            final List<StateMeta> metas = snapshot.states();
            final StateMap[] targets = new StateMap[metas.size()];
            snapshot.read(keyGroups, (keyGroup, stateIndex, bytes, keyOffset, keyLength, subKeyOffset, subKeyLength,
                valueOffset, valueLength) ->
            {
                StateMap target = targets[stateIndex];
                if (target == null)
                {
                    target = restoredMap.apply(metas.get(stateIndex));
                    targets[stateIndex] = target;
                }
                key.ensureCapacity(StoredKeyLayout.KEY_OFFSET + keyLength);
                StoredKeyLayout.putKeyGroup(key.buffer(), keyGroup);
                bytes.getBytes(keyOffset, key.array(), StoredKeyLayout.KEY_OFFSET, keyLength);
                key.length(StoredKeyLayout.KEY_OFFSET + keyLength);
                if (metas.get(stateIndex).kind() == StateKind.MAP)
                {
                    restoreMapEntry(target, key, bytes, subKeyOffset, subKeyLength, valueOffset, valueLength, value);
                    return;
                }
                checkRestoredSize(target, keyLength, valueLength);
                value.ensureCapacity(valueLength);
                bytes.getBytes(valueOffset, value.array(), 0, valueLength);
                value.length(valueLength);
                target.put(key, value);
            });
        }
    }

    /**
     * A restored entry of a map state joins the stored value of its key ({@link MapBlobLayout}), created by the first
     * entry of the key; user keys are counted for the store's entry count.
     */
    private void restoreMapEntry(
        final StateMap target, final EncodedBytes key, final CodecBuffer bytes, final int subKeyOffset,
        final int subKeyLength, final int valueOffset, final int valueLength, final EncodedBytes stored)
    {
        if (subKeyLength < 0)
        {
            // reported when the state is declared, after the checks of kind and types, like an undecodable value
            target.restoreProblem("a restored entry of the MAP state has no user key");
            return;
        }
        final int entryLength = MapBlobLayout.entryLength(subKeyLength, valueLength);
        int length = MapBlobLayout.COUNT_LENGTH;
        int count = 0;
        if (target.get(key, stored) != null)
        {
            length = stored.length();
            count = MapBlobLayout.count(stored.array());
        }
        checkRestoredSize(target, key.length() - StoredKeyLayout.KEY_OFFSET, (long)length + entryLength);
        stored.ensureCapacity(length + entryLength);
        MapBlobLayout.putEntry(stored.buffer(), length, bytes, subKeyOffset, subKeyLength, valueOffset, valueLength);
        MapBlobLayout.putCount(stored.buffer(), count + 1);
        stored.length(length + entryLength);
        target.put(key, stored);
        target.userKeysAdded(1);
    }

    private void checkRestoredSize(final StateMap target, final int keyLength, final long valueLength)
    {
        if (keyLength + valueLength > maxEntrySize)
        {
            throw new IllegalStateException("state '" + target.name() + "' has a restored entry of " +
                keyLength + " + " + valueLength + " bytes (key + value" + (target.holdsMapValues() ?
                ": the key's whole map" : "") + "), more than maxEntrySize " + maxEntrySize +
                " of the Chronicle state backend: raise maxEntrySize");
        }
    }

    /**
     * The heap store's checks ({@link StateCompatibility}), then every restored entry decoded once.
     *
     * @param map   a restored state's map.
     * @param state its declaration, about to be handed out.
     * @throws IllegalStateException when the declaration does not match, or an entry cannot be decoded.
     */
    void checkRestored(final StateMap map, final ChronicleState state)
    {
        final StateMeta meta = map.restoredMeta();
        StateCompatibility.checkRestored(meta, state.descriptor(), state.valueCodec, state.userKeyCodec());
        if (map.restoreProblem() != null)
        {
            throw new IllegalStateException("state '" + meta.name() + "' cannot be restored: " +
                map.restoreProblem());
        }
        if (map.size() == 0)
        {
            return;
        }
        final Codec<Object> restoredKeyCodec = StateCompatibility.restoredKeyCodec(meta, codecs);
        keys.adoptKeyClass(StateCompatibility.restoredKeyClass(meta), meta.name());
        final EncodedBytes key = new EncodedBytes(64);
        final EncodedBytes value = new EncodedBytes(256);
        map.map().forEachEntry(entry ->
        {
            entry.key().getUsing(key);
            entry.value().getUsing(value);
            try
            {
                restoredKeyCodec.decode(key.buffer(), StoredKeyLayout.KEY_OFFSET,
                    key.length() - StoredKeyLayout.KEY_OFFSET);
                state.checkStoredValue(value);
            }
            catch (final RuntimeException ex)
            {
                throw new IllegalStateException("state '" + meta.name() + "' has a restored entry that the " +
                    "codecs now registered cannot decode (keys " + meta.keyType() + ", values " + meta.valueType() +
                    "): " + ex, ex);
            }
        });
    }
}
