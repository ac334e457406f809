package io.ringflow.state.chronicle;

/**
 * Per thread, the arrays of sorted runs ({@link KeyGroupBuckets.LongRun}) that finished snapshot writes gave back,
 * for the next snapshot written on the same thread (the flusher, or a task thread that writes its small snapshots
 * itself): it gathers every checkpoint's counters into the same few arrays instead of allocating two arrays of the
 * state's size per checkpoint.
 *
 * <p>Ownership: a taken array belongs to the run it is put in until the write of that run gives it back
 * ({@link KeyGroupBuckets#writeTo}); it is never in the pool and in a run at once, so two runs, on one thread or two,
 * never share an array. Runs are built and written inside one snapshot write, on its thread; if that write fails
 * part way, its runs keep their arrays, which are then collected as before.
 *
 * <p>Bound: at most {@link #MAX_LONG_ARRAYS} arrays of {@code long}s and one of {@code char}s are kept per thread,
 * the largest given back. A new array has an eighth more room than asked for, so a growing state reuses its arrays
 * for a while, and a take that finds none large enough drops the kept ones that are too small. A thread therefore
 * keeps about two arrays per counter state of its largest snapshot plus the gathering pair, at most an eighth larger
 * than that state (about 9 MB each, four for one counter state of a million, and one of 2 MB), for as long as it
 * lives: a task thread or a flusher, the attempt's life.
 *
 * <p>Thread contract: every method acts on the calling thread's pool only.
 */
final class RunArrays
{
    /**
     * Two runs' keys and values, and the pair their entries are gathered in before being ordered (given back once
     * ordered, so the two runs share it): a snapshot of two counter states reuses all of its arrays.
     */
    static final int MAX_LONG_ARRAYS = 6;

    /** A snapshot of two counter states holds two runs' group starts, the buckets' two arrays and one cursor array. */
    static final int MAX_INT_ARRAYS = 6;

    private static final ThreadLocal<RunArrays> POOLS = ThreadLocal.withInitial(RunArrays::new);

    private final long[][] longs = new long[MAX_LONG_ARRAYS][];
    private char[] chars;
    /**
     * Small arrays of ints of one length each, for a snapshot's per-key-group arrays (a run's group starts, the
     * scatter's cursors, the buckets' counts and limits): a store's range is the same from snapshot to snapshot.
     */
    private final int[][] ints = new int[MAX_INT_ARRAYS][];

    private RunArrays()
    {
    }

    /**
     * @param length the least length needed.
     * @return this thread's smallest kept array of at least {@code length} longs, taken out of the pool, or else a
     *     new one with an eighth more room (the kept ones too small for {@code length} are dropped then); its
     *     contents are undefined.
     */
    static long[] takeLongs(final int length)
    {
        final long[][] longs = POOLS.get().longs;
        int best = -1;
        for (int i = 0; i < longs.length; i++)
        {
            if (longs[i] != null && longs[i].length >= length && (best < 0 || longs[i].length < longs[best].length))
            {
                best = i;
            }
        }
        if (best < 0)
        {
            for (int i = 0; i < longs.length; i++)
            {
                if (longs[i] != null && longs[i].length < length)
                {
                    longs[i] = null;
                }
            }
            return new long[(int)Math.min(Integer.MAX_VALUE - 8, length + (long)(length >>> 3))];
        }
        final long[] taken = longs[best];
        longs[best] = null;
        return taken;
    }

    /**
     * Gives an array back once nothing refers to it any more: kept in a free place, or in place of the smallest kept
     * array if it is larger, else dropped.
     *
     * @param array an array taken with {@link #takeLongs} (or any the caller owns and no longer uses).
     */
    static void giveLongs(final long[] array)
    {
        final long[][] longs = POOLS.get().longs;
        int smallest = 0;
        for (int i = 0; i < longs.length; i++)
        {
            if (longs[i] == null)
            {
                longs[i] = array;
                return;
            }
            if (longs[i].length < longs[smallest].length)
            {
                smallest = i;
            }
        }
        if (array.length > longs[smallest].length)
        {
            longs[smallest] = array;
        }
    }

    /**
     * @param length the exact length needed.
     * @return a kept array of ints of exactly {@code length}, taken out of the pool, or a new one; zeroed either way.
     */
    static int[] takeZeroedInts(final int length)
    {
        final int[][] ints = POOLS.get().ints;
        for (int i = 0; i < ints.length; i++)
        {
            final int[] kept = ints[i];
            if (kept != null && kept.length == length)
            {
                ints[i] = null;
                java.util.Arrays.fill(kept, 0);
                return kept;
            }
        }
        return new int[length];
    }

    /**
     * Gives an array of ints back once nothing refers to it any more: kept in a free place, else in place of one of
     * another length (the store's range changed), else dropped.
     *
     * @param array an array taken with {@link #takeZeroedInts} (or any the caller owns and no longer uses).
     */
    static void giveInts(final int[] array)
    {
        final int[][] ints = POOLS.get().ints;
        int other = -1;
        for (int i = 0; i < ints.length; i++)
        {
            if (ints[i] == null)
            {
                ints[i] = array;
                return;
            }
            if (ints[i].length != array.length)
            {
                other = i;
            }
        }
        if (other >= 0)
        {
            ints[other] = array;
        }
    }

    /**
     * @param length the least length needed.
     * @return this thread's kept array of chars if it is long enough, taken out of the pool, or a new one; its
     *     contents are undefined.
     */
    static char[] takeChars(final int length)
    {
        final RunArrays pool = POOLS.get();
        final char[] kept = pool.chars;
        if (kept != null && kept.length >= length)
        {
            pool.chars = null;
            return kept;
        }
        return new char[length];
    }

    /** @param array an array of chars no longer used: kept if it is larger than the one kept. */
    static void giveChars(final char[] array)
    {
        final RunArrays pool = POOLS.get();
        if (pool.chars == null || pool.chars.length < array.length)
        {
            pool.chars = array;
        }
    }
}
