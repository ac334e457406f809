package io.ringflow.state.chronicle;

import io.ringflow.state.snapshot.StateMeta;
import net.openhft.chronicle.core.io.ClosedIllegalStateException;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.hash.VanillaGlobalMutableState;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;

import java.lang.reflect.Field;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * One state's Chronicle Map, keys in {@link StoredKeyLayout}, values as their codec encodes them, and the write path
 * that keeps pending snapshots copy-on-write.
 *
 * <p>Every write (insert, replace, remove) runs inside a Chronicle query context holding the key's segment update
 * lock, in this order: read the entry, {@link #preserve} its old value for every pending snapshot that may not have
 * read this segment yet, then change the map. The flusher reads a segment under the same lock, so a write and the
 * flusher's visit of its segment never interleave; see {@link ChronicleKeyedStateStore} for the whole argument.
 *
 * <p>Thread contract: {@link #get}, {@link #put} and {@link #remove} on the task thread only (restore included);
 * {@link #addPending} and {@link #removePending} from any thread; the map itself is read by flushers.
 */
final class StateMap
{
    private static final PendingStatePart[] NONE = new PendingStatePart[0];
    private static final System.Logger LOG = System.getLogger(StateMap.class.getName());

    private final String name;
    /**
     * The map, created at the first write ({@link #created()}): a state that never needs one (it lives in its hot-key
     * front, or is never written) never initialises Chronicle, its memory or its files. Null before. Task thread
     * only: a snapshot part captures it at the barrier ({@link PendingStatePart#mapAtBarrier}) for its flusher.
     */
    private ChronicleMap<EncodedBytes, EncodedBytes> map;
    /** Creates {@link #map}; null once it has. */
    private java.util.function.Supplier<ChronicleMap<EncodedBytes, EncodedBytes>> creator;
    private final ChronicleStateConfig config;
    /** Chronicle Map's count of extra segment tiers in use, in the map's own memory. */
    private VanillaGlobalMutableState tiers;
    /** How many extra segment tiers the map may allocate. */
    private long maxExtraTiers;
    /** The description of the restored entries, checked when the state is declared; null when none were. */
    private StateMeta restoredMeta;
    /** The pending snapshots that include this state; replaced, never changed, under {@code this}. */
    private volatile PendingStatePart[] pending = NONE;
    /**
     * Restored entries of a value state of {@code Long} counters, kept out of the map until the state is declared
     * ({@link SnapshotRestore}): then its hot-key front takes the table whole, or they are written to the map. Keys
     * here have no map entry. Null when there are none. Task thread.
     */
    private CopyOnWriteLongTable restoredLongs;
    /** What is wrong with the restored entries, found during restore and reported at declaration; or null. */
    private String restoreProblem;
    /**
     * Whether every entry restored into the map so far has an 8-byte key and an 8-byte value (what a value state of
     * {@code Long} counters stores): then the built-in codecs decode every one, and the check at declaration need
     * not read them ({@link SnapshotRestore#checkRestored}). Task thread, during restore.
     */
    private boolean restoredOnlyLongPairs = true;
    /** Whether values are map values, counted by user key. Task thread. */
    private boolean holdsMapValues;
    /** User keys in the map values of every key. Task thread. */
    private long userKeys;
    /** Task thread: the old value on its way into preserved copies. */
    private final EncodedBytes previous = new EncodedBytes(64);
    /** Task thread: looks keys up in preserved copies. */
    private final PreservedKey probe = new PreservedKey();
    /** Task thread: looks keys up in the change set. */
    private final PreservedKey changeProbe = new PreservedKey();
    /**
     * A full snapshot's filter of preserved keys, cleared, kept for the next snapshot's first copy (so the task does
     * not allocate one under a segment lock): put by the flusher that finished with it, taken by the task.
     */
    private final AtomicReference<long[]> spareFilter = new AtomicReference<>();
    /** The keys changed since the last snapshot, when changes are tracked; else null. Task thread. */
    private ChangedKeySet changes;
    /**
     * The change sets of earlier intervals, by the id of the snapshot that ended each, ascending; never modified once
     * here (pending deltas read them on flushers). Task thread.
     */
    private final ArrayDeque<SealedChanges> sealed = new ArrayDeque<>();

    /**
     * One bit per segment that has ever held an entry: a full snapshot reads only those, so its cost follows the
     * entries, not the map's configured capacity (a map sized for a million entries has thousands of segments, and
     * visiting each under its lock took milliseconds for a thousand keys). Set on every insert, never cleared. Task
     * thread; copy-on-write: a snapshot takes the array itself at the barrier ({@link #occupiedSegments()}), and the
     * first insert into a segment new since then sets its bit in a copy, so an array a snapshot holds never changes.
     */
    private long[] occupiedSegments = new long[0];
    /** Whether a snapshot holds {@link #occupiedSegments}: a new bit goes into a copy. Task thread. */
    private boolean occupiedShared;
    /**
     * The stored values, counted at the three places that insert or remove one: Chronicle Map's own count
     * ({@code longSize}) visits every segment, which made each barrier's emptiness check cost O(capacity). Task
     * thread.
     */
    private long storedValues;

    /**
     * The keys changed in the interval that ended at a snapshot's barrier; {@code overflowed}: more keys changed than
     * were tracked, so {@code keys} is empty and no delta or revert can span the interval.
     */
    private record SealedChanges(long checkpointId, ChangedKeySet keys, boolean overflowed)
    {
    }

    /**
     * The default {@link #maxTrackedChangeBytes}: a sixteenth of the maximum heap, at least 256 KiB. At about 30
     * bytes a tracked 10-byte key ({@link ChangedKeySet}), a 512 MB heap tracks about a million changed keys.
     */
    static final long DEFAULT_MAX_TRACKED_CHANGE_BYTES = Math.max(256 << 10, Runtime.getRuntime().maxMemory() / 16);
    /**
     * The most heap the change sets of the sealed intervals and the current one take together: they live on the
     * heap, and state larger than the heap may change more keys in an interval than the heap holds. Past it (or past
     * {@link #maxTrackedChanges} keys) the current interval overflows: its set is dropped, and every base before its
     * end stops being one (the next checkpoint is full, as it would be anyway when a quarter of the keys changed).
     * Task thread.
     */
    private long maxTrackedChangeBytes = DEFAULT_MAX_TRACKED_CHANGE_BYTES;
    /**
     * The most heap a full snapshot being written may hold in preserved copies ({@link PendingStatePart#preserved};
     * {@link ChronicleStateConfig#preservedCopyBytesPerState()} unless a test lowers it) before a write waits for its
     * flusher: past it, the write that crossed it returns only once the flusher has read enough segments to bring the
     * copies under three quarters of it, or has finished. So copy-on-write never fills the heap, however long a flush
     * of state larger than the heap takes; the record path is slowed to the flusher's pace instead. Task thread.
     */
    private long maxPreservedBytes;
    /** How long a write that waits for a flusher parks between two looks at its progress. */
    private static final long FLUSHER_POLL_NANOS = 100_000;
    /** Closes the lookups the store's value states keep open ({@link ChronicleKeyedStateStore#holdLookups}). */
    private Runnable releaseHeldLookups = () ->
    {
    };
    /** A part that went over {@link #maxPreservedBytes} in the write under way, waited for after it. Task thread. */
    private PendingStatePart overPreservedBudget;
    /** How many writes waited for a flusher ({@link #maxPreservedBytes}). Written by the task thread. */
    private volatile long preservationWaits;
    /** The most preserved copies seen in a part its flusher was collecting, in bytes, for tests. Task thread. */
    private long peakPreservedBytes;
    /** The most changed keys tracked at once, for tests; unbounded by default. Task thread. */
    private long maxTrackedChanges = Long.MAX_VALUE;
    /** Whether the current interval overflowed. Task thread. */
    private boolean changesOverflowed;
    /** The keys the sealed intervals hold. Task thread. */
    private long sealedChangeCount;
    /** The heap bytes of the sealed intervals' sets. Task thread. */
    private long sealedChangeBytes;

    /**
     * @param name   the state's name.
     * @param creator creates its Chronicle Map at the first write; the map is owned (closed) by this object.
     * @param config  the sizing, for error messages.
     */
    StateMap(
        final String name, final java.util.function.Supplier<ChronicleMap<EncodedBytes, EncodedBytes>> creator,
        final ChronicleStateConfig config)
    {
        this.name = name;
        this.creator = creator;
        this.config = config;
        this.maxPreservedBytes = config.preservedCopyBytesPerState();
    }

    /** @return whether the map exists: else it is empty, and reads need not create it. Task thread. */
    boolean exists()
    {
        return map != null;
    }

    /** @return the map, created now if it was not. Task thread. */
    ChronicleMap<EncodedBytes, EncodedBytes> created()
    {
        final ChronicleMap<EncodedBytes, EncodedBytes> existing = map;
        return existing != null ? existing : create();
    }

    private ChronicleMap<EncodedBytes, EncodedBytes> create()
    {
        if (creator == null)
        {
            throw new IllegalStateException("state '" + name + "' is closed");
        }
        final ChronicleMap<EncodedBytes, EncodedBytes> created = creator.get();
        final VanillaChronicleHash<?, ?, ?, ?> hash = (VanillaChronicleHash<?, ?, ?, ?>)created;
        tiers = hash.globalMutableState();
        maxExtraTiers = maxExtraTiers(hash);
        occupiedSegments = new long[(created.segments() + 63) >>> 6];
        occupiedShared = false;
        creator = null;
        map = created;
        return created;
    }

    /**
     * @return the segments that have held an entry, as of now, never changed afterwards: every segment with an entry
     *     now is among them. Task thread, at the barrier; O(1) (the copy, O(segments / 64), falls to the first insert
     *     into a new segment after it, which is rare once the keys have spread).
     */
    long[] occupiedSegments()
    {
        occupiedShared = true;
        return occupiedSegments;
    }

    /** @return the state's name. */
    String name()
    {
        return name;
    }

    /**
     * @return the map, for flushers and restore checks; null when it was never created (it has no entry, and no
     *     snapshot taken before it was created reads it).
     */
    ChronicleMap<EncodedBytes, EncodedBytes> map()
    {
        return map;
    }

    /** @return what is wrong with the restored entries, or null. Task thread. */
    String restoreProblem()
    {
        return restoreProblem;
    }

    /** @param problem what is wrong with the restored entries, reported when the state is declared. Restore. */
    void restoreProblem(final String problem)
    {
        restoreProblem = problem;
    }

    /** A restored entry other than an 8-byte key and an 8-byte value went into the map. Task thread, restoring. */
    void restoredOtherThanLongPairs()
    {
        restoredOnlyLongPairs = false;
    }

    /** @return see {@link #restoredOnlyLongPairs}. Task thread. */
    boolean restoredOnlyLongPairs()
    {
        return restoredOnlyLongPairs;
    }

    /** @return the description of restored entries, or null when nothing was restored. Task thread. */
    StateMeta restoredMeta()
    {
        return restoredMeta;
    }

    /** @param meta the description of restored entries. Task thread, during restore. */
    void restoredMeta(final StateMeta meta)
    {
        restoredMeta = meta;
    }

    /**
     * @param key  the stored key.
     * @param into where to copy the value.
     * @return {@code into} holding the value, or null when the key has none.
     */
    EncodedBytes get(final EncodedBytes key, final EncodedBytes into)
    {
        final ChronicleMap<EncodedBytes, EncodedBytes> map = this.map;
        return map == null ? null : map.getUsing(key, into);
    }

    /**
     * Sets the value of {@code key}, preserving the old one for pending snapshots first.
     *
     * <p>When a map has no room left, Chronicle Map 3.25 refuses an insert cleanly, but loses entries when it fails
     * to move a grown value (it releases the old space, then fails to allocate the new one). So a value that grows is
     * refused here, before anything changes, once every extra segment tier is in use; while one is free, the move
     * cannot fail (a write allocates at most one tier, and an entry always fits in one: the store checks that at
     * construction). Inserts are left to Chronicle Map, whose refusal is translated.
     *
     * @param key   the stored key.
     * @param value the encoded value, already checked against the maximum entry size.
     * @throws IllegalStateException when the map may have to grow and cannot; nothing was changed.
     */
    void put(final EncodedBytes key, final EncodedBytes value)
    {
        putHeld(openHeld(key), key, value);
    }

    /** The write of {@link #put}, under the key's update lock; false when it would grow and cannot. */
    private boolean write(final ExternalMapQueryContext<EncodedBytes, EncodedBytes, ?> context, final EncodedBytes key,
        final EncodedBytes value)
    {
        final MapEntry<EncodedBytes, EncodedBytes> entry = context.entry();
        if (entry != null && value.length() > entry.value().size() && tiers.getExtraTiersInUse() >= maxExtraTiers)
        {
            return false;
        }
        preserve(context.segmentIndex(), key, entry);
        recordChange(key);
        final Data<EncodedBytes> data = context.wrapValueAsData(value);
        if (entry != null)
        {
            context.replaceValue(entry, data);
        }
        else
        {
            final int segment = context.segmentIndex();
            long[] occupied = occupiedSegments;
            if ((occupied[segment >>> 6] & 1L << segment) == 0)
            {
                if (occupiedShared)
                {
                    occupied = occupied.clone();
                    occupiedSegments = occupied;
                    occupiedShared = false;
                }
                occupied[segment >>> 6] |= 1L << segment;
            }
            context.insert(context.absentEntry(), data);
            storedValues++;
        }
        return true;
    }

    /**
     * Opens a query context on {@code key} holding its segment's update lock, for a read followed by a write of the
     * same key with one lookup ({@link #readHeld}, then {@link #putHeld} or {@link #removeHeld}, or a plain close).
     * The caller closes it, and must not touch this map otherwise until it has; a flusher reading the segment waits
     * for it. Task thread.
     *
     * @param key the stored key.
     * @return the open context.
     */
    ExternalMapQueryContext<EncodedBytes, EncodedBytes, ?> openHeld(final EncodedBytes key)
    {
        final ExternalMapQueryContext<EncodedBytes, EncodedBytes, ?> context = created().queryContext(key);
        try
        {
            context.updateLock().lock();
            return context;
        }
        catch (final RuntimeException ex)
        {
            context.close();
            throw ex;
        }
    }

    /**
     * @param context a context of {@link #openHeld}.
     * @param into    where to copy the value.
     * @return {@code into} holding the key's value, or null when it has none.
     */
    static EncodedBytes readHeld(final ExternalMapQueryContext<EncodedBytes, EncodedBytes, ?> context,
        final EncodedBytes into)
    {
        final MapEntry<EncodedBytes, EncodedBytes> entry = context.entry();
        return entry == null ? null : entry.value().getUsing(into);
    }

    /**
     * {@link #put} through a context of {@link #openHeld}, which it closes in every case.
     *
     * @param context the open context of {@code key}.
     * @param key     the stored key.
     * @param value   the encoded value, already checked against the maximum entry size.
     * @throws IllegalStateException when the map may have to grow and cannot; nothing was changed.
     */
    void putHeld(final ExternalMapQueryContext<EncodedBytes, EncodedBytes, ?> context, final EncodedBytes key,
        final EncodedBytes value)
    {
        final boolean written;
        try (context)
        {
            written = write(context, key, value);
        }
        catch (final ClosedIllegalStateException closed)
        {
            throw closed;
        }
        catch (final IllegalStateException | IllegalArgumentException refused)
        {
            // thrown by Chronicle Map inside the context, reported once the context is closed
            throw refused(key.length() - StoredKeyLayout.KEY_OFFSET, value.length(), refused);
        }
        if (!written)
        {
            throw full("no segment tier is left for its value to grow into", null);
        }
        awaitFlusherIfOverBudget();
    }

    /**
     * {@link #remove(EncodedBytes)} through a context of {@link #openHeld}, which it closes in every case.
     *
     * @param context the open context of {@code key}.
     * @param key     the stored key.
     * @return whether the key had a value.
     */
    boolean removeHeld(final ExternalMapQueryContext<EncodedBytes, EncodedBytes, ?> context, final EncodedBytes key)
    {
        try (context)
        {
            final MapEntry<EncodedBytes, EncodedBytes> entry = context.entry();
            if (entry == null)
            {
                return false;
            }
            preserve(context.segmentIndex(), key, entry);
            recordChange(key);
            context.remove(entry);
            storedValues--;
        }
        awaitFlusherIfOverBudget();
        return true;
    }

    /**
     * Removes the value of {@code key}, if it has one, preserving it for pending snapshots first.
     *
     * @param key the stored key.
     * @return whether the key had a value.
     */
    boolean remove(final EncodedBytes key)
    {
        return removeEntry(key, null);
    }

    /**
     * Removes the value of {@code key}, if it has one, preserving it for pending snapshots first.
     *
     * @param key     the stored key.
     * @param removed where to copy the value removed; may be null.
     * @return {@code removed} holding the value removed, or null when the key had none (or {@code removed} is null).
     */
    EncodedBytes remove(final EncodedBytes key, final EncodedBytes removed)
    {
        return removeEntry(key, removed) ? removed : null;
    }

    /** @return whether the key had a value, then copied into {@code removed} unless that is null. */
    private boolean removeEntry(final EncodedBytes key, final EncodedBytes removed)
    {
        final ChronicleMap<EncodedBytes, EncodedBytes> map = this.map;
        if (map == null)
        {
            return false;
        }
        try (ExternalMapQueryContext<EncodedBytes, EncodedBytes, ?> context = map.queryContext(key))
        {
            context.updateLock().lock();
            final MapEntry<EncodedBytes, EncodedBytes> entry = context.entry();
            if (entry == null)
            {
                return false;
            }
            if (removed != null)
            {
                entry.value().getUsing(removed);
            }
            preserve(context.segmentIndex(), key, entry);
            recordChange(key);
            context.remove(entry);
            storedValues--;
        }
        awaitFlusherIfOverBudget();
        return true;
    }

    /**
     * @param key the stored key.
     * @return whether the key has a value. Task thread.
     */
    boolean contains(final EncodedBytes key)
    {
        final ChronicleMap<EncodedBytes, EncodedBytes> map = this.map;
        return map != null && map.containsKey(key);
    }

    /**
     * Starts recording the keys that change, for incremental snapshots. Task thread.
     */
    void trackChanges()
    {
        if (changes == null)
        {
            changes = new ChangedKeySet();
        }
    }

    /**
     * Stops recording changes until {@link #trackChanges} (local recovery's rewrite, whose writes are no changes),
     * dropping the current interval's. Task thread.
     *
     * @return whether changes were tracked.
     */
    boolean pauseChanges()
    {
        final boolean tracked = changes != null;
        changes = null;
        changesOverflowed = false;
        return tracked;
    }

    /** @return whether changes are tracked, for incremental snapshots. Task thread. */
    boolean tracksChanges()
    {
        return changes != null;
    }

    /**
     * Ends the current interval of changes at a snapshot's barrier; nothing when changes are not tracked. Task
     * thread.
     *
     * @param checkpointId the snapshot's checkpoint, above every earlier one.
     */
    void sealChanges(final long checkpointId)
    {
        if (changes != null)
        {
            sealed.addLast(new SealedChanges(checkpointId, changes, changesOverflowed));
            sealedChangeCount += changes.size();
            sealedChangeBytes += changes.memoryBytes();
            changes = new ChangedKeySet();
            changesOverflowed = false;
        }
    }

    /**
     * @param baseCheckpointId a snapshot taken earlier.
     * @return the keys changed since its barrier, up to the last sealed interval: one immutable set per interval.
     *     Task thread.
     */
    List<ChangedKeySet> changesSince(final long baseCheckpointId)
    {
        final List<ChangedKeySet> since = new ArrayList<>(sealed.size());
        addSealedSince(baseCheckpointId, since);
        return since;
    }

    /** Adds the sealed intervals after {@code baseCheckpointId}'s barrier to {@code into}, oldest first. */
    private void addSealedSince(final long baseCheckpointId, final List<? super ChangedKeySet> into)
    {
        for (final SealedChanges interval : sealed)
        {
            if (interval.checkpointId() > baseCheckpointId)
            {
                into.add(interval.keys());
            }
        }
    }

    /**
     * @param baseCheckpointId a snapshot taken earlier, a possible base.
     * @return the change sets that together hold every key changed since its barrier, the current interval's
     *     included (a key may be in several); the current one must not be recorded into while they are read. Task
     *     thread.
     */
    List<ChangedKeySet> allChangeSetsSince(final long baseCheckpointId)
    {
        final List<ChangedKeySet> all = new ArrayList<>(sealed.size() + 1);
        if (changes != null)
        {
            all.add(changes);
        }
        addSealedSince(baseCheckpointId, all);
        return all;
    }

    /**
     * @param baseCheckpointId a snapshot taken earlier.
     * @return an upper bound of the keys changed since its barrier, including the current interval (a key changed in
     *     several intervals counts once per interval). Task thread.
     */
    long changedKeysSince(final long baseCheckpointId)
    {
        long changed = changes == null ? 0 : changes.size();
        for (final SealedChanges interval : sealed)
        {
            if (interval.checkpointId() > baseCheckpointId)
            {
                changed += interval.keys().size();
            }
        }
        return changed;
    }

    /**
     * Forgets the intervals that end at or before a snapshot no later delta will be based on. Task thread.
     *
     * @param checkpointId the oldest base still possible.
     */
    void forgetChangesUpTo(final long checkpointId)
    {
        while (!sealed.isEmpty() && sealed.peekFirst().checkpointId() <= checkpointId)
        {
            final ChangedKeySet forgotten = sealed.removeFirst().keys();
            sealedChangeCount -= forgotten.size();
            sealedChangeBytes -= forgotten.memoryBytes();
        }
    }

    /** Forgets every change, recorded or sealed: after a restore, which no delta can be based on. Task thread. */
    void clearChanges()
    {
        sealed.clear();
        sealedChangeCount = 0;
        sealedChangeBytes = 0;
        changesOverflowed = false;
        if (changes != null)
        {
            changes = new ChangedKeySet();
        }
    }

    /**
     * Records a key about to change, once per interval; nothing when changes are not tracked. Called by every write
     * of the map, and by a value state's hot-key front for a change the map does not see (a key removed from the
     * front that has no value in the map), so the next delta carries it. Task thread.
     *
     * @param key the stored key.
     */
    void recordChange(final EncodedBytes key)
    {
        final ChangedKeySet current = changes;
        if (current != null && !changesOverflowed && !current.contains(changeProbe.wrap(key)))
        {
            if (sealedChangeCount + current.size() >= maxTrackedChanges ||
                sealedChangeBytes + current.memoryBytes() >= maxTrackedChangeBytes ||
                !current.recordAbsent(changeProbe.bytes(), changeProbe.length(), changeProbe.hashCode()))
            {
                changesOverflowed = true;
                changes = new ChangedKeySet();
            }
        }
    }

    /**
     * @param baseCheckpointId a snapshot taken earlier.
     * @return whether an interval since its barrier, the current one included, changed more keys than were tracked:
     *     no delta or revert can span it. Task thread.
     */
    boolean changesOverflowedSince(final long baseCheckpointId)
    {
        if (changesOverflowed)
        {
            return true;
        }
        for (final SealedChanges interval : sealed)
        {
            if (interval.checkpointId() > baseCheckpointId && interval.overflowed())
            {
                return true;
            }
        }
        return false;
    }

    /** @param keys the most changed keys tracked at once, see {@link #maxTrackedChanges}; at least 1. Task thread. */
    void limitTrackedChanges(final long keys)
    {
        maxTrackedChanges = keys;
    }

    /** @return the number of stored values: keys, for every kind. Task thread; O(1). */
    long size()
    {
        return storedValues;
    }

    /**
     * Says that stored values are {@link MapBlobLayout map values}: {@link #entryCount()} then counts user keys, as
     * kept up to date with {@link #userKeysAdded}. Task thread, before any value is stored.
     */
    void markMapValues()
    {
        holdsMapValues = true;
    }

    /** @return whether stored values are map values. */
    boolean holdsMapValues()
    {
        return holdsMapValues;
    }

    /** @param delta user keys added (negative: removed) by a change of one stored map value. Task thread. */
    void userKeysAdded(final long delta)
    {
        userKeys += delta;
    }

    /** @return the entries a snapshot would hold: user keys for a map state, else stored values. Task thread. */
    long entryCount()
    {
        return holdsMapValues ? userKeys : storedValues + (restoredLongs == null ? 0 : restoredLongs.size());
    }

    /**
     * Whether {@link #keepRestoredLong} holds or could keep {@code key}, asked before the costlier checks of a
     * restored counter (a lookup in the map): {@link #FULL} once the kept counters reached {@code maxKeys} without
     * it, which at millions of keys is most of a restore. Task thread.
     *
     * @param key     a restored counter's key.
     * @param maxKeys as for {@link #keepRestoredLong}.
     * @return {@link #KEEPS} when it holds the key, {@link #HAS_ROOM} when it does not but could, {@link #FULL} when it
     *     does not and could not.
     */
    int restoredLongRoom(final long key, final int maxKeys)
    {
        if (restoredLongs == null)
        {
            return maxKeys > 0 ? HAS_ROOM : FULL;
        }
        if (restoredLongs.get(key) != CopyOnWriteLongTable.MISSING)
        {
            return KEEPS;
        }
        return restoredLongRoomForNewKey(maxKeys);
    }

    /**
     * {@link #restoredLongRoom} for a key the restore has not seen before (so not kept): no lookup. Task thread, during a
     * restore.
     *
     * @param maxKeys as for {@link #keepRestoredLong}.
     * @return {@link #HAS_ROOM} or {@link #FULL}.
     */
    int restoredLongRoomForNewKey(final int maxKeys)
    {
        if (restoredLongs == null)
        {
            return maxKeys > 0 ? HAS_ROOM : FULL;
        }
        return restoredLongs.size() < restoredLongs.maxKeys() ? HAS_ROOM : FULL;
    }

    /** {@link #restoredLongRoom}: the key is kept out of the map. */
    static final int KEEPS = 0;
    /** {@link #restoredLongRoom}: the key is not kept, and there is room for it. */
    static final int HAS_ROOM = 1;
    /** {@link #restoredLongRoom}: the key is not kept, and there is no room for it. */
    static final int FULL = 2;

    /**
     * Keeps a restored entry of {@code Long} key and value out of the map. Task thread, during a restore.
     *
     * @param key     the key.
     * @param value   its value, not {@link CopyOnWriteLongTable#MISSING}.
     * @param maxKeys the most entries kept out of the map, at least 1.
     * @return whether it was kept; if not (the table is full), the caller writes it to the map.
     */
    boolean keepRestoredLong(final long key, final long value, final int maxKeys)
    {
        if (restoredLongs == null)
        {
            restoredLongs = new CopyOnWriteLongTable(maxKeys);
        }
        if (restoredLongs.size() == restoredLongs.maxKeys() && restoredLongs.get(key) == CopyOnWriteLongTable.MISSING)
        {
            return false;
        }
        restoredLongs.put(key, value, CopyOnWriteLongTable.MISSING);
        return true;
    }

    /** @return the restored entries kept out of the map, now no longer this map's to count; null when none. */
    CopyOnWriteLongTable takeRestoredLongs()
    {
        final CopyOnWriteLongTable taken = restoredLongs;
        restoredLongs = null;
        return taken;
    }

    /**
     * A restored entry of this key goes to the map: any kept one of it is dropped, so that a key is kept or in the
     * map, never both. Task thread, during a restore.
     *
     * @param key the key.
     */
    void forgetRestoredLong(final long key)
    {
        if (restoredLongs != null)
        {
            restoredLongs.remove(key);
        }
    }

    /**
     * {@link #put} without recording the key as changed for deltas: for restored entries written after the restore,
     * which no delta's base can predate. Task thread.
     *
     * @param key   the stored key.
     * @param value the stored value.
     */
    void putRestored(final EncodedBytes key, final EncodedBytes value)
    {
        final ChangedKeySet recording = changes;
        changes = null;
        try
        {
            put(key, value);
        }
        finally
        {
            changes = recording;
        }
    }

    /** @return the restored entries kept out of the map, still counted here; null when none. */
    CopyOnWriteLongTable restoredLongs()
    {
        return restoredLongs;
    }

    /** @return whether restored entries are kept out of the map ({@link #keepRestoredLong}). */
    boolean hasRestoredLongs()
    {
        return restoredLongs != null;
    }

    /** @return whether a snapshot that includes this state is still pending (neither flushed nor released). */
    boolean hasPending()
    {
        return pending.length > 0;
    }

    /** @param snapshot a snapshot that includes this state, taken on the task thread. */
    synchronized void addPending(final PendingStatePart snapshot)
    {
        final PendingStatePart[] current = pending;
        if (current.length == 0)
        {
            // the usual case, one snapshot pending at a time: no array copy at the barrier
            pending = new PendingStatePart[] {snapshot};
            return;
        }
        final PendingStatePart[] grown = Arrays.copyOf(current, current.length + 1);
        grown[current.length] = snapshot;
        pending = grown;
    }

    /** @param snapshot a snapshot that no longer needs old values preserved: flushed or released. Any thread. */
    synchronized void removePending(final PendingStatePart snapshot)
    {
        final PendingStatePart[] current = pending;
        for (int i = 0; i < current.length; i++)
        {
            if (current[i] == snapshot)
            {
                final PendingStatePart[] shrunk = new PendingStatePart[current.length - 1];
                System.arraycopy(current, 0, shrunk, 0, i);
                System.arraycopy(current, i + 1, shrunk, i, current.length - i - 1);
                pending = current.length == 1 ? NONE : shrunk;
                return;
            }
        }
    }

    /**
     * Task thread: a cleared filter of preserved keys ({@link PendingStateSnapshot}) of exactly {@code words} words,
     * the one kept from an earlier snapshot when it has that size, else a new one.
     */
    long[] takeFilter(final int words)
    {
        final long[] spare = spareFilter.getAndSet(null);
        return spare != null && spare.length == words ? spare : new long[words];
    }

    /**
     * Any thread, once nothing will read or mark {@code filter} again but, at worst, a task still marking a key of the
     * snapshot it was taken for: a stray bit that survives the clearing only makes the next snapshot probe its copies
     * for a key it need not, never miss one. Clears it and keeps it for the next snapshot.
     */
    void giveFilter(final long[] filter)
    {
        Arrays.fill(filter, 0L);
        spareFilter.set(filter);
    }

    /** Closes the map; pending snapshots of it can no longer be written. */
    void close()
    {
        for (final PendingStatePart snapshot : pending)
        {
            snapshot.release();
        }
        pending = NONE;
        if (map != null)
        {
            map.close();
        }
        creator = null;
    }

    /**
     * Called with the key's segment update lock held, before the entry changes: gives every pending snapshot that
     * may not have read this segment yet, and has not preserved this key yet, the value the key has now (or
     * {@link PendingStatePart#ABSENT}). The copies are made once, and only when some snapshot needs them.
     */
    private void preserve(final int segment, final EncodedBytes key, final MapEntry<EncodedBytes, EncodedBytes> entry)
    {
        final PendingStatePart[] snapshots = pending;
        if (snapshots.length == 0)
        {
            return;
        }
        final PreservedKey lookup = probe.wrap(key);
        PreservedKey keyCopy = null;
        byte[] oldValue = null;
        for (final PendingStatePart snapshot : snapshots)
        {
            if (snapshot.needsPreserving(segment, lookup))
            {
                if (keyCopy == null)
                {
                    keyCopy = PreservedKey.copyOf(key);
                    oldValue = entry == null ? PendingStatePart.ABSENT :
                        entry.value().getUsing(previous).toByteArray();
                }
                snapshot.preserve(segment, keyCopy, oldValue);
                if (snapshot.isCollecting())
                {
                    peakPreservedBytes = Math.max(peakPreservedBytes, snapshot.preservedBytes.get());
                }
                if (snapshot.preservesMoreThan(maxPreservedBytes))
                {
                    overPreservedBudget = snapshot;
                }
            }
        }
    }

    /**
     * Called after a write, with its segment lock released: waits, if the write took a snapshot being written over
     * {@link #maxPreservedBytes}, until its flusher has brought it under three quarters of that or finished. The
     * flusher needs nothing from this thread but segment locks, and this thread holds none of this map's: it has
     * closed its query context, a lookup a value state keeps open is closed before any write to its map, and those of
     * other states are closed before the wait. An interrupt (the task is stopping) ends the wait at once. Task thread.
     */
    private void awaitFlusherIfOverBudget()
    {
        final PendingStatePart part = overPreservedBudget;
        if (part == null)
        {
            return;
        }
        overPreservedBudget = null;
        preservationWaits++;
        if (part.firstWait())
        {
            LOG.log(System.Logger.Level.INFO, () -> "state '" + name + "': a full snapshot being written holds " +
                part.preservedBytes.get() + " bytes of copies of old values, more than preservedCopyBytesPerState (" +
                maxPreservedBytes + "), so writes wait for its flusher as it reads further (one message a snapshot)");
        }
        // resuming a little under the budget lets records through as the flusher frees copies, not in bursts
        // a held lookup keeps a segment of another map locked: no flusher may be left waiting for it (the promise of
        // ChronicleKeyedStateStore#holdLookups), whichever part it reads next
        releaseHeldLookups.run();
        final long resumeBelow = maxPreservedBytes - maxPreservedBytes / 4;
        while (part.preservesMoreThan(resumeBelow) && !Thread.currentThread().isInterrupted())
        {
            LockSupport.parkNanos(FLUSHER_POLL_NANOS);
        }
    }

    /** @param release closes the lookups the store's value states keep open; run before a write waits. Task thread. */
    void releaseHeldLookupsWith(final Runnable release)
    {
        releaseHeldLookups = release;
    }

    /**
     * For tests: the most heap a full snapshot being written may hold in preserved copies before a write waits (by
     * default {@link ChronicleStateConfig#preservedCopyBytesPerState()}). Task thread.
     *
     * @param bytes at least 1.
     */
    void limitPreservedBytes(final long bytes)
    {
        maxPreservedBytes = bytes;
    }

    /** @return how many writes waited for a flusher to bring its preserved copies under budget. Any thread. */
    long preservationWaits()
    {
        return preservationWaits;
    }

    /** @return the most preserved copies, estimated bytes, a part held while its flusher collected it. Task thread. */
    long peakPreservedBytes()
    {
        return peakPreservedBytes;
    }

    private IllegalStateException full(final String why, final RuntimeException cause)
    {
        return new IllegalStateException("state '" + name + "' is full: its Chronicle Map holds " + map.longSize() +
            " entries and " + why + " (expectedEntriesPerState " + config.expectedEntriesPerState() +
            ", maxGrowthFactor " + config.maxGrowthFactor() + ", averageKeySize " + config.averageKeySize() +
            ", averageValueSize " + config.averageValueSize() + "); the write was refused and nothing was changed. " +
            "Raise expectedEntriesPerState or maxGrowthFactor", cause);
    }

    /**
     * Chronicle Map refused an insert: no room is left (refused before anything changes), or, not expected since the
     * store checks entry sizes first, the entry is too large.
     */
    private RuntimeException refused(final int keyLength, final int valueLength, final RuntimeException cause)
    {
        if (cause instanceof IllegalStateException && String.valueOf(cause.getMessage()).contains("segment tier"))
        {
            return full("cannot take another", cause);
        }
        final String message = "state '" + name + "': Chronicle Map refused an entry of " + keyLength + " + " +
            valueLength + " bytes (key + value; maxEntrySize " + config.maxEntrySize() + ", expectedEntriesPerState " +
            config.expectedEntriesPerState() + ", maxGrowthFactor " + config.maxGrowthFactor() + "): " +
            cause.getMessage();
        return cause instanceof IllegalArgumentException ? new IllegalArgumentException(message, cause) :
            new IllegalStateException(message, cause);
    }

    /** The map's limit of extra tiers, which Chronicle Map 3.25 keeps in a package-private field. */
    private static long maxExtraTiers(final VanillaChronicleHash<?, ?, ?, ?> hash)
    {
        try
        {
            final Field field = VanillaChronicleHash.class.getDeclaredField("maxExtraTiers");
            field.setAccessible(true);
            return field.getLong(hash);
        }
        catch (final ReflectiveOperationException | RuntimeException ex)
        {
            throw new IllegalStateException("cannot read Chronicle Map's maxExtraTiers, which the state backend " +
                "needs to refuse writes before a full map loses entries: is the Chronicle Map version the one " +
                "pinned (3.25)?", ex);
        }
    }
}
