package io.ringflow.state.chronicle;

import io.ringflow.state.snapshot.StateKind;
import io.ringflow.state.snapshot.StateMeta;
import io.ringflow.state.snapshot.TtlValues;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.MapEntry;
import net.openhft.chronicle.map.MapSegmentContext;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * One state's part of one pending snapshot: the values the task thread preserved before changing them, and how far
 * the flusher has read the live map.
 *
 * <p>Protocol (the whole argument is in {@link ChronicleKeyedStateStore}):
 * <ul>
 *   <li>Task thread, holding a key's segment update lock, before changing the entry: if
 *   {@link #mayNotHaveRead}(segment) and the key is not preserved yet, {@link #preserve} its current value (or
 *   {@link #ABSENT}).</li>
 *   <li>Flusher, in {@link #collect}: visits the segments in ascending order, each under its update lock. At a
 *   segment's first entry, still holding the lock, it raises {@link #readSegments} past the segment; for each live
 *   entry it emits the preserved value if there is one (removing it), else the live value. After the last segment
 *   it emits the preserved values that remain (keys deleted since the barrier) and stops the task preserving.</li>
 * </ul>
 * Emitting a stored value splits a map state's value into one entry per user key ({@link MapBlobLayout}) and leaves
 * out what had expired at the barrier, by the state's clock read at the barrier: the decision depends only on the
 * value as of the barrier, so it is the same whether the value is read live or preserved.
 *
 * <p>Thread contract: {@link #mayNotHaveRead}, {@link #hasPreserved} and {@link #preserve} on the task thread,
 * {@link #collect} on one flusher, {@link #release} on any thread.
 */
final class PendingStateSnapshot
{
    /** Preserved for a key that had no value at the barrier. Compared by identity. */
    static final byte[] ABSENT = new byte[0];

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
         * @param segment    the segment just read.
         */
        void segmentRead(int stateIndex, int segment);
    }

    private final StateMap state;
    private final StateMeta meta;
    /** Whether stored values are {@link MapBlobLayout map values}, split into one entry per user key. */
    private final boolean mapValues;
    /** The state's time-to-live, or 0 when its entries never expire (or it is not declared). */
    private final long ttlMillis;
    /** The state's clock at the barrier: entries expired then are left out. */
    private final long barrierTime;
    private final ConcurrentHashMap<PreservedKey, byte[]> preserved = new ConcurrentHashMap<>();
    /**
     * The flusher has read (or, seen from a thread holding a segment lock it needs, finished reading) every segment
     * below this. Raised to {@code s + 1} by the flusher at the first entry of each non-empty segment {@code s}, while
     * it holds that segment's update lock; read by the task thread while it holds a segment's update lock; then set
     * to the maximum once every segment is read. Monotonic.
     */
    private volatile int readSegments;

    /**
     * @param state       the state.
     * @param meta        its description as of the barrier.
     * @param ttlMillis   its time-to-live, or 0 to keep every entry.
     * @param barrierTime its clock at the barrier; meaningless without a time-to-live.
     */
    PendingStateSnapshot(final StateMap state, final StateMeta meta, final long ttlMillis, final long barrierTime)
    {
        this.state = state;
        this.meta = meta;
        this.mapValues = meta.kind() == StateKind.MAP;
        this.ttlMillis = ttlMillis;
        this.barrierTime = barrierTime;
    }

    /** @return the state. */
    StateMap state()
    {
        return state;
    }

    /** @return the state's description as of the barrier. */
    StateMeta meta()
    {
        return meta;
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

    /**
     * Task thread.
     *
     * @param key a probe for the key about to change.
     * @return whether its value as of the barrier is already preserved.
     */
    boolean hasPreserved(final PreservedKey key)
    {
        return preserved.containsKey(key);
    }

    /**
     * Task thread, holding the key's segment update lock, before the entry changes.
     *
     * @param key   an immutable copy of the stored key.
     * @param value its value now, which is its value at the barrier, or {@link #ABSENT}; never modified after.
     */
    void preserve(final PreservedKey key, final byte[] value)
    {
        preserved.putIfAbsent(key, value);
    }

    /**
     * Flusher: adds this state's entries as of the barrier to {@code into}, then stops the task thread preserving
     * values for it.
     *
     * @param stateIndex the state's index in the snapshot.
     * @param into       where the entries go.
     * @param observer   told after each segment.
     */
    void collect(final int stateIndex, final KeyGroupBuckets into, final SegmentObserver observer)
    {
        final ChronicleMap<EncodedBytes, EncodedBytes> map = state.map();
        final SegmentVisitor visitor = new SegmentVisitor(stateIndex, into);
        final int segments = map.segments();
        for (int segment = 0; segment < segments; segment++)
        {
            visitor.segment = segment;
            visitor.firstEntry = true;
            try (MapSegmentContext<EncodedBytes, EncodedBytes, ?> context = map.segmentContext(segment))
            {
                context.forEachSegmentEntry(visitor);
            }
            observer.segmentRead(stateIndex, segment);
        }
        readSegments = Integer.MAX_VALUE;
        for (final Map.Entry<PreservedKey, byte[]> deleted : preserved.entrySet())
        {
            final byte[] value = deleted.getValue();
            if (value != ABSENT)
            {
                final PreservedKey key = deleted.getKey();
                emit(into, stateIndex, key.keyGroup(), key.bytes(), key.length(), value, value.length);
            }
        }
        preserved.clear();
    }

    /**
     * Adds one stored entry as of the barrier: a map value split into one entry per user key, and entries that had
     * expired at the barrier left out.
     */
    private void emit(
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

    private boolean expired(final byte[] value, final int offset)
    {
        return ttlMillis > 0 && TtlValues.isExpired(TtlValues.timestamp(value, offset), ttlMillis, barrierTime);
    }

    /** Stops preservation and drops what was preserved. Idempotent; any thread. */
    void release()
    {
        readSegments = Integer.MAX_VALUE;
        preserved.clear();
    }

    /** Reads one segment's entries, under its update lock (held by Chronicle Map for the whole visit). */
    private final class SegmentVisitor implements Consumer<MapEntry<EncodedBytes, EncodedBytes>>
    {
        private final int stateIndex;
        private final KeyGroupBuckets into;
        private final EncodedBytes key = new EncodedBytes(64);
        private final EncodedBytes value = new EncodedBytes(256);
        private final PreservedKey probe = new PreservedKey();
        int segment;
        boolean firstEntry;

        SegmentVisitor(final int stateIndex, final KeyGroupBuckets into)
        {
            this.stateIndex = stateIndex;
            this.into = into;
        }

        @Override
        public void accept(final MapEntry<EncodedBytes, EncodedBytes> entry)
        {
            if (firstEntry)
            {
                firstEntry = false;
                // under this segment's lock: a task write to this segment from now on sees the segment as read
                readSegments = segment + 1;
            }
            entry.key().getUsing(key);
            final byte[] atBarrier = preserved.remove(probe.wrap(key));
            final int keyGroup = StoredKeyLayout.keyGroup(key.array());
            if (atBarrier == null)
            {
                entry.value().getUsing(value);
                emit(into, stateIndex, keyGroup, key.array(), key.length(), value.array(), value.length());
            }
            else if (atBarrier != ABSENT)
            {
                emit(into, stateIndex, keyGroup, key.array(), key.length(), atBarrier, atBarrier.length);
            }
        }
    }
}
