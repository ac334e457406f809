package io.ringflow.state.chronicle;

import io.ringflow.state.keyed.StateKind;
import io.ringflow.state.snapshot.StateMeta;
import io.ringflow.state.snapshot.TtlValues;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.MapEntry;
import net.openhft.chronicle.map.MapSegmentContext;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One state's part of one pending snapshot, full ({@link PendingStateSnapshot}) or delta ({@link PendingStateDelta}):
 * the values the task thread preserved before changing them, and how they and the live values are emitted.
 *
 * <p>Both kinds share the task thread's side of copy-on-write ({@link StateMap#put}, {@link StateMap#remove}):
 * holding a key's segment update lock, before changing the entry, for each pending part that
 * {@link #needsPreserving} the key, {@link #preserve} its current value (or {@link #ABSENT}). They differ in which
 * keys need it and in how the flusher reads the live map.
 *
 * <p>A value state's hot-key front adds an overlay ({@link FrontOverlay}), frozen at the barrier: its keys' values
 * are newer than the map's, so both kinds emit the overlay's entries and skip the map's (live or preserved) for those
 * keys.
 *
 * <p>Emitting a stored value splits a map state's value into one entry per user key ({@link MapBlobLayout}) and
 * leaves out what had expired at the barrier, by the state's clock read at the barrier: the decision depends only on
 * the value as of the barrier, so it is the same whether the value is read live or preserved.
 *
 * <p>Thread contract: {@link #needsPreserving} and {@link #preserve} on the task thread, {@link #collect} on one
 * flusher, {@link #release} on any thread.
 */
abstract class PendingStatePart
{
    /** Preserved for a key that had no value at the barrier. Compared by identity. */
    static final byte[] ABSENT = new byte[0];

    /**
     * Heap a preserved entry takes beyond its key and value bytes, estimated: the {@code ConcurrentHashMap} node and
     * its table slot, the {@link PreservedKey} and the headers of the two arrays.
     */
    static final int PRESERVED_ENTRY_OVERHEAD = 112;

    /** Told by the flusher when it has read a segment and released its lock; lets tests interleave writes. */
    @FunctionalInterface
    interface SegmentObserver
    {
        /** Does nothing. */
        SegmentObserver NONE = (stateIndex, segment) ->
        {
        };

        /**
         * @param stateIndex the state's index in the snapshot.
         * @param segment    the segment just read (for a delta: the segment of the key just read).
         */
        void segmentRead(int stateIndex, int segment);
    }

    final StateMap state;
    final StateMeta meta;
    /** Whether stored values are {@link MapBlobLayout map values}, split into one entry per user key. */
    final boolean mapValues;
    /** The state's time-to-live, or 0 when its entries never expire (or it is not declared). */
    private final long ttlMillis;
    /** The state's clock at the barrier: entries expired then are left out. */
    private final long barrierTime;
    /** Values as of the barrier, by key, preserved by the task thread before it changed them. */
    final ConcurrentHashMap<PreservedKey, byte[]> preserved = new ConcurrentHashMap<>();
    /**
     * The heap {@link #preserved} holds, estimated ({@link #preservedSize}): added by the task thread as it preserves,
     * taken off by the flusher as it drops entries. Approximate at the end (a copy the task adds as the flusher
     * finishes is counted and never taken off), exact enough for a budget.
     */
    final AtomicLong preservedBytes = new AtomicLong();
    /**
     * Set when the flusher starts collecting this part ({@link #startCollecting}): from then on nothing but this
     * state's segment locks stands between the flusher and the end of this part, so the task thread may wait for it
     * ({@link StateMap}'s budget of preserved copies) without a deadlock. Before, it may not: an unaligned snapshot is
     * handed to the flusher only once the task has read its other channels' barriers, and while the flusher collects
     * another state's part it may be waiting for a lookup the task holds open in that state's map.
     */
    private volatile boolean collecting;
    /** Whether a write has waited for this part's flusher yet. Task thread. */
    private boolean waited;
    /**
     * The state's hot-key front as of the barrier, or null: for its keys, its values are the barrier values and win
     * over the map's, live or preserved.
     */
    private final FrontOverlay overlay;
    /**
     * The state's Chronicle Map as it was at the barrier, or null when it had not been created (the state then had no
     * map entry at the barrier). Read on the task thread, handed to the flusher with the snapshot.
     */
    final net.openhft.chronicle.map.ChronicleMap<EncodedBytes, EncodedBytes> mapAtBarrier;
    /** About how many entries this part will emit, counted at the barrier: only sizes buffers. */
    private final long expectedEntries;

    /**
     * @param state       the state.
     * @param meta        its description as of the barrier.
     * @param ttlMillis   its time-to-live, or 0 to keep every entry.
     * @param barrierTime its clock at the barrier; meaningless without a time-to-live.
     * @param overlay     the state's hot-key front as of the barrier, or null when it has none or it was empty.
     * @param mapEntries  about how many of the map's entries this part will emit, counted at the barrier: only
     *                    sizes buffers.
     */
    PendingStatePart(
        final StateMap state, final StateMeta meta, final long ttlMillis, final long barrierTime,
        final FrontOverlay overlay, final long mapEntries)
    {
        this.state = state;
        this.meta = meta;
        this.mapValues = meta.kind() == StateKind.MAP;
        this.ttlMillis = ttlMillis;
        this.barrierTime = barrierTime;
        this.overlay = overlay;
        this.mapAtBarrier = state.map();
        this.expectedEntries = (overlay == null ? 0 : overlay.size()) + mapEntries;
    }

    /** @return about how many entries this part will emit (a hint, counted at the barrier). */
    final long expectedEntries()
    {
        return expectedEntries;
    }

    /** @return the state. */
    final StateMap state()
    {
        return state;
    }

    /** @return the state's description as of the barrier. */
    final StateMeta meta()
    {
        return meta;
    }

    /**
     * Task thread, holding {@code segment}'s update lock, before the key changes.
     *
     * @param segment the segment of the key about to change.
     * @param key     a probe for the key.
     * @return whether this part still needs the key's current value, which is its value at the barrier.
     */
    abstract boolean needsPreserving(int segment, PreservedKey key);

    /**
     * Task thread.
     *
     * @param key a probe for the key about to change.
     * @return whether its value as of the barrier is already preserved.
     */
    final boolean hasPreserved(final PreservedKey key)
    {
        return preserved.containsKey(key);
    }

    /**
     * Task thread, holding the key's segment update lock, before the entry changes.
     *
     * @param segment the key's segment.
     * @param key     an immutable copy of the stored key.
     * @param value   its value now, which is its value at the barrier, or {@link #ABSENT}; never modified after.
     */
    final void preserve(final int segment, final PreservedKey key, final byte[] value)
    {
        preserving(key);
        if (preservedFor(segment).putIfAbsent(key, value) == null)
        {
            final long size = preservedSize(key.length(), value);
            preservedBytes.addAndGet(size);
            preservedIn(segment, size);
        }
    }

    /**
     * Task thread, in {@link #preserve} once a copy is stored: a hook for a part that counts some segments' copies
     * apart. Does nothing here.
     *
     * @param segment the key's segment.
     * @param bytes   the copy's estimated heap.
     */
    void preservedIn(final int segment, final long bytes)
    {
    }

    /**
     * Task thread, holding {@code segment}'s update lock: where the values preserved for the keys of a segment go;
     * {@link #preserved} unless a part keeps some segments apart.
     *
     * @param segment a segment of the state's map.
     * @return the map of preserved values for its keys.
     */
    ConcurrentHashMap<PreservedKey, byte[]> preservedFor(final int segment)
    {
        return preserved;
    }

    /**
     * Task thread, holding the key's segment update lock, in {@link #preserve} before the copy is stored: a hook for a
     * part that keeps an index of what it preserved. Does nothing here.
     *
     * @param key the key about to be preserved.
     */
    void preserving(final PreservedKey key)
    {
    }

    /**
     * @param keyLength the stored key's length.
     * @param value     the preserved value, or {@link #ABSENT}.
     * @return the heap a preserved entry takes, estimated.
     */
    static long preservedSize(final int keyLength, final byte[] value)
    {
        return keyLength + value.length + PRESERVED_ENTRY_OVERHEAD;
    }

    /** @return true the first time only: a write waits for this part's flusher. Task thread. */
    final boolean firstWait()
    {
        final boolean first = !waited;
        waited = true;
        return first;
    }

    /** The flusher starts collecting this part; see {@link #collecting}. The flusher, before {@link #collect}. */
    final void startCollecting()
    {
        collecting = true;
    }

    /** @return whether the flusher is collecting (or has collected) this part; see {@link #collecting}. Any thread. */
    final boolean isCollecting()
    {
        return collecting;
    }

    /**
     * Task thread, with no segment lock held: whether it should wait before changing more keys, because the flusher
     * is collecting this part and it holds more preserved copies than {@code bytes}. False when it will hold no more
     * than its own bound anyway: a delta preserves only keys in its change sets, which their own budget bounds.
     *
     * @param bytes a budget of preserved copies.
     * @return whether the task should wait for this part's flusher.
     */
    boolean preservesMoreThan(final long bytes)
    {
        return false;
    }

    /**
     * Flusher: adds this state's entries as of the barrier to {@code into}, then stops the task thread preserving
     * values for it.
     *
     * @param stateIndex the state's index in the snapshot.
     * @param into       where the entries go.
     * @param observer   told after each segment (or key) read.
     */
    abstract void collect(int stateIndex, KeyGroupBuckets into, SegmentObserver observer);

    /**
     * Flusher, once, at the start of {@link #collect}.
     *
     * @return the hot-key front as of the barrier, encoded as the map would hold it (stored key to stored value);
     *     empty when there is none.
     */
    final Map<PreservedKey, byte[]> encodedOverlay()
    {
        return overlay == null ? Map.of() : overlay.encode();
    }

    /**
     * Flusher: emits the overlay's entries straight into {@code into}, when that may stand in for
     * {@link #encodedOverlay()} (see {@link FrontOverlay#keysEncodeDistinctly()}).
     *
     * @param stateIndex the state's index in the snapshot.
     * @param into       where the entries go.
     * @return false, having emitted nothing, when there is an overlay that needs the encoded map.
     */
    final boolean emitOverlayDirectly(final int stateIndex, final KeyGroupBuckets into)
    {
        if (overlay == null)
        {
            return true;
        }
        if (emitOverlayAsRun(stateIndex, into))
        {
            return true;
        }
        if (!overlay.keysEncodeDistinctly())
        {
            return false;
        }
        overlay.forEachEncoded((keyGroup, key, keyLength, value, valueLength) ->
            emit(into, stateIndex, keyGroup, key, keyLength, value, valueLength));
        return true;
    }

    /**
     * Flusher: emits the overlay's entries as one run sorted by key group ({@link KeyGroupBuckets#addLongRun}), when
     * it is a front of {@code Long} counters of the built-in codec. The caller makes sure that this part emits no
     * tombstone for a key of the run (the run is written before the key group's other entries).
     *
     * @param stateIndex the state's index in the snapshot.
     * @param into       where the entries go.
     * @return whether the overlay was emitted (true when there is none); false, having emitted nothing, otherwise.
     */
    final boolean emitOverlayAsRun(final int stateIndex, final KeyGroupBuckets into)
    {
        if (overlay == null)
        {
            return true;
        }
        final KeyGroupBuckets.LongRun run = overlayLongRun(stateIndex, into);
        if (run == null)
        {
            return false;
        }
        into.addLongRun(run);
        return true;
    }

    /**
     * Flusher, at most once, in place of {@link #encodedOverlay()}: the overlay's entries as one run sorted by key
     * group, when it is a front of {@code Long} counters of the built-in codec ({@link FrontOverlay#sortedLongRun}),
     * not yet added to {@code into}.
     *
     * @param stateIndex the state's index in the snapshot.
     * @param into       where the entries go (for its key groups).
     * @return the run, or null when there is no overlay or it is not such a front (nothing read then).
     */
    final KeyGroupBuckets.LongRun overlayLongRun(final int stateIndex, final KeyGroupBuckets into)
    {
        return overlay == null ? null : overlay.sortedLongRun(stateIndex, into.range());
    }

    /**
     * Flusher, after {@link #overlayLongRun} for a delta that rewrites a slice: every key of the overlay.
     *
     * @return the keys, owned by the caller (who releases them), or null when there is no such overlay.
     */
    final LongKeyFilter overlayAllKeys()
    {
        return overlay == null ? null : overlay.takeAllKeys();
    }

    /**
     * @param front     the encoded overlay, when {@code frontKeys} is null.
     * @param frontKeys the keys of an overlay of {@code Long} counters, or null.
     * @param key       a stored key, from index 0.
     * @param length    its length.
     * @param probe     a probe holding the same key, for {@code front}.
     * @return whether the overlay holds the key: its value there is newer than the map's, live or preserved.
     */
    static boolean inFront(final Map<PreservedKey, byte[]> front, final LongKeyFilter frontKeys,
        final byte[] key, final int length, final PreservedKey probe)
    {
        return frontKeys != null ? frontKeys.containsStored(key, length) : front.containsKey(probe);
    }

    /**
     * Flusher thread, under {@code segment}'s update lock, at the first entry a {@link SegmentScan} reads there: from
     * now on a task write to the segment sees it read, and preserves nothing of it for this snapshot.
     */
    abstract void segmentEntered(int segment);

    /**
     * Flusher thread, under the key's segment lock, for a {@link SegmentScan}.
     *
     * @param key       a live entry's key.
     * @param keyLength its length.
     * @return the value preserved for the key as of the barrier ({@link #ABSENT}: inserted since), removed and no
     *     longer counted; null when none was preserved (its live value is its barrier value).
     */
    abstract byte[] takePreserved(PreservedKey key, int keyLength);

    /**
     * Reads segments' entries as a full snapshot reads them, each segment under its update lock (held by Chronicle
     * Map for the whole visit): at a segment's first entry it is marked read ({@link #segmentEntered}); each live
     * entry is emitted with the value preserved for it at the barrier ({@link #takePreserved}), else its live value;
     * an entry inserted since the barrier or held by the front is left out (a front value is newer than the map's,
     * live or preserved, and is emitted with the front). Flusher thread.
     */
    final class SegmentScan implements Consumer<MapEntry<EncodedBytes, EncodedBytes>>
    {
        private final int stateIndex;
        private final KeyGroupBuckets into;
        private final Map<PreservedKey, byte[]> front;
        private final LongKeyFilter frontKeys;
        private final EncodedBytes key = new EncodedBytes(64);
        private final EncodedBytes value = new EncodedBytes(256);
        private final PreservedKey probe = new PreservedKey();
        private int segment;
        private boolean firstEntry;

        /**
         * @param front     the encoded overlay, when {@code frontKeys} is null.
         * @param frontKeys the keys of an overlay of {@code Long} counters, or null.
         */
        SegmentScan(final int stateIndex, final KeyGroupBuckets into, final Map<PreservedKey, byte[]> front,
            final LongKeyFilter frontKeys)
        {
            this.stateIndex = stateIndex;
            this.into = into;
            this.front = front;
            this.frontKeys = frontKeys;
        }

        /** Reads every entry of {@code segment} of {@code map}. */
        void read(final ChronicleMap<EncodedBytes, EncodedBytes> map, final int segment)
        {
            this.segment = segment;
            firstEntry = true;
            try (MapSegmentContext<EncodedBytes, EncodedBytes, ?> context = map.segmentContext(segment))
            {
                context.forEachSegmentEntry(this);
            }
        }

        @Override
        public void accept(final MapEntry<EncodedBytes, EncodedBytes> entry)
        {
            if (firstEntry)
            {
                firstEntry = false;
                segmentEntered(segment);
            }
            entry.key().getUsing(key);
            final byte[] atBarrier = takePreserved(probe.wrap(key), key.length());
            if (atBarrier == ABSENT || inFront(front, frontKeys, key.array(), key.length(), probe))
            {
                return;
            }
            final int keyGroup = StoredKeyLayout.keyGroup(key.array());
            if (atBarrier == null)
            {
                entry.value().getUsing(value);
                emit(into, stateIndex, keyGroup, key.array(), key.length(), value.array(), value.length());
            }
            else
            {
                emit(into, stateIndex, keyGroup, key.array(), key.length(), atBarrier, atBarrier.length);
            }
        }
    }

    /** Stops preservation and drops what was preserved. Idempotent; any thread. */
    abstract void release();

    /** Ends the overlay's claim on the hot-key front's table, for {@link #release}. Idempotent; any thread. */
    final void releaseOverlay()
    {
        if (overlay != null)
        {
            overlay.release();
        }
    }

    /**
     * Adds one stored entry as of the barrier: a map value split into one entry per user key, and entries that had
     * expired at the barrier left out.
     */
    final void emit(
        final KeyGroupBuckets into, final int stateIndex, final int keyGroup, final byte[] key, final int keyLength,
        final byte[] value, final int valueLength)
    {
        if (!mapValues)
        {
            if (!expired(value, 0))
            {
                into.add(keyGroup, stateIndex, key, keyLength, null, 0, 0, value, 0, valueLength);
            }
            return;
        }
        final String problem = MapBlobLayout.problem(value, valueLength);
        if (problem != null)
        {
            throw new IllegalStateException("state '" + meta.name() + "' holds a damaged map value: " + problem);
        }
        final int count = MapBlobLayout.count(value);
        int entry = MapBlobLayout.COUNT_LENGTH;
        for (int i = 0; i < count; i++)
        {
            final int entryValue = MapBlobLayout.valueOffset(value, entry);
            if (!expired(value, entryValue))
            {
                into.add(keyGroup, stateIndex, key, keyLength, value, MapBlobLayout.userKeyOffset(entry),
                    MapBlobLayout.userKeyLength(value, entry), value, entryValue,
                    MapBlobLayout.valueLength(value, entry));
            }
            entry = MapBlobLayout.next(value, entry);
        }
    }

    /**
     * @return whether a value (of a value-like state) had expired at the barrier; for a map value, use the offset of
     *     one of its entries' values.
     */
    final boolean expired(final byte[] value, final int offset)
    {
        return ttlMillis > 0 && TtlValues.isExpired(TtlValues.timestamp(value, offset), ttlMillis, barrierTime);
    }
}
