package io.ringflow.state.chronicle;

import io.ringflow.state.snapshot.StateMeta;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;

import java.util.List;
import java.util.Set;

/**
 * One state's part of one pending delta snapshot (an incremental checkpoint): the keys that changed since the base
 * checkpoint, each written with its value as of the barrier, or as a tombstone when it had none.
 *
 * <p>The changed keys are fixed at the barrier: the change sets of every interval since the base
 * ({@link StateMap#sealChanges}), immutable from then on. The flusher reads only those keys, one lookup each, so its
 * work grows with the keys changed, not with the state's size.
 *
 * <p>Protocol, per changed key {@code k}, both sides holding {@code k}'s segment update lock (so they never
 * interleave on one key):
 * <ul>
 *   <li>Task thread, before changing {@code k}: if {@code k} is a changed key of this delta and nothing is
 *   preserved for it, {@link #preserve} its value now (or {@link #ABSENT}); {@code putIfAbsent} keeps the first.</li>
 *   <li>Flusher: {@code preserved.putIfAbsent(k, READ)}. If nothing was there, the task has not changed {@code k}
 *   since the barrier (it would have preserved it), so its live value (or absence) is its barrier value; from now on
 *   the task sees {@code READ} and preserves nothing. Otherwise it emits the preserved value. {@code READ} entries
 *   also make a key that is in several change sets emitted once.</li>
 * </ul>
 * A value-like state's key is emitted as its value, or a tombstone when it had none or it had expired. A map state's
 * key is emitted as a tombstone followed by every user key it had (that had not expired), so applying the delta never
 * needs to know which user keys the base had.
 *
 * <p>Thread contract: as {@link PendingStatePart}.
 */
final class PendingStateDelta extends PendingStatePart
{
    /** Put by the flusher for a key it has emitted. Compared by identity. */
    private static final byte[] READ = new byte[0];

    /** The change sets of the intervals since the base; never modified. */
    private final List<Set<PreservedKey>> changed;
    /** Set once the flusher is done or the snapshot is released: the task thread then preserves nothing. */
    private volatile boolean finished;

    /**
     * @param state       the state.
     * @param meta        its description as of the barrier.
     * @param ttlMillis   its time-to-live, or 0 to keep every entry.
     * @param barrierTime its clock at the barrier; meaningless without a time-to-live.
     * @param changed     the keys changed since the base, one immutable set per interval.
     */
    PendingStateDelta(
        final StateMap state, final StateMeta meta, final long ttlMillis, final long barrierTime,
        final List<Set<PreservedKey>> changed)
    {
        super(state, meta, ttlMillis, barrierTime);
        this.changed = changed;
    }

    @Override
    boolean needsPreserving(final int segment, final PreservedKey key)
    {
        return !finished && isChanged(key) && !hasPreserved(key);
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
        final ChronicleMap<EncodedBytes, EncodedBytes> map = state.map();
        final EncodedBytes key = new EncodedBytes(64);
        final EncodedBytes value = new EncodedBytes(256);
        for (final Set<PreservedKey> keys : changed)
        {
            for (final PreservedKey changedKey : keys)
            {
                key.ensureCapacity(changedKey.length());
                System.arraycopy(changedKey.bytes(), 0, key.array(), 0, changedKey.length());
                key.length(changedKey.length());
                final int segment;
                byte[] atBarrier;
                boolean live = false;
                try (ExternalMapQueryContext<EncodedBytes, EncodedBytes, ?> context = map.queryContext(key))
                {
                    context.updateLock().lock();
                    segment = context.segmentIndex();
                    atBarrier = preserved.putIfAbsent(changedKey, READ);
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
                if (atBarrier != READ)
                {
                    if (live)
                    {
                        emitKey(into, stateIndex, changedKey, value.array(), value.length());
                    }
                    else
                    {
                        emitKey(into, stateIndex, changedKey, atBarrier, atBarrier.length);
                    }
                }
                observer.segmentRead(stateIndex, segment);
            }
        }
        release();
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
    }
}
