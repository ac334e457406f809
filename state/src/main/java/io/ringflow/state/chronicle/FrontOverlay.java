package io.ringflow.state.chronicle;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.LongCodec;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.KeyGroups;
import org.agrona.collections.Long2ObjectHashMap;

import java.util.HashMap;
import java.util.Map;

/**
 * A value state's {@link HotKeyFront} as of a snapshot's barrier, encoded by the flusher into stored keys and values:
 * for a front of {@code Long} keys and values an O(1) view of its {@link CopyOnWriteLongTable}, read (copied) by the
 * flusher at its first use; for other fronts a copy of their maps taken on the task thread, O(keys held).
 *
 * <p>For every key it holds, its value is the key's value at the barrier, newer than whatever the state's Chronicle
 * Map held for that key then, and newer than anything preserved for it since (a write back after the barrier writes
 * a front value, and copy-on-write preserves the stale map value it replaces). So the snapshot part of the state
 * ({@link PendingStateSnapshot}, {@link PendingStateDelta}) emits these entries and skips every live or preserved map
 * entry whose key is here.
 *
 * <p>Values of boxed fronts are shared with the front, not copied: like the heap store, a value handed to
 * {@code update} must not be mutated afterwards.
 *
 * <p>Thread contract: built on the task thread; {@link #encode}, {@link #forEachEncoded} and {@link #sortedLongRun}
 * on the flusher of the one snapshot part that holds it; {@link #release} on the flusher or, for a snapshot abandoned
 * before it was written, any one thread, never concurrently with the flusher's reading.
 */
final class FrontOverlay
{
    private final String stateName;
    /** The front of {@code Long} keys and values at the barrier, not yet read; or null. */
    private final CopyOnWriteLongTable.View longLongView;
    /** {@link #longLongView} once read by the flusher ({@link #longLongs()}). */
    private CopyOnWriteLongTable.Frozen longLongs;
    /** The delta's base, or {@code Long.MIN_VALUE} for every entry; with {@link #longLongView}, entries stamped
     * before it are left out. */
    private final long changedSinceBase;
    /** The copied front of {@code Long} keys, or null. */
    private final Long2ObjectHashMap<Object> longs;
    /** The copied front of keys of another type, or null. */
    private final Map<Object, Object> objects;
    private final Codec<Object> keyCodec;
    private final Codec<Object> valueCodec;
    private final int maxParallelism;
    private final int maxEntrySize;
    /**
     * For a delta that also rewrites a slice of the state ({@link #rewriteKeyGroups}): the key groups whose entries
     * it emits whatever their stamps, {@code [sliceGroupFrom, sliceGroupTo)}; empty otherwise. Set on the task thread
     * before the overlay is handed to the flusher.
     */
    private int sliceGroupFrom;
    private int sliceGroupTo;
    /**
     * With a slice: every key of the front at the barrier, gathered by {@link #sortedLongRun} (the first
     * {@link #everyKeyCount}, in a thread's run array), until {@link #takeAllKeys} or {@link #release}; null before.
     */
    private long[] everyKey;
    private int everyKeyCount;

    private FrontOverlay(
        final String stateName, final CopyOnWriteLongTable.View longLongView, final long changedSinceBase,
        final Long2ObjectHashMap<Object> longs, final Map<Object, Object> objects,
        final Codec<Object> keyCodec, final Codec<Object> valueCodec, final int maxParallelism,
        final int maxEntrySize)
    {
        this.longLongView = longLongView;
        this.changedSinceBase = changedSinceBase;
        if (keyCodec == null)
        {
            throw new IllegalStateException("state '" + stateName + "' has hot keys but its store no key codec");
        }
        this.stateName = stateName;
        this.longs = longs;
        this.objects = objects;
        this.keyCodec = keyCodec;
        this.valueCodec = valueCodec;
        this.maxParallelism = maxParallelism;
        this.maxEntrySize = maxEntrySize;
    }

    /**
     * @param stateName      the state's name, for messages.
     * @param longs          a copy of the front's map of {@code Long} keys, owned from now on.
     * @param keyCodec       the store's key codec.
     * @param valueCodec     the state's value codec.
     * @param maxParallelism the job's number of key groups.
     * @param maxEntrySize   the largest encoded key plus value.
     * @return the overlay.
     */
    static FrontOverlay ofLongs(
        final String stateName, final Long2ObjectHashMap<Object> longs, final Codec<Object> keyCodec,
        final Codec<Object> valueCodec, final int maxParallelism, final int maxEntrySize)
    {
        return new FrontOverlay(stateName, null, Long.MIN_VALUE, longs, null, keyCodec, valueCodec, maxParallelism, maxEntrySize);
    }

    /**
     * @param stateName      the state's name, for messages.
     * @param objects        a copy of the front's map of keys of another type, owned from now on.
     * @param keyCodec       the store's key codec.
     * @param valueCodec     the state's value codec.
     * @param maxParallelism the job's number of key groups.
     * @param maxEntrySize   the largest encoded key plus value.
     * @return the overlay.
     */
    static FrontOverlay ofObjects(
        final String stateName, final Map<Object, Object> objects, final Codec<Object> keyCodec,
        final Codec<Object> valueCodec, final int maxParallelism, final int maxEntrySize)
    {
        return new FrontOverlay(stateName, null, Long.MIN_VALUE, null, objects, keyCodec, valueCodec, maxParallelism, maxEntrySize);
    }

    /**
     * @param stateName        the state's name, for messages.
     * @param longLongView     the front's table of {@code Long} keys to unboxed {@code Long} values (with their change
     *                         stamps, see {@link HotKeyFront}) at the barrier, owned from now on: read by the flusher,
     *                         or released with the snapshot.
     * @param changedSinceBase for a delta, its base: only entries stamped with it or later are emitted;
     *                         {@code Long.MIN_VALUE} for a full snapshot. Filtering on the flusher keeps the barrier's
     *                         work O(1).
     * @param keyCodec         the store's key codec.
     * @param valueCodec       the state's value codec.
     * @param maxParallelism   the job's number of key groups.
     * @param maxEntrySize     the largest encoded key plus value.
     * @return the overlay.
     */
    static FrontOverlay ofLongLongs(
        final String stateName, final CopyOnWriteLongTable.View longLongView, final long changedSinceBase,
        final Codec<Object> keyCodec, final Codec<Object> valueCodec, final int maxParallelism,
        final int maxEntrySize)
    {
        return new FrontOverlay(stateName, longLongView, changedSinceBase, null, null, keyCodec, valueCodec,
            maxParallelism, maxEntrySize);
    }

    /**
     * @return whether a delta may rewrite a slice of this front ({@link #rewriteKeyGroups}): a front of {@code Long}
     *     counters of the built-in codec, read as a run, whose keys {@link #sortedLongRun} can also gather whole.
     */
    boolean canRewriteSlice()
    {
        return longLongView != null && keyCodec == (Codec<?>)LongCodec.INSTANCE &&
            valueCodec == (Codec<?>)LongCodec.INSTANCE;
    }

    /**
     * Task thread, before the overlay is handed to the flusher, for a delta that rewrites a slice of the state: the
     * run ({@link #sortedLongRun}) then also holds every entry of these key groups, changed since the base or not,
     * and the run's pass gathers every key of the front ({@link #takeAllKeys}).
     *
     * @param from the first key group of the slice.
     * @param to   the key group after its last; {@code from} for an empty slice.
     * @throws IllegalStateException when this front cannot ({@link #canRewriteSlice}).
     */
    void rewriteKeyGroups(final int from, final int to)
    {
        if (!canRewriteSlice())
        {
            throw new IllegalStateException("state '" + stateName + "': only a front of Long counters of the " +
                "built-in codec can rewrite a slice");
        }
        sliceGroupFrom = from;
        sliceGroupTo = Math.max(from, to);
    }

    /**
     * Flusher, after {@link #sortedLongRun} for a delta that rewrites a slice, at most once: every key the front held
     * at the barrier (emitted by the run or not), as a set built now (O(keys held)), owned by the caller, who releases
     * it.
     *
     * @return the keys, or null when no slice is rewritten (or they were taken).
     */
    LongKeyFilter takeAllKeys()
    {
        final long[] keys = everyKey;
        if (keys == null)
        {
            return null;
        }
        everyKey = null;
        final LongKeyFilter filter = LongKeyFilter.of(keys, everyKeyCount);
        RunArrays.giveLongs(keys);
        return filter;
    }

    /** @return the number of keys at the barrier (a delta may emit fewer); any thread. */
    int size()
    {
        return longLongView != null ? longLongView.size() : longs != null ? longs.size() : objects.size();
    }

    /** Flusher: the front's table at the barrier, read at the first call. */
    private CopyOnWriteLongTable.Frozen longLongs()
    {
        if (longLongs == null)
        {
            longLongs = longLongView.materialize();
        }
        return longLongs;
    }

    /** Ends the overlay's claim on the front (the task stops copying for it); idempotent, any thread. */
    void release()
    {
        if (longLongView != null)
        {
            longLongView.release();
        }
        final long[] untaken = everyKey;
        if (untaken != null)
        {
            everyKey = null;
            RunArrays.giveLongs(untaken);
        }
    }

    /** @return whether a slot of the front's table belongs in this snapshot: a full one, or changed since the base. */
    private boolean emitted(final CopyOnWriteLongTable.Frozen table, final int slot)
    {
        return emits(table.valueAt(slot), table.stampAt(slot));
    }

    /**
     * @param value a slot's value ({@link CopyOnWriteLongTable#MISSING} when empty).
     * @param stamp its change stamp ({@link CopyOnWriteLongTable#MISSING} when none).
     * @return whether the slot belongs in this snapshot: occupied, and for a delta changed since its base.
     */
    private boolean emits(final long value, final long stamp)
    {
        return value != CopyOnWriteLongTable.MISSING &&
            (changedSinceBase == Long.MIN_VALUE || stamp >= changedSinceBase);
    }

    /** Receives one encoded overlay entry; the arrays are reused for the next entry. */
    @FunctionalInterface
    interface EncodedEntryConsumer
    {
        /**
         * @param keyGroup    the key's key group.
         * @param storedKey   the key in {@link StoredKeyLayout}.
         * @param keyLength   its length, prefix included.
         * @param value       the encoded value.
         * @param valueLength its length.
         */
        void accept(int keyGroup, byte[] storedKey, int keyLength, byte[] value, int valueLength);
    }

    /**
     * @return whether {@link #forEachEncoded} may stand in for {@link #encode}: the keys are {@code Long}s encoded by
     *     the built-in codec, which never encodes two keys to the same bytes, so the check {@link #encode} makes on
     *     the way is not needed.
     */
    boolean keysEncodeDistinctly()
    {
        return (longLongView != null || longs != null) && keyCodec == (Codec<?>)LongCodec.INSTANCE;
    }

    /**
     * Flusher: the entries of a front of {@code Long} keys and values, both of the built-in codec, that this snapshot
     * emits (all, or for a delta those changed since its base), sorted by key group, for
     * {@link KeyGroupBuckets#addLongRun}: the view is read chunk by chunk through one buffer (no copy of the table),
     * the entries gathered into two arrays, then copied into key group order into two more; nothing encoded.
     *
     * @param stateIndex the state's index in the snapshot.
     * @param range      the store's key groups.
     * @return the run, or null when this overlay is not such a front (then {@link #forEachEncoded} or
     *     {@link #encode}).
     * @throws IllegalStateException when a key's key group is outside the range.
     */
    KeyGroupBuckets.LongRun sortedLongRun(final int stateIndex, final KeyGroupRange range)
    {
        if (longLongView == null || keyCodec != (Codec<?>)LongCodec.INSTANCE ||
            valueCodec != (Codec<?>)LongCodec.INSTANCE)
        {
            return null;
        }
        // the run's, until it is written (KeyGroupBuckets.writeTo gives it back with the run's arrays)
        final int[] groupStarts = RunArrays.takeZeroedInts(range.size() + 1);
        // the view's keys at the barrier bound what is emitted (all of them for a full snapshot): one pass over the
        // view, chunk by chunk, gathers them in slot order with each key's group (a hash, computed once and kept as
        // its offset in the range: at most 2^15 key groups), counting them per group (the task copies a chunk it
        // changes before the pass reaches it, so the pass does as little as it can); no copy of the table
        final int held = longLongView.size();
        // the thread's run arrays of an earlier snapshot when they are large enough; the run gives them back once
        // written (KeyGroupBuckets.writeTo), so only the first [0, size) of each is meaningful
        final long[] gatheredKeys = RunArrays.takeLongs(held);
        final long[] gatheredValues = RunArrays.takeLongs(held);
        final char[] groups = RunArrays.takeChars(held);
        // a delta that rewrites a slice also emits the slice's key groups whole, and gathers every key
        final boolean sliced = sliceGroupTo > sliceGroupFrom;
        final long[] everyKey = sliced ? RunArrays.takeLongs(held) : null;
        // a kept gatherer of this thread, not a closure and a counter array per snapshot
        final LongRunGatherer gatherer = GATHERER.get().start(this, range, sliced, gatheredKeys, gatheredValues,
            groups, groupStarts, everyKey);
        try
        {
            longLongView.forEachChunk(gatherer);
        }
        finally
        {
            gatherer.end();
        }
        if (sliced)
        {
            this.everyKey = everyKey;
            everyKeyCount = gatherer.every;
        }
        final int size = gatherer.at;
        for (int i = 1; i < groupStarts.length; i++)
        {
            groupStarts[i] += groupStarts[i - 1];
        }
        final long[] sortedKeys = RunArrays.takeLongs(size);
        final long[] sortedValues = RunArrays.takeLongs(size);
        scatterByKeyGroup(gatheredKeys, gatheredValues, groups, size, groupStarts, sortedKeys, sortedValues);
        RunArrays.giveLongs(gatheredKeys);
        RunArrays.giveLongs(gatheredValues);
        RunArrays.giveChars(groups);
        return new KeyGroupBuckets.LongRun(stateIndex, sortedKeys, sortedValues, groupStarts);
    }

    /** Each thread's gatherer for {@link #sortedLongRun}: one per thread, its arrays held only during a pass. */
    private static final ThreadLocal<LongRunGatherer> GATHERER = ThreadLocal.withInitial(LongRunGatherer::new);

    /**
     * One pass of {@link #sortedLongRun} over the view's chunks: gathers, in slot order, the entries the overlay
     * emits with each one's key group (and, with a slice, every key), counting them per key group. Thread contract:
     * the thread that took it from {@link #GATHERER}, between {@link #start} and {@link #end}.
     */
    private static final class LongRunGatherer implements CopyOnWriteLongTable.ChunkConsumer
    {
        private FrontOverlay overlay;
        private KeyGroupRange range;
        private boolean sliced;
        private long[] keys;
        private long[] values;
        private char[] groups;
        private int[] groupStarts;
        private long[] everyKey;
        /** Entries gathered so far. */
        int at;
        /** Keys gathered so far into {@link #everyKey}. */
        int every;

        LongRunGatherer start(final FrontOverlay overlay, final KeyGroupRange range, final boolean sliced,
            final long[] keys, final long[] values, final char[] groups, final int[] groupStarts,
            final long[] everyKey)
        {
            this.overlay = overlay;
            this.range = range;
            this.sliced = sliced;
            this.keys = keys;
            this.values = values;
            this.groups = groups;
            this.groupStarts = groupStarts;
            this.everyKey = everyKey;
            at = 0;
            every = 0;
            return this;
        }

        @Override
        public void accept(final long[] entries, final long[] stamps, final int slots)
        {
            final int start = range.start();
            for (int slot = 0; slot < slots; slot++)
            {
                final long value = entries[2 * slot + 1];
                if (value == CopyOnWriteLongTable.MISSING)
                {
                    continue;
                }
                final long key = entries[2 * slot];
                final boolean changed = overlay.emits(value,
                    stamps == null ? CopyOnWriteLongTable.MISSING : stamps[slot]);
                if (!changed && !sliced)
                {
                    continue;
                }
                final int keyGroup = KeyGroups.keyGroupOfHash(Long.hashCode(key), overlay.maxParallelism);
                if (sliced)
                {
                    everyKey[every++] = key;
                }
                if (changed || keyGroup >= overlay.sliceGroupFrom && keyGroup < overlay.sliceGroupTo)
                {
                    if (!range.contains(keyGroup))
                    {
                        throw new IllegalStateException("a key of key group " + keyGroup + " is held by a store " +
                            "that owns key groups " + range.start() + ".." + range.end() + ": keys must reach the " +
                            "subtask that owns their key group");
                    }
                    keys[at] = key;
                    values[at] = value;
                    groups[at++] = (char)(keyGroup - start);
                    groupStarts[keyGroup - start + 1]++;
                }
            }
        }

        /** Lets go of the pass's arrays and overlay (the counts stay readable until the next start). */
        void end()
        {
            overlay = null;
            range = null;
            keys = null;
            values = null;
            groups = null;
            groupStarts = null;
            everyKey = null;
        }
    }

    /**
     * Copies entries into key group order, stable within a group (a counting sort's scatter: one sequential read, as
     * many sequential write streams as key groups; about 2.8x faster than ordering them in place at a million
     * entries, measured, since no step waits on the one before it).
     *
     * @param keys        the keys, in any order.
     * @param values      their values.
     * @param groups      their key groups, as offsets from the range's first.
     * @param size        how many entries the three arrays hold, from index 0.
     * @param groupStarts where each key group's entries start in the output (the last element: {@code size}).
     * @param sortedKeys  where the keys go, at least {@code size} long.
     * @param sortedValues where the values go, as long.
     */
    static void scatterByKeyGroup(final long[] keys, final long[] values, final char[] groups, final int size,
        final int[] groupStarts, final long[] sortedKeys, final long[] sortedValues)
    {
        final int[] next = RunArrays.takeZeroedInts(groupStarts.length - 1);
        System.arraycopy(groupStarts, 0, next, 0, next.length);
        for (int i = 0; i < size; i++)
        {
            final int to = next[groups[i]]++;
            sortedKeys[to] = keys[i];
            sortedValues[to] = values[i];
        }
        RunArrays.giveInts(next);
    }

    /**
     * Encodes every entry as {@link #encode} does, one at a time into two reused buffers, and hands each to
     * {@code consumer}: no map, no copy per entry. Flusher; only when {@link #keysEncodeDistinctly()}.
     *
     * @param consumer receives each entry.
     * @throws IllegalStateException as {@link #encode}, but for the distinctness check.
     */
    void forEachEncoded(final EncodedEntryConsumer consumer)
    {
        final EncodedBytes key = new EncodedBytes(64);
        final EncodedBytes value = new EncodedBytes(64);
        if (longLongView != null)
        {
            // Long values through a codec of the user's (the built-in one goes through sortedLongRun)
            final CopyOnWriteLongTable.Frozen table = longLongs();
            for (int slot = 0, slots = table.slots(); slot < slots; slot++)
            {
                if (emitted(table, slot))
                {
                    encodeEntry(table.keyAt(slot), table.valueAt(slot), key, value);
                    consumer.accept(StoredKeyLayout.keyGroup(key.array()), key.array(), key.length(), value.array(),
                        value.length());
                }
            }
        }
        else
        {
            final Long2ObjectHashMap<Object>.KeyIterator keys = longs.keySet().iterator();
            while (keys.hasNext())
            {
                final long longKey = keys.nextLong();
                encodeEntry(longKey, longs.get(longKey), key, value);
                consumer.accept(StoredKeyLayout.keyGroup(key.array()), key.array(), key.length(), value.array(),
                    value.length());
            }
        }
    }

    /**
     * Encodes every entry as a stored key ({@link StoredKeyLayout}: key group, then the key codec's bytes) and the
     * value codec's bytes, exactly as the state's map would hold them. Flusher; allocates O(size).
     *
     * @return stored key to encoded value, by content.
     * @throws IllegalStateException when an entry no longer fits the maximum entry size (a value mutated after it was
     *                               handed to the state), or two keys encode to the same bytes (a key codec that
     *                               disagrees with {@code equals}).
     */
    Map<PreservedKey, byte[]> encode()
    {
        final Map<PreservedKey, byte[]> encoded = new HashMap<>((int)Math.min(1 << 30, size() * 4L / 3 + 1));
        final EncodedBytes key = new EncodedBytes(64);
        final EncodedBytes value = new EncodedBytes(64);
        if (longLongView != null)
        {
            final CopyOnWriteLongTable.Frozen table = longLongs();
            for (int slot = 0, slots = table.slots(); slot < slots; slot++)
            {
                if (emitted(table, slot))
                {
                    add(encoded, table.keyAt(slot), table.valueAt(slot), key, value);
                }
            }
        }
        else if (longs != null)
        {
            longs.forEachLong((longKey, longValue) -> add(encoded, longKey, longValue, key, value));
        }
        else
        {
            for (final Map.Entry<Object, Object> entry : objects.entrySet())
            {
                add(encoded, entry.getKey(), entry.getValue(), key, value);
            }
        }
        return encoded;
    }

    private void add(
        final Map<PreservedKey, byte[]> encoded, final Object key, final Object value, final EncodedBytes keySlot,
        final EncodedBytes valueSlot)
    {
        encodeEntry(key, value, keySlot, valueSlot);
        if (encoded.put(PreservedKey.copyOf(keySlot), valueSlot.toByteArray()) != null)
        {
            throw new IllegalStateException("state '" + stateName + "': two hot keys, one of them " + key +
                ", encode to the same bytes: the key codec must agree with equals");
        }
    }

    /** Encodes one entry into the two slots, each left with its length. */
    private void encodeEntry(
        final Object key, final Object value, final EncodedBytes keySlot, final EncodedBytes valueSlot)
    {
        final int keyLength = StoredKeyLayout.encode(keyCodec, key, maxParallelism, keySlot, maxEntrySize);
        final int valueLength = keyLength < 0 ? -1 : valueSlot.encode(valueCodec, value, 0, maxEntrySize);
        if (valueLength < 0 || keyLength + valueLength > maxEntrySize)
        {
            throw new IllegalStateException("state '" + stateName + "': the hot key " + key + " and its value no " +
                "longer fit maxEntrySize " + maxEntrySize + ": was the value changed after it was handed to update?");
        }
        valueSlot.length(valueLength);
    }

    @Override
    public String toString()
    {
        return "FrontOverlay{state=" + stateName + ", size=" + size() + '}';
    }
}
