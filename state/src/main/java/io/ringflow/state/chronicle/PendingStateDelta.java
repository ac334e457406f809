package io.ringflow.state.chronicle;

import io.ringflow.state.snapshot.StateMeta;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One state's part of one pending delta snapshot (an incremental checkpoint): the keys that changed since the base
 * checkpoint, each written with its value as of the barrier, or as a tombstone when it had none.
 *
 * <p>The changed keys are fixed at the barrier: the change sets of every interval since the base
 * ({@link StateMap#sealChanges}), immutable from then on. The flusher reads only those keys, one lookup each, so its
 * work grows with the keys changed, not with the state's size. It reads them in the map's segment order, each key
 * once though it be in several sets ({@link ChangedKeysBySegment}), so that a watermark of read segments tells the
 * task which keys it need no longer preserve, as a full snapshot's does, instead of a mark per key.
 *
 * <p>Protocol, per changed key {@code k} of segment {@code s}, both sides holding {@code s}'s update lock (so they
 * never interleave on one key):
 * <ul>
 *   <li>Task thread, before changing {@code k}: if {@link #readSegments} is at most {@code s}, {@code k} is a changed
 *   key of this delta and nothing is preserved for it, {@link #preserve} its value now (or {@link #ABSENT});
 *   {@code putIfAbsent} keeps the first.</li>
 *   <li>Flusher, reading {@code k}: if a value is preserved for it, that is its barrier value (the task preserves
 *   before its first change since the barrier, as {@code readSegments} stays at most {@code s} until the flusher has
 *   read every changed key of {@code s}); else the task has not changed {@code k} since the barrier, so its live value
 *   (or absence) is its barrier value. Once every changed key of {@code s} is read, the flusher raises
 *   {@code readSegments} past {@code s}, and the task preserves nothing more there. A copy the task preserves after
 *   the flusher read {@code k} but before the watermark moved is never read, and dropped with the rest at the
 *   end.</li>
 * </ul>
 * A value-like state's key is emitted as its value, or a tombstone when it had none or it had expired. A map state's
 * key is emitted as a tombstone followed by every user key it had (that had not expired), so applying the delta never
 * needs to know which user keys the base had.
 *
 * <p><b>Hot keys.</b> For a value state with a {@link HotKeyFront}, the changed keys are the map's change sets since
 * the base together with the keys of its {@link FrontOverlay} (the front at this delta's barrier): the overlay's keys
 * are emitted with their overlay values, the other changed keys as above, and a key of both takes the overlay's value
 * (newer than the map's; the flusher does not read the map for it). A delta carries the front's entries stamped as
 * changed since the base. Why no changed key is missed: a key's value at a
 * barrier is its front value if it is in the front, else its map value. A key whose value at this barrier differs
 * from the base's therefore had its map entry changed since the base, recorded by {@link StateMap}, or was written in
 * the front since the base, or was in the front at the base and left it since. A key written in the front stays
 * there until it is cleared or written back; it leaves by no other way. So such a key is in the front at this barrier
 * (the overlay), or left it since the base: by a write back, which goes through {@link StateMap#put} and is recorded,
 * or by a clear, which removes its map entry (recorded) or, when it has none, is recorded explicitly by the value
 * state ({@link StateMap#recordChange}). Writes after this barrier, write backs included, are preserved
 * copy-on-write for the changed keys as above: the map entry of an overlay key is never read, and a key that entered
 * the front after the barrier was not in it at the barrier, so its map value (preserved before a later write back
 * changes it) is its barrier value.
 *
 * <p><b>A rewritten slice.</b> A delta may also rewrite one slice of the state ({@link #sliceFrom} to {@link #sliceTo},
 * a range of the map's segments, and a range of key groups of a front of {@code Long} counters), so that the deltas of
 * a chain, each rewriting the next slice, together hold every entry once a whole round of slices is written: the chain
 * may then drop the files before that round (see {@link ChronicleKeyedStateStore#incrementalSnapshot(long, long, int)}
 * and docs/state.md, "Slices instead of full snapshots"). A slice's segments are read as a full snapshot reads its
 * segments, under each segment's lock, with that protocol's watermark and its own map of preserved values
 * ({@link #preservedInSlice}: the task preserves any key of a slice segment not read yet, changed or not), and every
 * changed key of such a segment that the front does not hold is first written as a tombstone, so that the key's entries from the scan, or from the
 * values preserved for keys removed since the barrier, emitted last, replace whatever the chain held; an unchanged
 * key's entries are written without one (the chain holds the same, and an entry that expired since the base is left
 * out, as a plain delta leaves it, for the restore's time-to-live check). Why the slices
 * cover the state: a key live at a barrier either has a map entry, emitted by its segment's slice (its front value if
 * the front holds it: the run has it when it is changed since the base or of the slice's key groups, and otherwise
 * the front's slice round emits it, since a key leaves the front only by a recorded change), or lives only in the
 * front, which it leaves only by a recorded change, so the front's slice of its key group emits it.
 *
 * <p>Thread contract: as {@link PendingStatePart}.
 */
final class PendingStateDelta extends PendingStatePart
{
    /** Put by the flusher for a key it has emitted. Compared by identity. */
    private static final byte[] READ = new byte[0];

    /** The change sets of the intervals since the base; never modified. */
    private final List<ChangedKeySet> changed;
    /** Set once the flusher is done or the snapshot is released: the task thread then preserves nothing. */
    private volatile boolean finished;
    /**
     * Every changed key of the segments below this has been read by the flusher: the task preserves none of them.
     * Raised by the flusher only: after the last key of a segment is read (its lock released), so a task holding a
     * segment's lock that sees the segment below it knows the flusher is done with every changed key there; for a
     * segment of the rewritten slice, at its first entry, under its lock, as a full snapshot does.
     */
    private volatile int readSegments;
    /** The map segments this delta rewrites whole, {@code [sliceFrom, sliceTo)}; empty when it rewrites none. */
    private final int sliceFrom;
    private final int sliceTo;
    /**
     * Values as of the barrier of keys of the rewritten segments, preserved by the task before it changed them, as for
     * a full snapshot: removed by the flusher as it reads each live entry; what remains once every segment is read
     * belongs to keys removed since the barrier (or {@link #ABSENT}: inserted since).
     */
    private final ConcurrentHashMap<PreservedKey, byte[]> preservedInSlice = new ConcurrentHashMap<>();
    /** The heap {@link #preservedInSlice} holds, estimated: what {@link #preservesMoreThan} bounds. */
    private final AtomicLong preservedInSliceBytes = new AtomicLong();

    /**
     * @param state       the state.
     * @param meta        its description as of the barrier.
     * @param ttlMillis   its time-to-live, or 0 to keep every entry.
     * @param barrierTime its clock at the barrier; meaningless without a time-to-live.
     * @param overlay     the state's hot-key front as of the barrier, or null.
     * @param changed     the keys changed since the base, one immutable set per interval.
     * @param sliceFrom   the first map segment this delta rewrites whole.
     * @param sliceTo     the segment after the last it rewrites; {@code sliceFrom} when it rewrites none. The overlay
     *                    has its slice of key groups set ({@link FrontOverlay#rewriteKeyGroups}) when this is not
     *                    empty.
     */
    PendingStateDelta(
        final StateMap state, final StateMeta meta, final long ttlMillis, final long barrierTime,
        final FrontOverlay overlay, final List<ChangedKeySet> changed, final int sliceFrom, final int sliceTo)
    {
        super(state, meta, ttlMillis, barrierTime, overlay, changed.stream().mapToLong(ChangedKeySet::size).sum() +
            slicedEntries(state, sliceFrom, sliceTo));
        this.changed = changed;
        this.sliceFrom = sliceFrom;
        this.sliceTo = Math.max(sliceFrom, sliceTo);
    }

    /** @return about how many map entries a slice of segments holds: a hint for buffers. */
    private static long slicedEntries(final StateMap state, final int from, final int to)
    {
        final ChronicleMap<EncodedBytes, EncodedBytes> map = state.map();
        return map == null || to <= from ? 0 : state.entryCount() * (to - from) / Math.max(1, map.segments());
    }

    private boolean inSlice(final int segment)
    {
        return segment >= sliceFrom && segment < sliceTo;
    }

    @Override
    boolean needsPreserving(final int segment, final PreservedKey key)
    {
        if (finished || readSegments > segment)
        {
            return false;
        }
        return inSlice(segment) ? !preservedInSlice.containsKey(key) : isChanged(key) && !hasPreserved(key);
    }

    @Override
    ConcurrentHashMap<PreservedKey, byte[]> preservedFor(final int segment)
    {
        return inSlice(segment) ? preservedInSlice : preserved;
    }

    @Override
    void preservedIn(final int segment, final long bytes)
    {
        if (inSlice(segment))
        {
            preservedInSliceBytes.addAndGet(bytes);
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>A delta that rewrites a slice preserves every key the task changes in a slice segment not read yet, like a
     * full snapshot: those copies are bounded by this budget, not by the change sets (the changed keys' copies, which
     * the change sets bound, are not counted).
     */
    @Override
    boolean preservesMoreThan(final long bytes)
    {
        return sliceTo > sliceFrom && isCollecting() && !finished && readSegments != Integer.MAX_VALUE &&
            preservedInSliceBytes.get() > bytes;
    }

    private boolean isChanged(final PreservedKey key)
    {
        for (int i = 0; i < changed.size(); i++)
        {
            if (changed.get(i).contains(key))
            {
                return true;
            }
        }
        return false;
    }

    @Override
    void collect(final int stateIndex, final KeyGroupBuckets into, final SegmentObserver observer)
    {
        final boolean sliced = sliceTo > sliceFrom;
        if (!sliced && changed.stream().allMatch(ChangedKeySet::isEmpty) && emitOverlayAsRun(stateIndex, into))
        {
            // no map entry changed since the base (a state that lives in its front): the delta is the front's
            // entries changed since the base, and no tombstone
            release();
            return;
        }
        // a front of Long counters is read as a sorted run and its keys probed as longs (no key of the run gets a
        // tombstone here: it is skipped below); any other front is encoded into a map of stored keys
        // a changed key the front holds is in the run (it entered the front after its map entry changed, see
        // HotKeyFront), unless a turnover that the full map refused midway wrote it back without taking it out (its
        // map value then is the front's, read as any changed key's), so the run's keys are those to skip among the
        // changed keys. With a rewritten slice every key of the front is skipped: the slice's scan must (a front key
        // not in the run is rewritten by the front's slices), and a changed key written back so keeps the value the
        // chain holds for it, the front's since before the base
        final KeyGroupBuckets.LongRun frontRun = overlayLongRun(stateIndex, into);
        final LongKeyFilter frontKeys = frontRun == null ? null :
            sliced ? overlayAllKeys() : LongKeyFilter.of(frontRun.keys(), frontRun.size());
        try
        {
            collectChanged(stateIndex, into, observer, frontRun == null ? encodedOverlay() : Map.of(), frontKeys);
            if (frontRun != null)
            {
                into.addLongRun(frontRun);
            }
        }
        finally
        {
            if (frontKeys != null)
            {
                frontKeys.release();
            }
        }
        release();
    }

    /**
     * Emits every changed key but the overlay's, then the overlay's entries when it is encoded ({@code front}).
     *
     * @param front     the encoded overlay, when {@code frontKeys} is null (else empty).
     * @param frontKeys the keys of an overlay of {@code Long} counters emitted as a run, or null.
     */
    private void collectChanged(
        final int stateIndex, final KeyGroupBuckets into, final SegmentObserver observer,
        final Map<PreservedKey, byte[]> front, final LongKeyFilter frontKeys)
    {
        if (mapAtBarrier == null)
        {
            collectWithoutMap(stateIndex, into, front, frontKeys);
        }
        else
        {
            collectBySegment(stateIndex, into, observer, front, frontKeys);
        }
        for (final Map.Entry<PreservedKey, byte[]> hot : front.entrySet())
        {
            final byte[] hotValue = hot.getValue();
            emitKey(into, stateIndex, hot.getKey(), hotValue, hotValue.length);
        }
    }

    /**
     * The map existed at the barrier: reads the changed keys segment by segment, in segment order, each once, and
     * moves {@link #readSegments} past each segment once all its keys are read (see the class).
     */
    private void collectBySegment(
        final int stateIndex, final KeyGroupBuckets into, final SegmentObserver observer,
        final Map<PreservedKey, byte[]> front, final LongKeyFilter frontKeys)
    {
        final ChronicleMap<EncodedBytes, EncodedBytes> map = mapAtBarrier;
        final EncodedBytes key = new EncodedBytes(64);
        final EncodedBytes value = new EncodedBytes(256);
        final PreservedKey probe = new PreservedKey();
        final ChangedKeysBySegment bySegment = ChangedKeysBySegment.of(map, changed, key);
        // a changed key of a slice segment gets no entry in the scan but its tombstone: an unchanged key's entries in
        // the chain are the scan's
        final SegmentScan slice = sliceTo > sliceFrom ? new SegmentScan(stateIndex, into, front, frontKeys) : null;
        for (int segment = 0; segment < bySegment.segments(); segment++)
        {
            final int end = bySegment.end(segment);
            if (slice != null && inSlice(segment))
            {
                // the segment's changed keys as tombstones first: their values as of the barrier, if any, follow
                // from the scan or from the values preserved for removed keys
                for (int at = bySegment.start(segment); at < end; at++)
                {
                    bySegment.keyInto(at, key);
                    probe.wrap(key);
                    // any key the front holds is left alone here, as in the scan: the run has it if it changed in
                    // the front, and a key written back from the front without leaving it (a turnover the full map
                    // refused midway) has, in the chain, the value it was written back with
                    if (!inFront(front, frontKeys, key.array(), key.length(), probe))
                    {
                        into.addTombstone(probe.keyGroup(), stateIndex, key.array(), key.length());
                    }
                }
                slice.read(map, segment);
                observer.segmentRead(stateIndex, segment);
                continue;
            }
            for (int at = bySegment.start(segment); at < end; at++)
            {
                bySegment.keyInto(at, key);
                probe.wrap(key);
                if (inFront(front, frontKeys, key.array(), key.length(), probe))
                {
                    // emitted from the overlay, whatever the map holds
                    continue;
                }
                byte[] atBarrier;
                boolean live = false;
                try (ExternalMapQueryContext<EncodedBytes, EncodedBytes, ?> context = map.queryContext(key))
                {
                    context.updateLock().lock();
                    // the task preserved the key if it changed it since the barrier: this segment is not read yet
                    atBarrier = preserved.get(probe);
                    if (atBarrier == null)
                    {
                        final MapEntry<EncodedBytes, EncodedBytes> entry = context.entry();
                        atBarrier = entry == null ? ABSENT : null;
                        if (entry != null)
                        {
                            entry.value().getUsing(value);
                            live = true;
                        }
                    }
                }
                if (live)
                {
                    emitKey(into, stateIndex, probe, value.array(), value.length());
                }
                else
                {
                    emitKey(into, stateIndex, probe, atBarrier, atBarrier.length);
                }
                observer.segmentRead(stateIndex, segment);
            }
            // every changed key of the segment is read: the task need preserve none of them from now on
            readSegments = segment + 1;
        }
        if (slice != null)
        {
            readSegments = Integer.MAX_VALUE;
            // keys of the slice removed since the barrier: their values then (a changed one's tombstone came first)
            for (final Map.Entry<PreservedKey, byte[]> removed : preservedInSlice.entrySet())
            {
                final byte[] removedValue = removed.getValue();
                final PreservedKey removedKey = removed.getKey();
                if (removedValue != ABSENT &&
                    !inFront(front, frontKeys, removedKey.bytes(), removedKey.length(), removedKey))
                {
                    emit(into, stateIndex, removedKey.keyGroup(), removedKey.bytes(), removedKey.length(),
                        removedValue, removedValue.length);
                }
            }
        }
    }

    /** Only segments of the rewritten slice are scanned. */
    @Override
    void segmentEntered(final int segment)
    {
        readSegments = segment + 1;
    }

    /** Only segments of the rewritten slice are scanned: their preserved values are in {@link #preservedInSlice}. */
    @Override
    byte[] takePreserved(final PreservedKey key, final int keyLength)
    {
        final byte[] atBarrier = preservedInSlice.isEmpty() ? null : preservedInSlice.remove(key);
        if (atBarrier != null)
        {
            final long size = preservedSize(keyLength, atBarrier);
            preservedBytes.addAndGet(-size);
            preservedInSliceBytes.addAndGet(-size);
        }
        return atBarrier;
    }

    /**
     * No map at the barrier, so no key had an entry then: a changed key not in the front was cleared from it, a
     * tombstone; once (marked read), though a key may be in several change sets.
     */
    private void collectWithoutMap(
        final int stateIndex, final KeyGroupBuckets into, final Map<PreservedKey, byte[]> front,
        final LongKeyFilter frontKeys)
    {
        for (final ChangedKeySet keys : changed)
        {
            for (final PreservedKey changedKey : keys)
            {
                if (!inFront(front, frontKeys, changedKey.bytes(), changedKey.length(), changedKey) &&
                    preserved.put(changedKey, READ) != READ)
                {
                    emitKey(into, stateIndex, changedKey, ABSENT, 0);
                }
            }
        }
    }

    /** Emits one changed key: tombstone, value, or (map state) tombstone then its user keys. */
    private void emitKey(
        final KeyGroupBuckets into, final int stateIndex, final PreservedKey key, final byte[] value,
        final int valueLength)
    {
        final int keyGroup = key.keyGroup();
        if (mapValues || value == ABSENT || expired(value, 0))
        {
            into.addTombstone(keyGroup, stateIndex, key.bytes(), key.length());
        }
        if (value != ABSENT)
        {
            emit(into, stateIndex, keyGroup, key.bytes(), key.length(), value, valueLength);
        }
    }

    @Override
    void release()
    {
        finished = true;
        preserved.clear();
        preservedInSlice.clear();
        releaseOverlay();
    }
}
