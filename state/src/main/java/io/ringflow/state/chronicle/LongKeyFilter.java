package io.ringflow.state.chronicle;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The keys of a hot-key front of {@code Long} counters at a barrier, for a snapshot's flusher to skip their (stale)
 * map entries, or a delta's flusher its changed keys that the front holds: an open-addressing set of {@code long}s,
 * at most half full, built from the front's {@link KeyGroupBuckets.LongRun}. Its table is a power of two of at
 * least twice as many slots as keys (16 to 32 bytes a key); each thread keeps the largest table it released for the
 * next filter (not in {@link RunArrays}' pool, whose arrays are sized for runs), so a flusher holds one such table for
 * its life and allocates none once it has one large enough.
 *
 * <p>It replaces, for such fronts, a {@code HashMap} of encoded keys: at ten million keys with a fifth of them in the
 * front, building that map and probing it once for each entry the snapshot's scan reads took about a quarter of the
 * flusher's time (an object and a node per front key; two or three cache misses a probe), where this set takes 16
 * to 32 bytes a front key, allocates nothing once its thread keeps a table large enough, and costs one cache miss a
 * probe.
 *
 * <p>Thread contract: built, probed and released by one thread (the flusher), which lends the table.
 */
final class LongKeyFilter
{
    /** The largest table a filter of this thread released; taken by the next one when large enough. */
    private static final ThreadLocal<long[]> SPARE_TABLE = new ThreadLocal<>();

    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class,
        ByteOrder.LITTLE_ENDIAN);

    /** The stored length of a key of the built-in {@code Long} codec: key group, then 8 bytes. */
    static final int STORED_LONG_KEY_LENGTH = StoredKeyLayout.KEY_OFFSET + Long.BYTES;

    /** Keys by slot; 0 marks an empty slot, so the key 0 is held by {@link #holdsZero}. */
    private long[] table;
    private final int mask;
    private final int shift;
    private final boolean holdsZero;

    private LongKeyFilter(final long[] table, final int bits, final boolean holdsZero)
    {
        this.table = table;
        this.mask = (1 << bits) - 1;
        this.shift = Long.SIZE - bits;
        this.holdsZero = holdsZero;
    }

    /**
     * @param keys  the keys, each once (a front's keys are distinct).
     * @param count how many of {@code keys}, from index 0.
     * @return a set of them, holding the table its thread kept (or a new one) until {@link #release}.
     */
    static LongKeyFilter of(final long[] keys, final int count)
    {
        // at most half full: a probe that misses, the common case, ends after about two slots
        final int bits = Math.max(4, Long.SIZE - Long.numberOfLeadingZeros(Math.max(1, 2L * count - 1)));
        if (bits > 30)
        {
            throw new IllegalArgumentException("too many keys for a filter: " + count);
        }
        final int slots = 1 << bits;
        final long[] spare = SPARE_TABLE.get();
        final long[] table;
        if (spare != null && spare.length >= slots)
        {
            SPARE_TABLE.remove();
            table = spare;
            // only the first slots are used; what an earlier filter left there is cleared
            Arrays.fill(table, 0, slots, 0L);
        }
        else
        {
            table = new long[slots];
        }
        boolean holdsZero = false;
        final int mask = slots - 1;
        final int shift = Long.SIZE - bits;
        for (int i = 0; i < count; i++)
        {
            final long key = keys[i];
            if (key == 0)
            {
                holdsZero = true;
                continue;
            }
            int slot = home(key, shift);
            while (table[slot] != 0)
            {
                slot = (slot + 1) & mask;
            }
            table[slot] = key;
        }
        return new LongKeyFilter(table, bits, holdsZero);
    }

    /** @return whether {@code key} is in the set. */
    boolean contains(final long key)
    {
        if (key == 0)
        {
            return holdsZero;
        }
        final long[] table = this.table;
        for (int slot = home(key, shift); ; slot = (slot + 1) & mask)
        {
            final long held = table[slot];
            if (held == key)
            {
                return true;
            }
            if (held == 0)
            {
                return false;
            }
        }
    }

    /**
     * @param storedKey a key as a state's map stores it ({@link StoredKeyLayout}), from index 0.
     * @param length    its length.
     * @return whether it is the stored form of a {@code Long} key of the built-in codec in the set.
     */
    boolean containsStored(final byte[] storedKey, final int length)
    {
        return length == STORED_LONG_KEY_LENGTH &&
            contains((long)LONG_LE.get(storedKey, StoredKeyLayout.KEY_OFFSET));
    }

    /**
     * Gives the table back to the calling thread, which keeps the larger of it and the one it kept; the set must not be
     * used after. Idempotent.
     */
    void release()
    {
        if (table != null)
        {
            final long[] kept = SPARE_TABLE.get();
            if (kept == null || kept.length < table.length)
            {
                SPARE_TABLE.set(table);
            }
            table = null;
        }
    }

    /** Fibonacci hashing: the top bits of the key times the golden ratio. */
    private static int home(final long key, final int shift)
    {
        return (int)((key * 0x9E3779B97F4A7C15L) >>> shift);
    }
}
