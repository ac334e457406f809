package io.ringflow.state.chronicle;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.LongCodec;
import io.ringflow.state.keyed.StateKind;
import io.ringflow.state.snapshot.KeyedSnapshotReader;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Local recovery's revert of a {@link ChronicleKeyedStateStore}: brings the store's entries back to a checkpoint it
 * took, by rewriting only the keys changed since that checkpoint's barrier. The store checks that it may
 * ({@link ChronicleKeyedStateStore#canRevertTo}) and keeps its books after (bases, rebinding); this does the
 * rewriting, in three steps:
 * <ol>
 *   <li>the changed keys, per state, are each map's change sets since the barrier (the current interval's
 *   included) and the keys its value state's hot-key front stamped since, gathered into a {@link RevertKeys}; a
 *   counter that a front holds unboxed is marked {@link RevertKeys#IN_FRONT} and left there; a key held by a front of
 *   boxed entries, of a map state or of an undeclared state is removed, through its declared state's {@code clear()}
 *   where there is one (front and map, by the paths every update takes);</li>
 *   <li>the checkpoint's snapshots are scanned and only the changed keys' entries are written back
 *   ({@link SnapshotRestore#insertOnly}): a marked counter is overwritten in its front (its stale map entry, if it has
 *   one, stays shadowed, as before the failure), any other value overwrites the map's entry in place;</li>
 *   <li>the changed keys that the snapshots did not hold, and that still have a value, are removed.</li>
 * </ol>
 * Every other entry is left as it is, which is right because it did not change since the barrier. O(changed keys +
 * entries in the snapshots read): the snapshots are scanned, not inserted. No change is recorded while reverting.
 *
 * <p>Thread contract: the store's task thread, with no snapshot pending and no lookup held.
 */
final class LocalRevert
{
    private final ChronicleKeyedStateStore store;
    private final Map<String, StateMap> maps;
    private final Map<String, ChronicleState> declared;
    private final StoreKeys keys;
    private final SnapshotRestore restore;
    private final int maxParallelism;
    /** The keys the last revert rewrote, per state, until {@link #recordRewrittenAsChanged} or {@link #forgetRewritten}. */
    private Map<String, RevertKeys> rewritten = Map.of();

    /**
     * @param store          the store reverted; its current key is set for each key cleared.
     * @param maps           the store's maps by state name, live.
     * @param declared       the store's declared states by name, live.
     * @param keys           the store's key encoding.
     * @param restore        the store's restore, which writes the checkpoint's entries back.
     * @param maxParallelism the store's number of key groups.
     */
    LocalRevert(final ChronicleKeyedStateStore store, final Map<String, StateMap> maps,
        final Map<String, ChronicleState> declared, final StoreKeys keys, final SnapshotRestore restore,
        final int maxParallelism)
    {
        this.store = store;
        this.maps = maps;
        this.declared = declared;
        this.keys = keys;
        this.restore = restore;
        this.maxParallelism = maxParallelism;
    }

    /**
     * @param checkpointId a checkpoint whose changes since are tracked.
     * @return whether the changed keys since fit in the revert's {@link RevertKeys} (see {@link RevertKeys#fits}),
     *     counted from the change sets and the fronts' sizes, without gathering them.
     */
    boolean fits(final long checkpointId)
    {
        for (final StateMap map : maps.values())
        {
            long keysOf = 0;
            long bytes = 0;
            for (final ChangedKeySet set : map.allChangeSetsSince(checkpointId))
            {
                keysOf += set.size();
                bytes += set.keyBytesAtMost();
            }
            if (declared.get(map.name()) instanceof ChronicleValueState<?> value && value.front() != null)
            {
                final HotKeyFront front = value.front();
                keysOf += front.size();
                bytes += (long)front.size() * (StoredKeyLayout.KEY_OFFSET + front.longestKey());
            }
            if (!RevertKeys.fits(keysOf, bytes, maxParallelism))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @param checkpointId a checkpoint the store may revert to.
     * @param snapshots    that checkpoint's full snapshots of the store's key groups (a chain merged).
     * @return how many keys were rewritten (each changed key once per state).
     */
    long revert(final long checkpointId, final List<KeyedSnapshotReader> snapshots)
    {
        final Map<String, RevertKeys> changed = new LinkedHashMap<>();
        rewritten = changed;
        final EncodedBytes encoded = new EncodedBytes(64);
        for (final StateMap map : maps.values())
        {
            final List<ChangedKeySet> sources = map.allChangeSetsSince(checkpointId);
            final ChronicleState state = declared.get(map.name());
            if (state != null)
            {
                final ChangedKeySet frontKeys = new ChangedKeySet();
                state.forEachFrontKeyChangedSince(checkpointId, key ->
                {
                    final EncodedBytes stored = keys.encodeKey(key, encoded, map.name());
                    if (!frontKeys.record(stored.array(), stored.length(),
                        PreservedKey.hash(stored.array(), stored.length())))
                    {
                        throw new IllegalStateException("too many changed keys in the hot-key front of '" +
                            map.name() + "' to revert in place");
                    }
                });
                sources.add(frontKeys);
            }
            final RevertKeys keysOf = RevertKeys.of(sources, maxParallelism);
            if (keysOf.size() > 0)
            {
                changed.put(map.name(), keysOf);
            }
        }
        long reverted = 0;
        for (final RevertKeys keysOf : changed.values())
        {
            reverted += keysOf.size();
        }
        // nothing written from here on is a change against anything (every change set is dropped at the end, as a
        // restore does), so none is recorded
        final List<StateMap> paused = new ArrayList<>();
        for (final StateMap map : maps.values())
        {
            if (map.pauseChanges())
            {
                paused.add(map);
            }
        }
        try
        {
            // 1. a key whose stored value is replaced whole by its checkpoint entry is overwritten in place, and so is a
            // counter held unboxed by a hot-key front (marked, to be overwritten there); a key in a front of boxed
            // entries (which would shadow the map), or of a map state (whose entries are joined into its stored
            // value) or an undeclared one, is removed first
            final Set<String> removeFound = new HashSet<>();
            for (final Map.Entry<String, RevertKeys> entry : changed.entrySet())
            {
                final ChronicleState state = declared.get(entry.getKey());
                final StateMap map = maps.get(entry.getKey());
                final boolean whole = state != null && state.descriptor().kind() != StateKind.MAP;
                final boolean front = state instanceof ChronicleValueState<?> value && value.front() != null;
                if (whole)
                {
                    removeFound.add(entry.getKey());
                }
                if (whole && !front)
                {
                    continue;
                }
                final RevertKeys keysOf = entry.getValue();
                // a front of unboxed counters keeps its keys: step 2 overwrites each in place
                final ChronicleValueState<?> counters = front && keys.keyCodec() == (Codec<?>)LongCodec.INSTANCE &&
                    ((ChronicleValueState<?>)state).holdsUnboxedCounters() ? (ChronicleValueState<?>)state : null;
                keysOf.forEach(0, (bytes, offset, length, slot) ->
                {
                    copyInto(bytes, offset, length, encoded);
                    if (state == null)
                    {
                        // not declared since it was restored: no front and no state handle, so only its map holds it
                        map.remove(encoded);
                        return;
                    }
                    if (counters != null && length == StoredKeyLayout.KEY_OFFSET + Long.BYTES)
                    {
                        if (counters.frontHoldsLong(encoded.buffer().getLong(StoredKeyLayout.KEY_OFFSET)))
                        {
                            keysOf.mark(slot, RevertKeys.IN_FRONT);
                        }
                        return;
                    }
                    final Object userKey = decodeKey(encoded);
                    if (front && !((ChronicleValueState<?>)state).frontHolds(userKey))
                    {
                        return;
                    }
                    store.setCurrentKey(userKey, StoredKeyLayout.keyGroup(bytes, offset));
                    state.clear();
                });
            }
            store.setCurrentKey(null);
            for (final ChronicleState state : declared.values())
            {
                state.forgetRememberedEntries();
            }
            // 2. every changed key's entries at the checkpoint: counters a front holds overwritten there, the rest into
            // the maps. A key of a state in removeFound is marked found once read, so what is left unmarked there is
            // what the checkpoint did not hold
            restore.insertOnly(snapshots, changed, maps::get, removeFound, name ->
                declared.get(name) instanceof ChronicleValueState<?> value &&
                keys.keyCodec() == (Codec<?>)LongCodec.INSTANCE ? value : null);
            // 3. keys the checkpoint did not hold, and that still have a value: removed
            for (final String name : removeFound)
            {
                final ChronicleState state = declared.get(name);
                changed.get(name).forEach(RevertKeys.FOUND, (bytes, offset, length, slot) ->
                {
                    copyInto(bytes, offset, length, encoded);
                    store.setCurrentKey(decodeKey(encoded), StoredKeyLayout.keyGroup(bytes, offset));
                    state.clear();
                });
            }
            store.setCurrentKey(null);
            for (final ChronicleState state : declared.values())
            {
                state.forgetRememberedEntries();
            }
        }
        finally
        {
            for (final StateMap map : paused)
            {
                map.trackChanges();
            }
        }
        return reverted;
    }

    /**
     * Records every key the last {@link #revert} rewrote as changed in its map's current interval, then forgets them.
     * For a store going on with a round of slices after the revert: a rewritten key may have moved between the front
     * and the map (a counter the front held at the checkpoint, written back or cleared since, is written into the
     * map), which the round's slices, cut before the revert, may not cover; recorded, it is in the next delta.
     */
    void recordRewrittenAsChanged()
    {
        final EncodedBytes encoded = new EncodedBytes(64);
        for (final Map.Entry<String, RevertKeys> entry : rewritten.entrySet())
        {
            final StateMap map = maps.get(entry.getKey());
            entry.getValue().forEach(0, (bytes, offset, length, slot) ->
            {
                copyInto(bytes, offset, length, encoded);
                map.recordChange(encoded);
            });
        }
        forgetRewritten();
    }

    /** Drops what {@link #recordRewrittenAsChanged} would record. */
    void forgetRewritten()
    {
        rewritten = Map.of();
    }

    private static void copyInto(final byte[] bytes, final int offset, final int length, final EncodedBytes into)
    {
        into.ensureCapacity(length);
        System.arraycopy(bytes, offset, into.array(), 0, length);
        into.length(length);
    }

    /** @return the user key of the stored key in {@code encoded}. */
    private Object decodeKey(final EncodedBytes encoded)
    {
        return keys.keyCodec().decode(encoded.buffer(), StoredKeyLayout.KEY_OFFSET,
            encoded.length() - StoredKeyLayout.KEY_OFFSET);
    }
}
