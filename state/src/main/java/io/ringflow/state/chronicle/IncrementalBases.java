package io.ringflow.state.chronicle;

import org.agrona.collections.Long2LongHashMap;

import java.util.ArrayDeque;
import java.util.Collection;

/**
 * Change tracking for incremental snapshots, store-wide: whether the store's maps record their changed keys, and which
 * snapshots taken while they did are still possible bases of a delta (their change sets since are all known). Each
 * {@link StateMap} keeps its own change sets, one per interval between barriers; this class keeps the intervals of
 * all maps in step.
 *
 * <p>Invariant: a checkpoint id is a possible base iff this store took its snapshot while tracking changes, or was
 * restored or reverted to exactly that snapshot while tracking ({@link #restoredFrom}), no other restore came after,
 * and neither {@link #forgetAll} nor the bound of {@link #MAX_POSSIBLE_BASES} dropped it; every map then holds its
 * change sets from that barrier (or that restore) on.
 *
 * <p>Thread contract: the store's task thread.
 */
final class IncrementalBases
{
    /** The most snapshots whose changes are kept as possible bases of a delta; older ones are forgotten. */
    static final int MAX_POSSIBLE_BASES = 64;

    private boolean tracking;
    /** The snapshots taken while tracking changes whose changes are still known, ascending: possible bases. */
    private final ArrayDeque<Long> sealedSnapshots = new ArrayDeque<>();
    /**
     * Per possible base that was a delta rewriting a slice: how many such deltas, each on the one before, end with it
     * (a round's position); missing (0) for a full snapshot, a plain delta, or a checkpoint restored from. A revert
     * keeps its checkpoint's count: the store's maps are the ones whose segments the round's slices were cut from.
     */
    private final Long2LongHashMap sliceRuns = new Long2LongHashMap(0);

    /**
     * @param checkpointId a possible base.
     * @return how many deltas rewriting slices, each on the one before, end with its snapshot; 0 when it was no such
     *     delta.
     */
    long sliceRun(final long checkpointId)
    {
        return sliceRuns.get(checkpointId);
    }

    /**
     * Records the snapshot just {@link #sealed}: how many deltas rewriting slices end with it.
     *
     * @param checkpointId the snapshot's checkpoint.
     * @param run          0 for a full snapshot or a plain delta.
     */
    void recordSliceRun(final long checkpointId, final long run)
    {
        if (tracking && run > 0 && sealedSnapshots.contains(checkpointId))
        {
            sliceRuns.put(checkpointId, run);
        }
    }

    /** @return whether changes are tracked. */
    boolean tracking()
    {
        return tracking;
    }

    /**
     * Starts tracking changes in every map, and in maps created from now on.
     *
     * @param maps the store's maps.
     */
    void startTracking(final Collection<StateMap> maps)
    {
        tracking = true;
        for (final StateMap map : maps)
        {
            map.trackChanges();
        }
    }

    /**
     * @param baseCheckpointId a checkpoint.
     * @return whether it is a possible base.
     */
    boolean isBase(final long baseCheckpointId)
    {
        return tracking && sealedSnapshots.contains(baseCheckpointId);
    }

    /**
     * @param maps             the store's maps.
     * @param frontOnly        keys held only in hot-key fronts (no map entry).
     * @param baseCheckpointId a possible base.
     * @return true when the keys changed since the base (counted per interval, so an upper bound) exceed half of the
     *     keys held, in maps and fronts: a delta's flusher looks up each changed key, in segment order, about 1.5 times
     *     the cost per key of a full snapshot's segment scan on this machine (docs/benchmarks.md, "A delta read in
     *     segment order"), so beyond roughly half a full snapshot is written faster.
     */
    static boolean prefersFull(final Collection<StateMap> maps, final long frontOnly, final long baseCheckpointId)
    {
        long changed = 0;
        long held = frontOnly;
        for (final StateMap map : maps)
        {
            changed += map.changedKeysSince(baseCheckpointId);
            held += map.size();
        }
        return changed > held / 2;
    }

    /**
     * A snapshot was taken (its maps sealed their intervals): it becomes a possible base; beyond
     * {@link #MAX_POSSIBLE_BASES} the oldest stops being one.
     *
     * @param maps         the store's maps.
     * @param checkpointId the snapshot's checkpoint.
     */
    void sealed(final Collection<StateMap> maps, final long checkpointId)
    {
        if (!tracking)
        {
            return;
        }
        sealedSnapshots.addLast(checkpointId);
        if (sealedSnapshots.size() > MAX_POSSIBLE_BASES)
        {
            // no checkpoint committed for a long while: the oldest snapshots stop being possible bases (a later
            // checkpoint built on one of them is taken full), so the change sets stay bounded
            forgetUpTo(maps, sealedSnapshots.peekFirst());
            sliceRuns.remove(sealedSnapshots.removeFirst().longValue());
        }
    }

    /**
     * Forgets the changes up to a checkpoint's barrier; the checkpoint itself stays a possible base.
     *
     * @param maps         the store's maps.
     * @param checkpointId the checkpoint.
     */
    void forgetUpTo(final Collection<StateMap> maps, final long checkpointId)
    {
        for (final StateMap map : maps)
        {
            map.forgetChangesUpTo(checkpointId);
        }
        while (!sealedSnapshots.isEmpty() && sealedSnapshots.peekFirst() < checkpointId)
        {
            sliceRuns.remove(sealedSnapshots.removeFirst().longValue());
        }
    }

    /**
     * The store now holds exactly a checkpoint's snapshot (restored or reverted to it): every change and every other
     * base is forgotten, and that checkpoint becomes the one possible base, when changes are tracked; the changes
     * recorded from now on are the changes since it.
     *
     * @param maps         the store's maps.
     * @param checkpointId the checkpoint whose snapshot the store holds.
     */
    void restoredFrom(final Collection<StateMap> maps, final long checkpointId)
    {
        forgetAll(maps);
        if (tracking)
        {
            sealedSnapshots.addLast(checkpointId);
        }
    }

    /**
     * Forgets every change and every base (after a restore, whose entries are not changes, or on demand).
     *
     * @param maps the store's maps.
     */
    void forgetAll(final Collection<StateMap> maps)
    {
        sealedSnapshots.clear();
        sliceRuns.clear();
        for (final StateMap map : maps)
        {
            map.clearChanges();
        }
    }
}
