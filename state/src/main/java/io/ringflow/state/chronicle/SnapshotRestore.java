package io.ringflow.state.chronicle;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.codec.LongCodec;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.KeyGroups;
import io.ringflow.state.keyed.StateKind;
import io.ringflow.state.snapshot.KeyedSnapshotReader;
import io.ringflow.state.snapshot.StateCompatibility;
import io.ringflow.state.snapshot.StateMeta;

import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Restore into one store's maps: the snapshot's bytes are inserted as they are (a stored value is exactly what its
 * codec wrote, so nothing is decoded or encoded), a map state's entries joined into one stored value per key
 * ({@link MapBlobLayout}); then, when a restored state is declared, its entries are checked against the declaration
 * and decoded once ({@link #checkRestored}).
 *
 * <p><b>Counters skip the map.</b> The entries of a value state of {@code Long} keys and values (8 bytes each, no
 * time-to-live) are kept in a {@link CopyOnWriteLongTable} instead, up to a front's capacity
 * ({@link StateMap#keepRestoredLong}), the bytes read as the built-in codec writes them (little-endian). When the
 * state is declared with the built-in {@code Long} codecs and a front of that kind, the front takes the table whole
 * (no map insert, no move into the front at first access); in any other case the entries are written to the map
 * with exactly the bytes they were restored from ({@link #writeKeptLongs}), and checked as any, before the
 * declaration completes or before a snapshot includes the state undeclared. A key is either kept or in the map,
 * never both: a snapshot holds a key once per state, and snapshots restored together hold disjoint key groups.
 *
 * <p>Thread contract: the store's task thread.
 */
final class SnapshotRestore
{
    /** See {@link #entriesChecked()}. Task thread. */
    private long entriesChecked;
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
     * @param snapshots    full snapshots (a chain of deltas merged by {@code KeyedSnapshotChain}).
     * @param maxKeptLongs the most restored {@code Long} counters of one state kept out of its map: the capacity its
     *                     front will have; 0 to keep none.
     * @throws IllegalStateException when a snapshot is a delta, of another maximum parallelism, describes a state
     *                               differently from another, or holds an entry larger than {@code maxEntrySize}.
     */
    void restore(final List<KeyedSnapshotReader> snapshots, final int maxKeptLongs)
    {
        insert(snapshots, maxKeptLongs, restoredMap, null);
    }

    /**
     * Local recovery's second step: inserts, from the snapshots, only the entries of the (state, key) pairs given,
     * into the maps they already have, the way {@link #restore} inserts them (as stored bytes; counters too, none kept
     * out of a map). The caller removed first every given pair that a plain write would not replace (keys of map
     * states, whose entries join a fresh stored value; keys in a front of boxed entries); a whole value overwrites its
     * map entry, and a counter marked {@link RevertKeys#IN_FRONT} is overwritten in its front.
     *
     * @param snapshots   the full snapshots of the checkpoint being reverted to; a merged chain is told to merge only
     *                    the given pairs' entries ({@link KeyedSnapshotReader#skipUnwanted}), which it keeps doing.
     * @param only        per state name, the stored keys to insert; a state not named here is skipped whole.
     * @param mapOf       a state's existing map by name; null when the store has none (its entries are skipped:
     *                    they cannot be among the keys given).
     * @param removeFound states whose keys have one entry each: a key found is marked {@link RevertKeys#FOUND} and
     *                    any later entry of it skipped.
     * @param countersOf  the declared value state of a state of counters, whose front holds the keys marked
     *                    {@link RevertKeys#IN_FRONT}, overwritten there ({@link ChronicleValueState#revertInFront});
     *                    null for none.
     * @return the entries inserted (a map state's entries counted one by one).
     */
    long insertOnly(final List<KeyedSnapshotReader> snapshots,
        final Map<String, RevertKeys> only, final Function<String, StateMap> mapOf,
        final Set<String> removeFound, final Function<String, ChronicleValueState<?>> countersOf)
    {
        return insert(snapshots, 0, meta -> only.containsKey(meta.name()) ? mapOf.apply(meta.name()) : null,
            new Filter(only, removeFound, countersOf));
    }

    /**
     * Local recovery's choice of entries.
     *
     * @param only        per state, the keys to insert.
     * @param removeFound states whose keys are marked found once read (each key has one entry).
     * @param countersOf  the declared value state of a state of counters, whose front holds the keys marked
     *                    {@link RevertKeys#IN_FRONT} ({@link ChronicleValueState#revertInFront}); null for none.
     */
    private record Filter(Map<String, RevertKeys> only, Set<String> removeFound,
        Function<String, ChronicleValueState<?>> countersOf)
    {
    }

    /** @param filter local recovery's choice of entries; null for every entry. */
    private long insert(final List<KeyedSnapshotReader> snapshots, final int maxKeptLongs,
        final Function<StateMeta, StateMap> targetOf, final Filter filter)
    {
        final Map<String, RevertKeys> only = filter == null ? null : filter.only();
        // each key comes once: no kept counter needs looking up (a probe of a table of millions, a cache miss each)
        final boolean keysComeOnce = rangesAreDisjoint(snapshots);
        final long[] inserted = new long[1];
        final EncodedBytes key = new EncodedBytes(64);
        final EncodedBytes value = new EncodedBytes(256);
        for (final KeyedSnapshotReader snapshot : snapshots)
        {
            snapshot.checkRestorableInto(maxParallelism);
            final List<StateMeta> metas = snapshot.states();
            final StateMap[] targets = new StateMap[metas.size()];
            final boolean[] counters = new boolean[metas.size()];
            final RevertKeys[] wanted = new RevertKeys[metas.size()];
            // with a filter, a state not in it has no target and is skipped whole
            final boolean[] skipped = new boolean[metas.size()];
            final ChronicleValueState<?>[] fronts = new ChronicleValueState<?>[metas.size()];
            final boolean[] removeFound = new boolean[metas.size()];
            for (int i = 0; i < counters.length; i++)
            {
                counters[i] = maxKeptLongs > 0 && holdsCounters(metas.get(i));
                if (filter != null)
                {
                    final String name = metas.get(i).name();
                    wanted[i] = only.get(name);
                    targets[i] = wanted[i] == null ? null : targetOf.apply(metas.get(i));
                    skipped[i] = targets[i] == null;
                    removeFound[i] = filter.removeFound().contains(name);
                    fronts[i] = filter.countersOf().apply(name);
                }
            }
            if (filter != null)
            {
                // a merged chain merges only the wanted keys' entries, instead of the whole chain (which costs more
                // than the revert itself); the visitor below still probes each entry it gets, as a file hands all
                final EncodedBytes probe = new EncodedBytes(64);
                snapshot.skipUnwanted((keyGroup, stateIndex, bytes, keyOffset, keyLength) ->
                {
                    if (skipped[stateIndex])
                    {
                        return false;
                    }
                    final RevertKeys keysWanted = wanted[stateIndex];
                    if (keyLength == Long.BYTES)
                    {
                        return keysWanted.slotOfLong(keyGroup, bytes.getLong(keyOffset)) >= 0;
                    }
                    probe.ensureCapacity(StoredKeyLayout.KEY_OFFSET + keyLength);
                    StoredKeyLayout.putKeyGroup(probe.buffer(), keyGroup);
                    bytes.getBytes(keyOffset, probe.array(), StoredKeyLayout.KEY_OFFSET, keyLength);
                    return keysWanted.slotOf(probe.array(), StoredKeyLayout.KEY_OFFSET + keyLength) >= 0;
                });
            }
            snapshot.read(keyGroups, (keyGroup, stateIndex, bytes, keyOffset, keyLength, subKeyOffset, subKeyLength,
                valueOffset, valueLength) ->
            {
                if (skipped[stateIndex])
                {
                    return;
                }
                StateMap target = targets[stateIndex];
                if (target == null)
                {
                    target = targetOf.apply(metas.get(stateIndex));
                    targets[stateIndex] = target;
                }
                final RevertKeys keysWanted = wanted[stateIndex];
                final boolean longKey = keyLength == Long.BYTES;
                int slot = keysWanted != null && longKey ? keysWanted.slotOfLong(keyGroup, bytes.getLong(keyOffset)) :
                    -1;
                if (keysWanted != null && longKey && slot < 0)
                {
                    // most entries of a revert's scan: not a changed key, and nothing built for it
                    return;
                }
                key.ensureCapacity(StoredKeyLayout.KEY_OFFSET + keyLength);
                StoredKeyLayout.putKeyGroup(key.buffer(), keyGroup);
                bytes.getBytes(keyOffset, key.array(), StoredKeyLayout.KEY_OFFSET, keyLength);
                key.length(StoredKeyLayout.KEY_OFFSET + keyLength);
                if (keysWanted != null && !longKey)
                {
                    slot = keysWanted.slotOf(key.array(), key.length());
                }
                if (keysWanted != null)
                {
                    if (slot < 0 || removeFound[stateIndex] && keysWanted.marked(slot, RevertKeys.FOUND))
                    {
                        return;
                    }
                    if (removeFound[stateIndex])
                    {
                        keysWanted.mark(slot, RevertKeys.FOUND);
                    }
                }
                inserted[0]++;
                if (slot >= 0 && keysWanted.marked(slot, RevertKeys.IN_FRONT))
                {
                    // marked only for a declared value state of counters whose keys are 8 bytes (LocalRevert), so
                    // fronts[stateIndex] is that state and the key is 8 bytes here too (it matched the stored key)
                    final ChronicleValueState<?> inFront = fronts[stateIndex];
                    final long counterKey = bytes.getLong(keyOffset);
                    if (valueLength == Long.BYTES && inFront.revertInFront(counterKey, bytes.getLong(valueOffset)))
                    {
                        return;
                    }
                    // the value cannot be held unboxed: it goes to the map, where the front no longer shadows it
                    inFront.takeOutOfFront(counterKey, key);
                }
                if (metas.get(stateIndex).kind() == StateKind.MAP)
                {
                    restoreMapEntry(target, key, bytes, subKeyOffset, subKeyLength, valueOffset, valueLength, value);
                    return;
                }
                checkRestoredSize(target, keyLength, valueLength);
                if (counters[stateIndex] && keyLength == Long.BYTES && valueLength == Long.BYTES)
                {
                    final long counterKey = bytes.getLong(keyOffset);
                    final long counter = bytes.getLong(valueOffset);
                    // once the kept counters are full, a key they do not hold goes to the map with no further check
                    final int room = keysComeOnce ? target.restoredLongRoomForNewKey(maxKeptLongs) :
                        target.restoredLongRoom(counterKey, maxKeptLongs);
                    // kept only where writing it back recomputes the same key group, and never beside a map entry
                    // of the key (snapshots restored together hold disjoint key groups; this keeps it so if not)
                    if (room != StateMap.FULL && counter != CopyOnWriteLongTable.MISSING &&
                        keyGroup == KeyGroups.keyGroupOfHash(Long.hashCode(counterKey), maxParallelism) &&
                        (target.size() == 0 || !target.contains(key)) &&
                        target.keepRestoredLong(counterKey, counter, maxKeptLongs))
                    {
                        return;
                    }
                    // a key is kept or in the map, never both
                    if (room == StateMap.KEEPS)
                    {
                        target.forgetRestoredLong(counterKey);
                    }
                }
                if (keyLength != Long.BYTES || valueLength != Long.BYTES)
                {
                    target.restoredOtherThanLongPairs();
                }
                value.ensureCapacity(valueLength);
                bytes.getBytes(valueOffset, value.array(), 0, valueLength);
                value.length(valueLength);
                // not a change: a restore's entries are the base the store's changes start from (it forgets every
                // change set once restored), and a revert has paused change tracking
                target.putRestored(key, value);
            });
        }
        return inserted[0];
    }

    /**
     * @return whether no two of the snapshots can hold entries of the same key in the store's key groups: the key
     *     groups their writers owned do not overlap there. A snapshot holds a key once per state (its writer emits
     *     each key once, a merged chain merges each key's entries into one), and a kept counter is in its key's own
     *     key group (checked as it is kept), so then no counter arrives twice. The engine restores together the
     *     snapshots of different former subtasks, whose ranges are disjoint; a caller that hands overlapping ones gets
     *     every counter looked up among those kept (the later snapshot's entry wins).
     */
    private boolean rangesAreDisjoint(final List<KeyedSnapshotReader> snapshots)
    {
        final BitSet claimed = new BitSet(maxParallelism);
        for (final KeyedSnapshotReader snapshot : snapshots)
        {
            final int from = Math.max(snapshot.range().start(), keyGroups.start());
            final int to = Math.min(snapshot.range().end(), keyGroups.end());
            if (from > to)
            {
                continue;
            }
            final int alreadyClaimed = claimed.nextSetBit(from);
            if (alreadyClaimed >= 0 && alreadyClaimed <= to)
            {
                return false;
            }
            claimed.set(from, to + 1);
        }
        return true;
    }

    /** @return whether a restored state may be one of {@code Long} counters (its entries' lengths are checked too). */
    private static boolean holdsCounters(final StateMeta meta)
    {
        return meta.kind() == StateKind.VALUE && !meta.timeToLive() && meta.keyType().equals(Long.class.getName()) &&
            meta.valueType().equals(Long.class.getName());
    }

    /**
     * Writes the restored counters kept out of a state's map into it, with the bytes they were restored from; nothing
     * when none are kept. Task thread.
     *
     * @param map the state's map.
     */
    void writeKeptLongs(final StateMap map)
    {
        final CopyOnWriteLongTable kept = map.restoredLongs();
        if (kept == null)
        {
            return;
        }
        final EncodedBytes key = new EncodedBytes(StoredKeyLayout.KEY_OFFSET + Long.BYTES);
        final EncodedBytes value = new EncodedBytes(Long.BYTES);
        key.length(StoredKeyLayout.KEY_OFFSET + Long.BYTES);
        value.length(Long.BYTES);
        // the keys written so far, taken out of the table if the map refuses one (full), so that no key is in both
        final long[] written = new long[kept.size()];
        final int[] count = new int[1];
        try
        {
            kept.forEach((counterKey, counter) ->
            {
                StoredKeyLayout.putKeyGroup(key.buffer(),
                    KeyGroups.keyGroupOfHash(Long.hashCode(counterKey), maxParallelism));
                key.buffer().putLong(StoredKeyLayout.KEY_OFFSET, counterKey);
                value.buffer().putLong(0, counter);
                // not a change: no delta can have a base older than these entries (a restore forgets every base,
                // and this runs at the declaration or at the first snapshot after the restore, a full one)
                map.putRestored(key, value);
                written[count[0]++] = counterKey;
            });
        }
        catch (final RuntimeException ex)
        {
            for (int i = 0; i < count[0]; i++)
            {
                kept.remove(written[i]);
            }
            throw ex;
        }
        map.takeRestoredLongs();
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
        target.putRestored(key, stored);
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

    /** @return how many restored entries {@link #checkRestored} read and decoded, for tests. Task thread. */
    long entriesChecked()
    {
        return entriesChecked;
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
        if (map.size() == 0 && !map.hasRestoredLongs())
        {
            return;
        }
        final Codec<Object> restoredKeyCodec = StateCompatibility.restoredKeyCodec(meta, codecs);
        keys.adoptKeyClass(StateCompatibility.restoredKeyClass(meta), meta.name());
        // kept counters (8-byte keys and values, which the built-in Long codecs always decode) are taken whole by a
        // front of counters once the map's other entries passed their check, else written to the map and checked
        // with them; a declaration that fails leaves them kept, still counted, for a snapshot of the undeclared state
        final boolean adopt = map.hasRestoredLongs() && restoredKeyCodec == (Codec<?>)LongCodec.INSTANCE &&
            keys.keyCodec() == (Codec<?>)LongCodec.INSTANCE && state instanceof ChronicleValueState<?> counters &&
            counters.canAdoptRestoredLongs(map.restoredLongs());
        if (map.hasRestoredLongs() && !adopt)
        {
            writeKeptLongs(map);
        }
        if (!decodesEveryEntry(map, state, meta, restoredKeyCodec))
        {
            checkStoredEntries(map, state, meta, restoredKeyCodec);
        }
        if (adopt)
        {
            ((ChronicleValueState<?>)state).adoptRestoredLongs(map.takeRestoredLongs());
        }
    }

    /**
     * @return true when every restored entry of {@code map} is known to decode without reading it: a value state of
     *     {@code Long} keys and values, restored and declared without a time-to-live, with the built-in codecs (which
     *     decode any 8 bytes), and only 8-byte keys and values restored into the map. Then the scan of
     *     {@link #checkStoredEntries} (seconds at tens of millions of entries, on the task thread) is skipped.
     */
    private static boolean decodesEveryEntry(final StateMap map, final ChronicleState state, final StateMeta meta,
        final Codec<Object> restoredKeyCodec)
    {
        return map.restoredOnlyLongPairs() && holdsCounters(meta) && state instanceof ChronicleValueState<?> &&
            state.ttl() == null && restoredKeyCodec == (Codec<?>)LongCodec.INSTANCE &&
            state.valueCodec == (Codec<?>)LongCodec.INSTANCE;
    }

    private void checkStoredEntries(
        final StateMap map, final ChronicleState state, final StateMeta meta, final Codec<Object> restoredKeyCodec)
    {
        if (map.size() == 0)
        {
            return;
        }
        final EncodedBytes key = new EncodedBytes(64);
        final EncodedBytes value = new EncodedBytes(256);
        map.map().forEachEntry(entry ->
        {
            entriesChecked++;
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
