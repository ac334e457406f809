package io.ringflow.state.chronicle;

import io.ringflow.state.snapshot.StateMeta;
import net.openhft.chronicle.map.ChronicleMap;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Map;

/**
 * One state's part of one pending full snapshot: the values the task thread preserved before changing them, and how
 * far the flusher has read the live map.
 *
 * <p>Protocol (the whole argument is in {@link ChronicleKeyedStateStore}):
 * <ul>
 *   <li>Task thread, holding a key's segment update lock, before changing the entry: if
 *   {@link #mayNotHaveRead}(segment) and the key is not preserved yet, {@link #preserve} its current value (or
 *   {@link #ABSENT}).</li>
 *   <li>Flusher, in {@link #collect}: visits the segments that had held an entry at the barrier, in ascending
 *   order, each under its update lock. At a segment's first entry, still holding the lock, it raises
 *   {@link #readSegments} past the segment (a skipped segment below it had no entry at the barrier: nothing in it
 *   needs preserving); for each live
 *   entry it emits the preserved value if there is one (removing it), else the live value. After the last segment
 *   it emits the preserved values that remain (keys deleted since the barrier) and stops the task preserving.</li>
 *   <li>Hot keys: the flusher first reads the state's {@link FrontOverlay} (its hot-key front at the barrier):
 *   encoded into a map of stored keys, or, for a front of {@code Long} counters of the built-in codecs, as a run
 *   sorted by key group whose keys it probes as longs ({@link LongKeyFilter}). It skips every live or preserved
 *   entry whose key is in it (still removing the preserved one, as above), and emits the overlay's entries last (a
 *   run is written first in each key group, which a full snapshot, having no tombstones, allows). Each key is emitted
 *   once: an overlay key only from the overlay, any other key as above.</li>
 * </ul>
 *
 * <p>Thread contract: as {@link PendingStatePart}; {@link #mayNotHaveRead} on the task thread.
 */
final class PendingStateSnapshot extends PendingStatePart
{
    /**
     * From this many map entries at the barrier on, the keys preserved are also marked in {@link #preservedFilter}.
     * Below it the map of preserved copies stays small enough for the cache, and no filter is allocated.
     */
    static final long FILTER_FROM_ENTRIES = 1 << 16;
    /** The filter's largest size: 2^27 bits, 16 MB, from about 134 million map entries on. */
    private static final int MAX_FILTER_BITS_LOG2 = 27;
    private static final VarHandle FILTER_WORDS = MethodHandles.arrayElementVarHandle(long[].class);

    /**
     * The flusher has read (or, seen from a thread holding a segment lock it needs, finished reading) every segment
     * below this. Raised to {@code s + 1} by the flusher at the first entry of each non-empty segment {@code s}, while
     * it holds that segment's update lock; read by the task thread while it holds a segment's update lock; then set
     * to the maximum once every segment is read. Monotonic.
     */
    private volatile int readSegments;
    /**
     * The segments that had held an entry at the barrier ({@link StateMap#occupiedSegments}): every entry of the
     * snapshot is in one of them, so the flusher visits only those. Entries inserted after the barrier into other
     * segments belong to later snapshots.
     */
    private final long[] occupied;
    /**
     * log2 of the number of bits of {@link #preservedFilter}: the power of two at or above the entries at the barrier
     * (one to two bits an entry; user keys for a map state, an upper bound of its stored keys); 0 for a map below
     * {@link #FILTER_FROM_ENTRIES} entries, which has no filter.
     */
    private final int filterBitsLog2;
    /**
     * One bit per hash of every key preserved so far (a Bloom filter with one hash function): a clear bit means the
     * key is not in {@link #preserved}, so neither the flusher, for each entry it reads, nor the task, for each write
     * to a segment not read yet, needs to probe that map, whose table at millions of copies misses the cache on every
     * probe. Taken by the task from its state at its first copy ({@link StateMap#takeFilter}; not at the barrier: the
     * synchronous part stays O(1)), null until then, and handed back cleared once the snapshot is read or released
     * ({@link #dropFilter}). Bits are set by the task (atomic or) while it holds the key's segment update lock, before
     * the copy is stored, and read by the flusher while it holds the same lock, so a copy the flusher may need is
     * always marked (the segment lock orders the task's marking before the flusher's read; a reference still null
     * means nothing was preserved before). No bit is cleared while the snapshot is pending: a copy the flusher
     * removed leaves a false positive, which only costs a probe.
     */
    private volatile long[] preservedFilter;

    /**
     * @param state       the state.
     * @param meta        its description as of the barrier.
     * @param ttlMillis   its time-to-live, or 0 to keep every entry.
     * @param barrierTime its clock at the barrier; meaningless without a time-to-live.
     * @param overlay     the state's hot-key front as of the barrier, or null.
     */
    PendingStateSnapshot(
        final StateMap state, final StateMeta meta, final long ttlMillis, final long barrierTime,
        final FrontOverlay overlay)
    {
        super(state, meta, ttlMillis, barrierTime, overlay, state.entryCount());
        this.occupied = state.occupiedSegments();
        final long entries = state.entryCount();
        this.filterBitsLog2 = entries < FILTER_FROM_ENTRIES ? 0 :
            Math.min(MAX_FILTER_BITS_LOG2, Long.SIZE - Long.numberOfLeadingZeros(entries - 1));
    }

    @Override
    void preserving(final PreservedKey key)
    {
        if (filterBitsLog2 == 0)
        {
            return;
        }
        long[] filter = preservedFilter;
        if (filter == null)
        {
            if (readSegments == Integer.MAX_VALUE)
            {
                // read or released: nothing consults the filter any more (the copy itself is harmless)
                return;
            }
            filter = state.takeFilter(1 << (filterBitsLog2 - 6));
            preservedFilter = filter;
        }
        final int bit = filterBit(key.hashCode());
        FILTER_WORDS.getAndBitwiseOr(filter, bit >>> 6, 1L << bit);
    }

    /**
     * Task thread or flusher, holding the key's segment update lock.
     *
     * @param key a probe for the key.
     * @return false when the key was never preserved for this snapshot; true when it may have been.
     */
    private boolean mayHavePreserved(final PreservedKey key)
    {
        if (filterBitsLog2 == 0)
        {
            return true;
        }
        final long[] filter = preservedFilter;
        if (filter == null)
        {
            return false;
        }
        final int bit = filterBit(key.hashCode());
        return ((long)FILTER_WORDS.getVolatile(filter, bit >>> 6) & 1L << bit) != 0;
    }

    /** @return the filter's bit of a key's hash: its top bits after a multiplicative mix. */
    private int filterBit(final int hash)
    {
        return (hash * 0x9E3779B9) >>> (Integer.SIZE - filterBitsLog2);
    }


    /**
     * Task thread, holding {@code segment}'s update lock.
     *
     * @param segment the segment of the key about to change.
     * @return false when the flusher has already read {@code segment}, so no old value of it needs preserving.
     */
    boolean mayNotHaveRead(final int segment)
    {
        return readSegments <= segment;
    }

    @Override
    boolean needsPreserving(final int segment, final PreservedKey key)
    {
        return mayNotHaveRead(segment) && !(mayHavePreserved(key) && hasPreserved(key));
    }

    /** @return whether no segment had held an entry at the barrier: the map was empty then. */
    private boolean noSegmentOccupied()
    {
        for (final long word : occupied)
        {
            if (word != 0)
            {
                return false;
            }
        }
        return true;
    }

    @Override
    void collect(final int stateIndex, final KeyGroupBuckets into, final SegmentObserver observer)
    {
        if (noSegmentOccupied())
        {
            // The map was empty at the barrier (the usual case of a small state that lives in its hot-key front):
            // the snapshot is the overlay alone. Whatever the task preserved since is ABSENT (a key's first change
            // after the barrier preserves its value then, and no key had one in the map), so it is dropped unread.
            readSegments = Integer.MAX_VALUE;
            if (emitOverlayDirectly(stateIndex, into))
            {
                preserved.clear();
                preservedBytes.set(0);
                return;
            }
        }
        // a front of Long counters is read as a sorted run and its keys probed as longs; any other front is encoded
        // into a map of stored keys
        final KeyGroupBuckets.LongRun frontRun = overlayLongRun(stateIndex, into);
        final LongKeyFilter frontKeys = frontRun == null ? null : LongKeyFilter.of(frontRun.keys(), frontRun.size());
        try
        {
            final Map<PreservedKey, byte[]> front = frontRun == null ? encodedOverlay() : Map.of();
            // segments were occupied at the barrier, so the map existed then
            final ChronicleMap<EncodedBytes, EncodedBytes> map = mapAtBarrier;
            final SegmentScan scan = new SegmentScan(stateIndex, into, front, frontKeys);
            for (int word = 0; word < occupied.length; word++)
            {
                for (long bits = occupied[word]; bits != 0; bits &= bits - 1)
                {
                    final int segment = word << 6 | Long.numberOfTrailingZeros(bits);
                    scan.read(map, segment);
                    observer.segmentRead(stateIndex, segment);
                }
            }
            readSegments = Integer.MAX_VALUE;
            for (final Map.Entry<PreservedKey, byte[]> deleted : preserved.entrySet())
            {
                final byte[] value = deleted.getValue();
                final PreservedKey key = deleted.getKey();
                if (value != ABSENT && !inFront(front, frontKeys, key.bytes(), key.length(), key))
                {
                    emit(into, stateIndex, key.keyGroup(), key.bytes(), key.length(), value, value.length);
                }
            }
            preserved.clear();
            preservedBytes.set(0);
            dropFilter();
            if (frontRun != null)
            {
                // a full snapshot emits no tombstone, so the run may come first in its key groups
                into.addLongRun(frontRun);
            }
            for (final Map.Entry<PreservedKey, byte[]> hot : front.entrySet())
            {
                final PreservedKey key = hot.getKey();
                final byte[] value = hot.getValue();
                emit(into, stateIndex, key.keyGroup(), key.bytes(), key.length(), value, value.length);
            }
        }
        finally
        {
            if (frontKeys != null)
            {
                frontKeys.release();
            }
        }
    }

    @Override
    void release()
    {
        readSegments = Integer.MAX_VALUE;
        preserved.clear();
        preservedBytes.set(0);
        dropFilter();
        releaseOverlay();
    }

    /**
     * Once the task no longer marks keys for this snapshot ({@link #readSegments} at its maximum) and the flusher no
     * longer reads the filter: hands it back to the state for the next snapshot. Any thread; a second call finds it
     * gone.
     */
    private void dropFilter()
    {
        final long[] filter = preservedFilter;
        if (filter != null)
        {
            preservedFilter = null;
            state.giveFilter(filter);
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>A full snapshot preserves every key the task changes in a segment the flusher has not read yet: with state
     * larger than a flush can write in one checkpoint interval, that is unbounded but for this budget. Entries leave
     * as the flusher reads their segments, so a task that waits is let go as the flusher moves on, not only at the
     * end.
     */
    @Override
    boolean preservesMoreThan(final long bytes)
    {
        return isCollecting() && readSegments != Integer.MAX_VALUE && preservedBytes.get() > bytes;
    }

    @Override
    void segmentEntered(final int segment)
    {
        readSegments = segment + 1;
    }

    @Override
    byte[] takePreserved(final PreservedKey key, final int keyLength)
    {
        final byte[] atBarrier = mayHavePreserved(key) ? preserved.remove(key) : null;
        if (atBarrier != null)
        {
            preservedBytes.addAndGet(-preservedSize(keyLength, atBarrier));
        }
        return atBarrier;
    }
}
