package io.ringflow.state.chronicle;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.LongCodec;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.collections.Object2LongHashMap;

import java.util.HashMap;
import java.util.Map;

/**
 * The hot-key front of one {@link ChronicleValueState} (no time-to-live): a write-back buffer on the heap of at most
 * {@link #capacity()} keys, each mapped to its decoded value, in front of the state's Chronicle Map. {@code Long} keys
 * live in an Agrona {@link Long2ObjectHashMap} (looked up by {@code longValue()}, no boxing), keys of other types in a
 * {@link HashMap}; which one is fixed by the first key, since a store's keys all have one type.
 *
 * <p>Invariants, between calls:
 * <ul>
 *   <li>{@link #size()} {@code <=} {@link #capacity()}: the heap held by a value state is bounded, whatever the
 *   number of keys. The maps start small and grow as keys arrive, up to the capacity.</li>
 *   <li>A key here has its newest value here: reads of it never reach the map, and its map entry, if it has one, is
 *   stale. Only writes enter the front ({@link #insert}); a read of a key that is not here goes to the map and does
 *   not insert.</li>
 *   <li>{@link #shadowed()} is the number of keys here that also have a (stale) map entry, so that
 *   {@code map size + size() - shadowed()} is exactly the state's number of keys.</li>
 *   <li>Every key here was encoded by the store once, when it entered: it is of the store's key type and fits the
 *   maximum entry size with its value ({@link ChronicleValueState} checks values before they enter), so writing it
 *   back or snapshotting it cannot fail on size.</li>
 * </ul>
 *
 * <p><b>Turnover.</b> {@link #access} counts hits and misses over windows of {@link #WINDOW} accesses. When a window
 * ends with the front full and fewer hits than misses, the keys here are not the hot ones: every entry is written back
 * to the map ({@link #writeBack}, through {@link StateMap#put}, so pending snapshots stay copy-on-write and the keys
 * are recorded as changed for deltas) and the front is emptied, so that the keys written next, the hotter ones more
 * likely, can enter. A write back the map refuses (full) leaves every entry here, where it stays exact; the turnover
 * is then skipped until a later window.
 *
 * <p>Snapshots see the front through {@link #freeze}: an O(1) view of the {@link CopyOnWriteLongTable} of
 * {@code Long} keys and values, or a copy of the other maps at the barrier, O(size). When the map
 * tracks changes (incremental snapshots), each entry also carries the checkpoint id of the last barrier before its
 * last change ({@link #seal} moves it forward at every barrier; -1 before the first); a delta
 * against base {@code b} copies only the entries stamped {@code b} or later: changed after {@code b}'s barrier. An
 * entry stamped earlier was not changed since {@code b}, and its map entry was not written either (a key here is
 * written to the map only by a turnover, which empties the front, or removed by a clear, which takes it out of
 * here), so the delta rightly has nothing for it.
 *
 * <p>Thread contract: the task thread only; what {@link #freeze} returns is handed to a flusher.
 */
final class HotKeyFront
{
    /** Accesses per turnover window. */
    static final int WINDOW = 1 << 16;

    private final ChronicleKeyedStateStore store;
    private final StateMap map;
    private final Codec<Object> valueCodec;
    private final String stateName;
    /** The most keys held: {@link #boxedCapacity} once a first key shows that entries are not both {@code Long}s. */
    private int capacity;
    /** The most keys held when keys or values are kept boxed. */
    private final int boxedCapacity;
    private final int maxEntrySize;
    /** Missing value of {@link #longLongs}: a {@code Long} value equal to it never enters the front. */
    static final long NO_LONG = Long.MIN_VALUE;

    /** Whether the state's values are {@code Long}s: with {@code Long} keys, kept unboxed in {@link #longLongs}. */
    private final boolean longValues;
    /** The front of {@code Long} keys and values, unboxed; null until the first key, or when not both are. */
    private CopyOnWriteLongTable longLongs;
    /** The front of {@code Long} keys; null until the first key, or when keys are of another type or values Long. */
    private Long2ObjectHashMap<Object> longs;
    /** The front of keys of another type; null until the first key, or when keys are {@code Long}. */
    private HashMap<Object, Object> objects;
    /** The type of every key here, fixed by the first; null before. */
    private Class<?> keyClass;
    /** Keys here that also have a map entry. */
    private int shadowed;
    /** The longest encoded key (without the key group prefix) that entered since the front was last empty. */
    private int longestKey;
    /** Accesses in the current window. */
    private int accesses;
    /** Hits in the current window. */
    private int hits;
    /** Turnovers done; for tests. */
    private long turnovers;
    /** Per {@code Long} key here, its change stamp; only while the map tracks changes. */
    private Long2LongHashMap longStamps;
    /** Per key of another type here, its change stamp; only while the map tracks changes. */
    private Object2LongHashMap<Object> objectStamps;
    /**
     * The stamp of changes made now: the checkpoint id of the last barrier, -1 before any (checkpoint ids are not
     * negative; {@code Long.MIN_VALUE} marks a missing stamp).
     */
    private long changeStamp = -1;
    /** Write back: the stored key. */
    private final EncodedBytes keySlot = new EncodedBytes(64);
    /** Write back: the stored value. */
    private final EncodedBytes valueSlot = new EncodedBytes(64);

    /**
     * @param store        the store, which encodes keys.
     * @param map          the state's map, where entries are written back.
     * @param valueCodec   the state's value codec.
     * @param stateName    the state's name, for messages.
     * @param unboxedCapacity the most keys held when keys and values are both {@code Long}s (kept unboxed in a
     *                        {@link CopyOnWriteLongTable}), at least 1.
     * @param boxedCapacity   the most keys held otherwise, at least 1.
     * @param maxEntrySize the largest encoded key plus value.
     * @param longValues   whether the state's values are {@code Long}s (kept unboxed with {@code Long} keys).
     */
    HotKeyFront(
        final ChronicleKeyedStateStore store, final StateMap map, final Codec<Object> valueCodec,
        final String stateName, final int unboxedCapacity, final int boxedCapacity, final int maxEntrySize,
        final boolean longValues)
    {
        this.longValues = longValues;
        if (unboxedCapacity < 1 || boxedCapacity < 1 || unboxedCapacity > CopyOnWriteLongTable.MAX_KEYS)
        {
            throw new IllegalArgumentException("a hot-key front holds 1 to " + CopyOnWriteLongTable.MAX_KEYS +
                " keys, not " + unboxedCapacity + " (unboxed) or " + boxedCapacity + " (boxed)");
        }
        this.store = store;
        // a front declared after a barrier (or after a restore the store was told it equals) stamps its changes with
        // that checkpoint, so that a delta against it carries them
        this.changeStamp = store.lastBarrier();
        this.map = map;
        this.valueCodec = valueCodec;
        this.stateName = stateName;
        this.boxedCapacity = boxedCapacity;
        this.capacity = longValues ? unboxedCapacity : boxedCapacity;
        this.maxEntrySize = maxEntrySize;
    }

    /**
     * Counts nothing: callers say with {@link #access} whether the access was a hit.
     *
     * @param key the current key; may be null or of another type (then not here).
     * @return its value here, or null when the key is not here.
     */
    Object get(final Object key)
    {
        final CopyOnWriteLongTable longLongs = this.longLongs;
        if (longLongs != null)
        {
            if (!(key instanceof Long))
            {
                return null;
            }
            final long value = longLongs.get(((Long)key).longValue());
            return value == NO_LONG ? null : (Object)value;
        }
        final Long2ObjectHashMap<Object> longs = this.longs;
        if (longs != null)
        {
            return key instanceof Long ? longs.get(((Long)key).longValue()) : null;
        }
        final HashMap<Object, Object> objects = this.objects;
        return objects != null && key != null && key.getClass() == keyClass ? objects.get(key) : null;
    }

    /** @return whether keys and values are both {@code Long}s, kept unboxed: {@link #getLong} and {@link #replaceLong}. */
    boolean holdsLongs()
    {
        return longLongs != null;
    }

    /**
     * @return whether {@link #touch} is worth calling: the front holds {@code Long}s in a table too big for the near
     *     caches.
     */
    boolean worthTouching()
    {
        final CopyOnWriteLongTable longLongs = this.longLongs;
        return longLongs != null && longLongs.outgrowsNearCaches();
    }

    /**
     * A hint that {@code key} is looked up soon; nothing unless {@link #holdsLongs()}. See
     * {@link CopyOnWriteLongTable#touch}.
     *
     * @param key a key that will soon be the current key.
     * @return a value of no meaning, to be folded into something the caller keeps.
     */
    long touch(final long key)
    {
        final CopyOnWriteLongTable longLongs = this.longLongs;
        return longLongs != null ? longLongs.touch(key) : 0L;
    }

    /**
     * The unboxed {@link #get}, when {@link #holdsLongs()}.
     *
     * @param key the current key, a {@code Long}.
     * @return its value here, or {@link #NO_LONG} when it is not here.
     */
    long getLong(final Long key)
    {
        return longLongs.get(key.longValue());
    }

    /**
     * {@link #getLong(Long)} for a key set unboxed.
     *
     * @param key the current key.
     * @return its value here, or {@link #NO_LONG} when it is not here.
     */
    long getLong(final long key)
    {
        return longLongs.get(key);
    }

    /**
     * The unboxed {@link #replace}, when {@link #holdsLongs()}: one lookup, no allocation, the change stamped in the
     * table itself when changes are tracked (incremental snapshots).
     *
     * @param key   the current key.
     * @param value its new value, not {@link #NO_LONG}.
     * @return whether the key was here.
     */
    boolean replaceLong(final long key, final long value)
    {
        return longLongs.replace(key, value, map.tracksChanges() ? changeStamp : NO_LONG);
    }

    /**
     * Replaces the value of a key that is here; nothing otherwise. One lookup, no allocation.
     *
     * @param key   the current key; may be null or of another type (then not here).
     * @param value its new value, non-null, already checked to fit.
     * @return whether the key was here.
     */
    boolean replace(final Object key, final Object value)
    {
        final Long2ObjectHashMap<Object> longs = this.longs;
        final CopyOnWriteLongTable longLongs = this.longLongs;
        final boolean replaced;
        if (longLongs != null)
        {
            // stamped in the table itself
            return key instanceof Long && longLongs.replace(((Long)key).longValue(), ((Long)value).longValue(),
                map.tracksChanges() ? changeStamp : NO_LONG);
        }
        else if (longs != null)
        {
            replaced = key instanceof Long && longs.replace(((Long)key).longValue(), value) != null;
        }
        else
        {
            final HashMap<Object, Object> objects = this.objects;
            replaced = objects != null && key != null && key.getClass() == keyClass &&
                objects.replace(key, value) != null;
        }
        if (replaced && map.tracksChanges())
        {
            stamp(key);
        }
        return replaced;
    }

    /**
     * @param value a value about to be written, non-null.
     * @return whether the front can hold it: every value, except {@link #NO_LONG} when values are kept unboxed.
     */
    boolean accepts(final Object value)
    {
        return !longValues || ((Long)value).longValue() != NO_LONG;
    }

    /** Stamps a key here as changed now. */
    private void stamp(final Object key)
    {
        if (longs != null)
        {
            if (longStamps == null)
            {
                longStamps = new Long2LongHashMap(initialSlots(), 0.5f, Long.MIN_VALUE);
            }
            longStamps.put(((Long)key).longValue(), changeStamp);
        }
        else
        {
            if (objectStamps == null)
            {
                objectStamps = new Object2LongHashMap<>(initialSlots(), 0.5f, Long.MIN_VALUE);
            }
            objectStamps.put(key, changeStamp);
        }
    }

    /**
     * A barrier: changes from now on are stamped with its checkpoint id.
     *
     * @param checkpointId the snapshot's checkpoint, above every earlier one.
     */
    void seal(final long checkpointId)
    {
        changeStamp = checkpointId;
    }

    /** @return the initial slots of a map of boxed entries: a large capacity costs what is used. */
    private int initialSlots()
    {
        return (int)Math.min(2L * capacity, 2048);
    }

    /** @return whether a key that is not here may enter. */
    boolean hasRoom()
    {
        return size() < capacity;
    }

    /**
     * @param restored a table of restored counters.
     * @return whether {@link #adoptRestored} may take it: this front holds {@code Long} values, is empty, and the
     *     table holds at most its capacity.
     */
    boolean canAdopt(final CopyOnWriteLongTable restored)
    {
        return longValues && keyClass == null && restored.size() <= capacity;
    }

    /**
     * Takes a table of restored counters as this front's (the caller checked {@link #canAdopt}, and that keys and
     * values use the built-in codec). Their keys must have no map entry (so nothing is shadowed) and no change stamp
     * (unchanged since the restore: no delta can have a base before it).
     *
     * @param restored the restored entries; this front owns the table from now on.
     */
    void adoptRestored(final CopyOnWriteLongTable restored)
    {
        keyClass = Long.class;
        longLongs = restored;
        shadowed = 0;
        longestKey = Long.BYTES;
    }

    /**
     * Adds a key that is not here.
     *
     * @param key         the key, encoded by the store (so of its key type, and not too long).
     * @param value       its value, non-null, already checked to fit with the key.
     * @param keyLength   the key's encoded length, without the key group prefix.
     * @param inChronicle whether the key has a map entry now (which becomes stale).
     * @throws IllegalStateException when there is no room, or the key is of another type than the keys here.
     */
    void insert(final Object key, final Object value, final int keyLength, final boolean inChronicle)
    {
        if (!hasRoom())
        {
            throw new IllegalStateException("the hot-key front of state '" + stateName + "' is full");
        }
        if (keyClass == null)
        {
            keyClass = key.getClass();
            if (keyClass == Long.class && longValues)
            {
                // grows from a few slots to two per key of the capacity, at most: a large capacity costs what is used
                longLongs = new CopyOnWriteLongTable(capacity);
            }
            else
            {
                capacity = boxedCapacity;
                if (keyClass == Long.class)
                {
                    longs = new Long2ObjectHashMap<>(initialSlots(), 0.5f);
                }
                else
                {
                    objects = new HashMap<>(initialSlots());
                }
            }
        }
        else if (key.getClass() != keyClass)
        {
            throw new IllegalStateException("the hot-key front of state '" + stateName + "' holds keys of type " +
                keyClass.getName() + ", not " + key.getClass().getName());
        }
        if (longLongs != null)
        {
            longLongs.put(((Long)key).longValue(), ((Long)value).longValue(),
                map.tracksChanges() ? changeStamp : NO_LONG);
        }
        else
        {
            if (longs != null)
            {
                longs.put(((Long)key).longValue(), value);
            }
            else
            {
                objects.put(key, value);
            }
            if (map.tracksChanges())
            {
                stamp(key);
            }
        }
        longestKey = Math.max(longestKey, keyLength);
        if (inChronicle)
        {
            shadowed++;
        }
    }

    /**
     * @param key the current key; may be null or of another type (then not here).
     * @return whether it was here (and is no longer). When it was, the caller removes its map entry too and, if there
     *     was one, calls {@link #unshadow}.
     */
    boolean remove(final Object key)
    {
        final Long2ObjectHashMap<Object> longs = this.longs;
        final CopyOnWriteLongTable longLongs = this.longLongs;
        if (longs != null || longLongs != null)
        {
            // the table drops a removed key's stamp with it
            if (!(key instanceof Long) || (longLongs != null ? longLongs.remove(((Long)key).longValue()) == NO_LONG :
                longs.remove(((Long)key).longValue()) == null))
            {
                return false;
            }
            if (longStamps != null)
            {
                longStamps.remove(((Long)key).longValue());
            }
            return true;
        }
        final HashMap<Object, Object> objects = this.objects;
        if (objects == null || key == null || key.getClass() != keyClass || objects.remove(key) == null)
        {
            return false;
        }
        if (objectStamps != null)
        {
            objectStamps.removeKey(key);
        }
        return true;
    }

    /**
     * Hands over every key here changed after {@code checkpointId}'s barrier: stamped with it or later (see the class
     * documentation), the front's share of what a delta against that checkpoint would hold. Keys that left the front
     * since are not here: the map recorded them as changed when they left. Nothing when changes are not tracked.
     * Task thread; the caller changes the front only once this returns.
     *
     * @param checkpointId a barrier taken while changes were tracked.
     * @param keys         takes each such key, boxed.
     */
    void forEachKeyChangedSince(final long checkpointId, final java.util.function.Consumer<Object> keys)
    {
        if (longLongs != null)
        {
            longLongs.forEachStampedSince(checkpointId, key -> keys.accept(key));
        }
        else if (longStamps != null)
        {
            longStamps.forEachLong((key, stamp) ->
            {
                if (stamp >= checkpointId)
                {
                    keys.accept(key);
                }
            });
        }
        else if (objectStamps != null)
        {
            objectStamps.forEachLong((key, stamp) ->
            {
                if (stamp >= checkpointId)
                {
                    keys.accept(key);
                }
            });
        }
    }

    /** A key removed from here had a map entry, removed with it. */
    void unshadow()
    {
        shadowed--;
    }

    /**
     * Counts one access of the state (a read or a write of a value) and, at the end of a window, turns the front over
     * when it is full and missed more than it hit. Call it last, once the access is done: a turnover writes to the
     * map.
     *
     * @param hit whether the key was here.
     */
    void access(final boolean hit)
    {
        hits += hit ? 1 : 0;
        if (++accesses == WINDOW)
        {
            endWindow();
        }
    }

    private void endWindow()
    {
        // a front larger than a window keeps its keys: writing back more than a window's accesses would stall the task
        final boolean turnOver = size() == capacity && capacity <= WINDOW && hits < accesses - hits;
        accesses = 0;
        hits = 0;
        if (turnOver)
        {
            try
            {
                writeBack();
                turnovers++;
            }
            catch (final IllegalStateException | IllegalArgumentException refused)
            {
                // the map is full: every entry stayed here, exact; try again after a later window
            }
        }
    }

    /**
     * Writes every entry back to the map, through {@link StateMap#put}, then empties the front.
     *
     * @throws IllegalStateException when the map refuses a write (full); every entry then stays here (those written
     *                               back before the refusal are also in the map, with the same value).
     */
    void writeBack()
    {
        if (size() == 0)
        {
            return;
        }
        // a lookup left open on this map (a read waiting for its write) is closed first: the map is written now
        store.releaseHeld();
        try
        {
            if (longLongs != null)
            {
                longLongs.forEach((key, value) -> writeBack(key, value));
            }
            else if (longs != null)
            {
                longs.forEachLong((key, value) -> writeBack(key, value));
            }
            else
            {
                for (final Map.Entry<Object, Object> entry : objects.entrySet())
                {
                    writeBack(entry.getKey(), entry.getValue());
                }
            }
        }
        catch (final RuntimeException ex)
        {
            shadowed = countShadowed();
            throw ex;
        }
        empty();
    }

    private void writeBack(final Object key, final Object value)
    {
        final EncodedBytes storedKey = store.encodeKey(key, keySlot, stateName);
        final int length = valueSlot.encode(valueCodec, value, 0, maxEntrySize);
        if (length < 0)
        {
            // checked before the value entered
            throw new IllegalStateException("state '" + stateName + "': a value of the hot-key front no longer " +
                "fits maxEntrySize " + maxEntrySize + ": was it changed after it was handed to update?");
        }
        valueSlot.length(length);
        map.put(storedKey, valueSlot);
    }

    private int countShadowed()
    {
        final int[] count = new int[1];
        if (longLongs != null)
        {
            longLongs.forEach((key, value) -> count[0] += inChronicle(key) ? 1 : 0);
        }
        else if (longs != null)
        {
            longs.forEachLong((key, value) -> count[0] += inChronicle(key) ? 1 : 0);
        }
        else
        {
            for (final Object key : objects.keySet())
            {
                count[0] += inChronicle(key) ? 1 : 0;
            }
        }
        return count[0];
    }

    private boolean inChronicle(final Object key)
    {
        return map.contains(store.encodeKey(key, keySlot, stateName));
    }

    /** Empties the front without writing anything back (the store is closing). */
    void discard()
    {
        empty();
    }

    private void empty()
    {
        if (longLongs != null)
        {
            longLongs.clear();
        }
        if (longs != null)
        {
            longs.clear();
        }
        if (objects != null)
        {
            objects.clear();
        }
        if (longStamps != null)
        {
            longStamps.clear();
        }
        if (objectStamps != null)
        {
            objectStamps.clear();
        }
        shadowed = 0;
        longestKey = 0;
    }

    /**
     * The front as of a snapshot's barrier: an O(1) view of the {@code Long} table, else a copy, O(size), the only
     * synchronous snapshot work the front adds.
     *
     * @param keyCodec         the store's key codec.
     * @param maxParallelism   the job's number of key groups.
     * @param changedSinceBase {@code Long.MIN_VALUE} to copy every entry (a full snapshot); else a delta's base:
     *                         copy the entries stamped with it or later (see the class documentation).
     * @return the copy, or null when there is nothing to copy.
     */
    FrontOverlay freeze(final Codec<Object> keyCodec, final int maxParallelism, final long changedSinceBase)
    {
        if (size() == 0)
        {
            return null;
        }
        if (longLongs != null)
        {
            // O(1): the table copies a chunk only when the task changes it before the flusher has read it; for a
            // delta, the flusher leaves out what is stamped before the base
            return FrontOverlay.ofLongLongs(stateName, longLongs.snapshot(), changedSinceBase, keyCodec, valueCodec,
                maxParallelism, maxEntrySize);
        }
        if (changedSinceBase == Long.MIN_VALUE)
        {
            return longs != null ?
                FrontOverlay.ofLongs(stateName, new Long2ObjectHashMap<>(longs), keyCodec, valueCodec,
                    maxParallelism, maxEntrySize) :
                FrontOverlay.ofObjects(stateName, new HashMap<>(objects), keyCodec, valueCodec, maxParallelism,
                    maxEntrySize);
        }
        if (longs != null)
        {
            final Long2ObjectHashMap<Object> changed = new Long2ObjectHashMap<>();
            longs.forEachLong((key, value) ->
            {
                if (longStamps != null && longStamps.get(key) >= changedSinceBase)
                {
                    changed.put(key, value);
                }
            });
            return changed.isEmpty() ? null : FrontOverlay.ofLongs(stateName, changed, keyCodec, valueCodec,
                maxParallelism, maxEntrySize);
        }
        final HashMap<Object, Object> changed = new HashMap<>();
        for (final Map.Entry<Object, Object> entry : objects.entrySet())
        {
            if (objectStamps != null && objectStamps.getValue(entry.getKey()) >= changedSinceBase)
            {
                changed.put(entry.getKey(), entry.getValue());
            }
        }
        return changed.isEmpty() ? null : FrontOverlay.ofObjects(stateName, changed, keyCodec, valueCodec,
            maxParallelism, maxEntrySize);
    }

    /**
     * @param keyCodec the store's key codec.
     * @return whether a delta may rewrite a slice of this front ({@link FrontOverlay#canRewriteSlice}): it holds no
     *     key, or its keys and values are {@code Long}s of the built-in codec, kept unboxed.
     */
    boolean canRewriteSlice(final Codec<Object> keyCodec)
    {
        return size() == 0 || longLongs != null && keyCodec == (Codec<?>)LongCodec.INSTANCE &&
            valueCodec == (Codec<?>)LongCodec.INSTANCE;
    }

    /** @return the keys held, at most {@link #capacity()}. */
    int size()
    {
        return longLongs != null ? longLongs.size() : longs != null ? longs.size() : objects != null ?
            objects.size() : 0;
    }

    /** @return the most keys held. */
    int capacity()
    {
        return capacity;
    }

    /** @return the keys held that also have a (stale) map entry. */
    int shadowed()
    {
        return shadowed;
    }

    /** @return the longest encoded key that entered since the front was last empty; 0 when empty. */
    int longestKey()
    {
        return longestKey;
    }

    /** @return how many turnovers wrote the front back; for tests. */
    long turnovers()
    {
        return turnovers;
    }

    @Override
    public String toString()
    {
        return "HotKeyFront{state=" + stateName + ", size=" + size() + ", capacity=" + capacity + '}';
    }
}
