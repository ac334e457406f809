package io.ringflow.state.chronicle;

import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * An open-addressing hash table of {@code long} keys to {@code long} values (with an optional {@code long} change stamp
 * per entry) whose snapshots copy nothing at the barrier: {@link #snapshot()} returns a {@link View} in O(1), and the
 * task thread copies a chunk of the table only the first time it changes that chunk after a barrier, and only while a
 * view's reader has not read that chunk yet. This is the hot-key front's table for {@code Long} keys and values.
 *
 * <p><b>Layout.</b> Slots are interleaved in one array, key at {@code 2i}, value at {@code 2i + 1}, so that a lookup
 * touches one cache line; a value of {@link #MISSING} marks an empty slot (so it is the one value the table cannot
 * hold). Linear probing from a Fibonacci hash; removal shifts later entries of the probe run back (no tombstones). The
 * table starts small and doubles, up to the slots for {@code maxKeys} at a load of at most one half, so a table sized
 * for millions of keys costs only what its keys use. Slots are grouped in chunks of {@link #CHUNK_SLOTS}.
 *
 * <p><b>Copy-on-write.</b> Every barrier increments a sequence number {@code seq}; {@code chunkSeq[c] == seq} means
 * chunk {@code c} needs no copy for any pending view. Before the task changes any slot (insert, replace, remove and
 * each slot a removal shifts), {@link #beforeWrite} checks that number; the first change of a chunk after a barrier
 * copies the chunk (entries and stamps) once and hands the copy to every pending view of the same arrays that has not
 * read the chunk and has no copy of it yet, then stores the copy reference (volatile) and a store-store fence before
 * the change. A view's reader ({@link View#forEachChunk}, and {@link View#materialize} built on it), chunk by chunk:
 * reads the view's copy reference (volatile) and, if there is one, reads the copy in place; otherwise copies the live
 * chunk, a load-load fence, then reads the copy reference again and, if one appeared, takes the copy instead; then it
 * advances its {@code cursor} (volatile) past the chunk, and passes the chunk on.
 *
 * <p><b>Why a view sees exactly the table at its barrier.</b> Per chunk {@code c} and view {@code V}:
 * <ol>
 *   <li>No change of {@code c} since {@code V}'s barrier when the reader copies it: the live chunk is the barrier's.</li>
 *   <li>The first change of {@code c} after the barrier read {@code V.cursor}. If it was past {@code c}, the reader had
 *   finished copying {@code c} before advancing the cursor (its reads happen-before that volatile store, which
 *   happens-before the task's read of it and the change), so the copy cannot contain the change. Otherwise the task
 *   copied the chunk before changing it: that copy is the barrier's (nothing changed {@code c} since the barrier, or
 *   that earlier change would have been the first), and its reference was published before any change of the chunk
 *   (store-store fence). A reader that saw any change in the live chunk therefore sees the reference after its
 *   load-load fence, and takes the copy; a reader that saw no change copied the barrier's chunk either way.</li>
 *   <li>A copy the reader finds before copying the live chunk is the barrier's by rule 2 (it was made before the
 *   chunk's first change after the barrier), and nothing writes it while the reader reads it: the task fills an array
 *   before publishing it as a copy, and takes a recycled one only after a reader offered it, which a reader does once
 *   it has read it (below).</li>
 *   <li>Several pending views share one copy: a view without a copy whose cursor is not past {@code c} at the first
 *   change after a later barrier saw no change of {@code c} since its own barrier (rule 2), so the chunk then equals
 *   its barrier's chunk too.</li>
 *   <li>Growing or clearing while views are pending allocates new arrays: the old ones, which the views hold, are
 *   never written again.</li>
 * </ol>
 * This is the optimistic read of a sequence lock ({@link java.util.concurrent.locks.StampedLock}'s validate) per
 * chunk, with the copy in place of a retry: the task never waits for a reader, and a reader never waits for the task.
 *
 * <p><b>Copies are recycled.</b> With many keys changed between barriers nearly every chunk is copied once per barrier
 * (a whole table's worth of garbage per checkpoint: 27 MB at a million {@code Long} counters with change stamps). A
 * copy handed to exactly one view belongs to that view's reader once handed: after the reader has taken the chunk
 * from it, it offers the array to the table's pool of {@link #recycled} copies (many readers, one taker), and the task
 * takes its next copies from there. A copy shared by several views is left to the collector, since no one reader knows
 * when the others are done with it. The pool holds at most one copy per chunk of the table at its largest: no more
 * than one snapshot of the whole table needs at its peak; {@link #clear} empties it. The offer (a release in the
 * queue) happens-before the take, so the task never overwrites an array a reader still reads. A view's copies and
 * their exclusivity flags are published together: one holder, reached through one volatile field.
 *
 * <p>Thread contract: every method of the table on the task thread; a {@link View}'s {@link View#forEachChunk},
 * {@link View#materialize} and {@link View#release} on one thread (its reader: the flusher, or the task itself), or
 * {@link View#release} on any thread once no read of that view can be under way; its {@link View#size} on any.
 */
final class CopyOnWriteLongTable
{
    /** The empty-slot marker, in a slot's value; never a value. */
    static final long MISSING = Long.MIN_VALUE;
    /** Slots per chunk, the unit of copy-on-write: 512 slots, 8 KiB of entries. */
    static final int CHUNK_SLOTS = 512;
    private static final int CHUNK_SHIFT = 9;
    /** Slots of a new or cleared table. */
    private static final int INITIAL_SLOTS = 2 * CHUNK_SLOTS;
    private static final long FIBONACCI = 0x9E3779B97F4A7C15L;
    /** Slots from which {@link #outgrowsNearCaches}: 65,536 slots, 1 MiB of entries. */
    private static final int NEAR_CACHE_SLOTS = 1 << 16;
    /**
     * Per thread, the buffers of the last {@link View#forEachChunk} that finished on it, for the next one of the same
     * chunk size: a flusher reads every snapshot through one pair of buffers instead of allocating them per
     * checkpoint. A read takes them (the thread-local is cleared) and gives them back when done, so two reads on one
     * thread never share them.
     */
    private static final ThreadLocal<long[]> SPARE_CHUNK_ENTRIES = new ThreadLocal<>();
    private static final ThreadLocal<long[]> SPARE_CHUNK_STAMPS = new ThreadLocal<>();

    /** The most keys a table holds: 2^27, in 2^28 slots (4 GiB of entries). */
    static final int MAX_KEYS = 1 << 27;

    private final int maxKeys;
    private final int maxSlots;
    /** Key at {@code 2i}, value at {@code 2i + 1}; a value of {@link #MISSING} marks slot {@code i} empty. */
    private long[] entries;
    /** Stamp of slot {@code i}, {@link #MISSING} when none; null until the first stamp. */
    private long[] stamps;
    /** Per chunk, the {@link #seq} at which it last needed no copy for any pending view. */
    private long[] chunkSeq;
    /** Barriers taken; see the class documentation. */
    private long seq;
    private int size;
    private int mask;
    private int shift;
    /** Views not known to be done; task thread. */
    private View[] views = new View[4];
    private int viewCount;
    /** Chunk copies made; for tests. */
    private long chunkCopies;
    /** Chunk copies made from a recycled array; for tests. */
    private long recycledCopies;
    /**
     * Copies readers are done with, for the task's next ones; offered by readers, taken by the task. Created at the
     * first {@link #snapshot()}, so a table never snapshotted has none.
     */
    private ManyToOneConcurrentArrayQueue<long[]> recycled;
    /** {@link #preserve}'s scratch list of the views that need a copy; task thread. */
    private View[] needing = new View[4];

    /**
     * @param maxKeys the most keys the table will hold, at least 1; it never grows beyond two slots per key.
     */
    CopyOnWriteLongTable(final int maxKeys)
    {
        if (maxKeys < 1 || maxKeys > MAX_KEYS)
        {
            throw new IllegalArgumentException("a table holds 1 to " + MAX_KEYS + " keys, not " + maxKeys);
        }
        this.maxKeys = maxKeys;
        this.maxSlots = Math.max(INITIAL_SLOTS, Integer.highestOneBit(2 * maxKeys - 1) << 1);
        allocate(Math.min(INITIAL_SLOTS, maxSlots), false);
    }

    private void allocate(final int slots, final boolean withStamps)
    {
        entries = new long[2 * slots];
        Arrays.fill(entries, MISSING);
        if (withStamps)
        {
            stamps = new long[slots];
            Arrays.fill(stamps, MISSING);
        }
        else
        {
            stamps = null;
        }
        chunkSeq = new long[Math.max(1, slots >>> CHUNK_SHIFT)];
        // new arrays: no view holds them, nothing to copy until the next barrier
        Arrays.fill(chunkSeq, seq);
        mask = slots - 1;
        shift = 64 - Integer.numberOfTrailingZeros(slots);
    }

    private int home(final long key)
    {
        return (int)((key * FIBONACCI) >>> shift);
    }

    /** @return the slot of {@code key}, or the empty slot where it would go, as {@code -slot - 1}. */
    private int find(final long key)
    {
        final long[] entries = this.entries;
        int slot = home(key);
        while (true)
        {
            if (entries[2 * slot + 1] == MISSING)
            {
                return -slot - 1;
            }
            if (entries[2 * slot] == key)
            {
                return slot;
            }
            slot = (slot + 1) & mask;
        }
    }

    /**
     * @param key a key.
     * @return its value, or {@link #MISSING}.
     */
    long get(final long key)
    {
        final long[] entries = this.entries;
        int slot = home(key);
        while (true)
        {
            final long value = entries[2 * slot + 1];
            if (value == MISSING || entries[2 * slot] == key)
            {
                return value;
            }
            slot = (slot + 1) & mask;
        }
    }

    /** @return this thread's spare buffer of {@code length} longs, taken from {@code spares}, or a new one. */
    private static long[] spare(final ThreadLocal<long[]> spares, final int length)
    {
        final long[] spare = spares.get();
        if (spare != null && spare.length == length)
        {
            spares.set(null);
            return spare;
        }
        return new long[length];
    }

    /**
     * @return whether the table has outgrown the processor's near caches, so that a lookup of a key not used lately
     *     usually misses them and {@link #touch}ing keys ahead pays off: from 65,536 slots (1 MiB of entries,
     *     reached at the 16,385th key). Below that, touching ahead only costs: the page-view job at 1,000 keys ran 4
     *     to 13 % slower with it.
     */
    boolean outgrowsNearCaches()
    {
        return entries.length >= 2 * NEAR_CACHE_SLOTS;
    }

    /**
     * Loads the memory a lookup of {@code key} reads first (its home slot, and its stamp when entries are stamped), so
     * that the lookup, soon after, finds it in cache. Changes nothing. The loads of several keys touched one after
     * the other are independent, so the processor overlaps their cache misses; that is the point.
     *
     * @param key a key.
     * @return a value of no meaning that the caller must fold into something it keeps, so that the loads are not
     *     eliminated.
     */
    long touch(final long key)
    {
        final int slot = home(key);
        final long[] stamps = this.stamps;
        return entries[2 * slot + 1] + (stamps != null ? stamps[slot] : 0L);
    }

    /**
     * @param key a key.
     * @return its stamp, or {@link #MISSING} when it has none or is not here.
     */
    long stamp(final long key)
    {
        final int slot = find(key);
        return slot < 0 || stamps == null ? MISSING : stamps[slot];
    }

    /**
     * Replaces the value of a key that is here; nothing otherwise.
     *
     * @param key   a key.
     * @param value its new value, not {@link #MISSING}.
     * @param stamp its change stamp, or {@link #MISSING} to leave the stamp as it is.
     * @return whether the key was here.
     */
    boolean replace(final long key, final long value, final long stamp)
    {
        if (value == MISSING)
        {
            throw new IllegalArgumentException("the table cannot hold the value " + MISSING);
        }
        final int slot = find(key);
        if (slot < 0)
        {
            return false;
        }
        beforeWrite(slot);
        entries[2 * slot + 1] = value;
        if (stamp != MISSING)
        {
            stampSlot(slot, stamp);
        }
        return true;
    }

    /**
     * Inserts or replaces.
     *
     * @param key   a key.
     * @param value its value, not {@link #MISSING}.
     * @param stamp its change stamp, or {@link #MISSING} for none (a replaced entry keeps its stamp).
     * @return the value it replaced, or {@link #MISSING} when the key was not here.
     * @throws IllegalStateException when the key is new and the table holds {@code maxKeys} keys.
     */
    long put(final long key, final long value, final long stamp)
    {
        if (value == MISSING)
        {
            throw new IllegalArgumentException("the table cannot hold the value " + MISSING);
        }
        int slot = find(key);
        if (slot >= 0)
        {
            beforeWrite(slot);
            final long old = entries[2 * slot + 1];
            entries[2 * slot + 1] = value;
            if (stamp != MISSING)
            {
                stampSlot(slot, stamp);
            }
            return old;
        }
        if (size == maxKeys)
        {
            throw new IllegalStateException("the table holds its " + maxKeys + " keys");
        }
        if (2 * (size + 1) > mask + 1)
        {
            grow();
            slot = find(key);
        }
        slot = -slot - 1;
        beforeWrite(slot);
        entries[2 * slot] = key;
        entries[2 * slot + 1] = value;
        if (stamp != MISSING || stamps != null)
        {
            stampSlot(slot, stamp);
        }
        size++;
        return MISSING;
    }

    private void stampSlot(final int slot, final long stamp)
    {
        if (stamps == null)
        {
            // the first stamp: the array is new, so no view holds it (views of these entries see no stamps)
            stamps = new long[mask + 1];
            Arrays.fill(stamps, MISSING);
        }
        stamps[slot] = stamp;
    }

    /**
     * @param key a key.
     * @return its value before, or {@link #MISSING} when it was not here.
     */
    long remove(final long key)
    {
        int hole = find(key);
        if (hole < 0)
        {
            return MISSING;
        }
        final long[] entries = this.entries;
        beforeWrite(hole);
        final long old = entries[2 * hole + 1];
        entries[2 * hole + 1] = MISSING;
        if (stamps != null)
        {
            stamps[hole] = MISSING;
        }
        size--;
        // shift back the rest of the probe run: an entry moves into the hole when the hole lies on its probe path
        int slot = (hole + 1) & mask;
        while (entries[2 * slot + 1] != MISSING)
        {
            final int home = home(entries[2 * slot]);
            if (((slot - home) & mask) >= ((slot - hole) & mask))
            {
                beforeWrite(hole);
                beforeWrite(slot);
                entries[2 * hole] = entries[2 * slot];
                entries[2 * hole + 1] = entries[2 * slot + 1];
                entries[2 * slot + 1] = MISSING;
                if (stamps != null)
                {
                    stamps[hole] = stamps[slot];
                    stamps[slot] = MISSING;
                }
                hole = slot;
            }
            slot = (slot + 1) & mask;
        }
        return old;
    }

    /** Removes every key. O(1) when a view holds the arrays (new ones are allocated), else O(slots). */
    void clear()
    {
        if (recycled != null)
        {
            // the table restarts small: let the copies a full table needed go
            recycled.clear();
        }
        if (holdsCurrentArrays())
        {
            allocate(Math.min(INITIAL_SLOTS, maxSlots), stamps != null);
        }
        else
        {
            Arrays.fill(entries, MISSING);
            if (stamps != null)
            {
                Arrays.fill(stamps, MISSING);
            }
        }
        size = 0;
    }

    private boolean holdsCurrentArrays()
    {
        for (int i = 0; i < viewCount; i++)
        {
            if (views[i].entries == entries && !views[i].done)
            {
                return true;
            }
        }
        return false;
    }

    private void grow()
    {
        final long[] oldEntries = entries;
        final long[] oldStamps = stamps;
        // the old arrays are never written again: views that hold them read them as they are
        allocate(2 * (mask + 1), oldStamps != null);
        for (int i = 0; i < oldEntries.length; i += 2)
        {
            final long value = oldEntries[i + 1];
            if (value != MISSING)
            {
                final int slot = -find(oldEntries[i]) - 1;
                entries[2 * slot] = oldEntries[i];
                entries[2 * slot + 1] = value;
                if (oldStamps != null)
                {
                    stamps[slot] = oldStamps[i >>> 1];
                }
            }
        }
    }

    /** Call before changing {@code slot}: the copy-on-write step (class documentation). */
    private void beforeWrite(final int slot)
    {
        final int chunk = slot >>> CHUNK_SHIFT;
        if (chunkSeq[chunk] != seq)
        {
            chunkSeq[chunk] = seq;
            if (viewCount > 0)
            {
                preserve(chunk);
            }
        }
    }

    private void preserve(final int chunk)
    {
        forgetDoneViews();
        if (needing.length < viewCount)
        {
            needing = new View[views.length];
        }
        int count = 0;
        for (int i = 0; i < viewCount; i++)
        {
            final View view = views[i];
            if (view.entries == entries && view.cursor <= chunk && view.copyOf(chunk) == null)
            {
                needing[count++] = view;
            }
        }
        if (count > 0)
        {
            // counted first: a copy is flagged as one view's own only when no other view gets it
            final long[] copy = copyChunk(chunk);
            for (int i = 0; i < count; i++)
            {
                needing[i].keep(chunk, copy, count == 1);
                needing[i] = null;
            }
        }
        // the copy's reference is visible before any change of the chunk that follows
        VarHandle.storeStoreFence();
    }

    /** Drops the views whose readers need nothing more. */
    private void forgetDoneViews()
    {
        int kept = 0;
        for (int i = 0; i < viewCount; i++)
        {
            if (!views[i].done)
            {
                views[kept++] = views[i];
            }
        }
        Arrays.fill(views, kept, viewCount, null);
        viewCount = kept;
    }

    private long[] copyChunk(final int chunk)
    {
        final int slots = Math.min(CHUNK_SLOTS, mask + 1);
        final int from = chunk * slots;
        final int length = (stamps == null ? 2 : 3) * slots;
        long[] copy = recycled.poll();
        if (copy != null && copy.length == length)
        {
            recycledCopies++;
        }
        else
        {
            // none to take, or one of a table that had no stamps then (or had them): its reader is done with it
            copy = new long[length];
        }
        System.arraycopy(entries, 2 * from, copy, 0, 2 * slots);
        if (stamps != null)
        {
            System.arraycopy(stamps, from, copy, 2 * slots, slots);
        }
        chunkCopies++;
        return copy;
    }

    /**
     * A barrier: the table as it is now, for one reader. O(1): nothing is copied here.
     *
     * @return the view; it must be materialized or released, else the task keeps copying chunks for it.
     */
    View snapshot()
    {
        if (recycled == null)
        {
            recycled = new ManyToOneConcurrentArrayQueue<>(maxSlots >>> CHUNK_SHIFT);
        }
        final View view = new View(entries, stamps, size, Math.min(CHUNK_SLOTS, mask + 1), recycled);
        seq++;
        forgetDoneViews();
        if (viewCount == views.length)
        {
            views = Arrays.copyOf(views, 2 * viewCount);
        }
        views[viewCount++] = view;
        return view;
    }

    /**
     * @param consumer receives every entry, in slot order; it must not change the table.
     */
    void forEach(final EntryConsumer consumer)
    {
        final long[] entries = this.entries;
        for (int i = 0; i < entries.length; i += 2)
        {
            if (entries[i + 1] != MISSING)
            {
                consumer.accept(entries[i], entries[i + 1]);
            }
        }
    }

    /**
     * Hands over every key whose change stamp is {@code since} or later: changed after that barrier (local recovery
     * reverts them). A key without a stamp is not handed over. O(slots); task thread.
     *
     * @param since a checkpoint id.
     * @param keys  takes each such key.
     */
    void forEachStampedSince(final long since, final java.util.function.LongConsumer keys)
    {
        final long[] entries = this.entries;
        final long[] stamps = this.stamps;
        if (stamps == null)
        {
            return;
        }
        for (int slot = 0; slot < stamps.length; slot++)
        {
            if (entries[2 * slot + 1] != MISSING && stamps[slot] != MISSING && stamps[slot] >= since)
            {
                keys.accept(entries[2 * slot]);
            }
        }
    }

    /** @return the keys held. */
    int size()
    {
        return size;
    }

    /** @return the most keys held. */
    int maxKeys()
    {
        return maxKeys;
    }

    /** @return the slots allocated now; for tests. */
    int slots()
    {
        return mask + 1;
    }

    /** @return the chunk copies made for views so far; for tests. */
    long chunkCopies()
    {
        return chunkCopies;
    }

    /** @return how many of {@link #chunkCopies()} reused an array a reader was done with; for tests. */
    long recycledCopies()
    {
        return recycledCopies;
    }

    /** @return how many copies readers gave back that the task has not taken again; for tests. */
    int recycledHeld()
    {
        return recycled == null ? 0 : recycled.size();
    }

    /** Receives one chunk of a view as of its barrier ({@link View#forEachChunk}). */
    @FunctionalInterface
    interface ChunkConsumer
    {
        /**
         * Reads only; must not keep a reference to the arrays after it returns: they hold the next chunk then, or go
         * back to the table for a later copy, and later another view's.
         *
         * @param entries key at {@code 2i}, value at {@code 2i + 1}, for {@code i < slots}; a value of
         *                {@link #MISSING} marks slot {@code i} empty. It may be longer (the task's copy of the chunk,
         *                its stamps after the entries): read nothing past {@code 2 * slots}.
         * @param stamps  stamp of slot {@code i} ({@link #MISSING} when none), or null when the table had none.
         * @param slots   the chunk's slots.
         */
        void accept(long[] entries, long[] stamps, int slots);
    }

    /** Receives one entry. */
    @FunctionalInterface
    interface EntryConsumer
    {
        /**
         * @param key   the key.
         * @param value its value.
         */
        void accept(long key, long value);
    }

    /**
     * The table at one barrier. {@link #materialize} reads it once, then the view is done; {@link #release} ends it
     * unread.
     */
    static final class View
    {
        private final long[] entries;
        private final long[] stamps;
        private final int size;
        private final int chunkSlots;
        /** Chunks the reader has finished; written by the reader, read by the task. */
        private volatile int cursor;
        /** Set when the reader needs nothing more; the task then forgets the view. */
        private volatile boolean done;
        /** The task's copies of chunks as of the barrier; allocated by the task at the first copy. */
        private volatile Copies copies;
        /** Where the reader gives back the copies it alone had; the table's pool. */
        private final ManyToOneConcurrentArrayQueue<long[]> recycled;

        private View(final long[] entries, final long[] stamps, final int size, final int chunkSlots,
            final ManyToOneConcurrentArrayQueue<long[]> recycled)
        {
            this.entries = entries;
            this.stamps = stamps;
            this.size = size;
            this.chunkSlots = chunkSlots;
            this.recycled = recycled;
        }

        /** @return the keys held at the barrier; any thread. */
        int size()
        {
            return size;
        }

        private long[] copyOf(final int chunk)
        {
            final Copies copies = this.copies;
            return copies == null ? null : copies.arrays.get(chunk);
        }

        /**
         * Task thread.
         *
         * @param alone whether no other view has {@code copy}: the reader may recycle it once read.
         */
        private void keep(final int chunk, final long[] copy, final boolean alone)
        {
            Copies copies = this.copies;
            if (copies == null)
            {
                copies = new Copies(entries.length / 2 / chunkSlots);
                this.copies = copies;
            }
            copies.alone[chunk] = alone;
            // publishes the flag with the copy: the reader reads it after this element (a volatile load)
            copies.arrays.set(chunk, copy);
        }

        /**
         * Reads the table as of the barrier into arrays of its own, then marks the view done. Once, on the reader.
         *
         * @return the table at the barrier.
         */
        Frozen materialize()
        {
            final long[] outEntries = new long[entries.length];
            final long[] outStamps = stamps == null ? null : new long[entries.length / 2];
            final int[] from = new int[1];
            forEachChunk((chunkEntries, chunkStamps, slots) ->
            {
                System.arraycopy(chunkEntries, 0, outEntries, 2 * from[0], 2 * slots);
                if (chunkStamps != null)
                {
                    System.arraycopy(chunkStamps, 0, outStamps, from[0], slots);
                }
                from[0] += slots;
            });
            return new Frozen(outEntries, outStamps, size);
        }

        /**
         * Reads the table as of the barrier chunk by chunk (the reading protocol of the class documentation: the
         * task's copy of a chunk if it made one, read in place; else copy the live chunk into one chunk-sized buffer,
         * a load-load fence, and take the task's copy if one appeared meanwhile; then pass the chunk), then marks the
         * view done. Once, on the reader; {@link #materialize} is built on it.
         *
         * @param consumer receives each chunk's slots as of the barrier; the arrays are reused for the next chunk. It
         *                 should be quick: until the reader has passed a chunk, the task copies it at its first change.
         */
        void forEachChunk(final ChunkConsumer consumer)
        {
            if (done)
            {
                throw new IllegalStateException("the view was already read or released");
            }
            final int slots = entries.length / 2;
            final long[] chunkEntries = spare(SPARE_CHUNK_ENTRIES, 2 * chunkSlots);
            final long[] chunkStamps = stamps == null ? null : spare(SPARE_CHUNK_STAMPS, chunkSlots);
            final int chunks = slots / chunkSlots;
            try
            {
                for (int chunk = 0; chunk < chunks; chunk++)
                {
                    // a copy the task made holds the chunk as of the barrier and never changes while this view may
                    // read it: read in place, no copy of the live chunk (at a million uniform keys the task has
                    // copied most chunks before the reader gets to them)
                    Copies copies = this.copies;
                    long[] copy = copies == null ? null : copies.arrays.get(chunk);
                    if (copy == null)
                    {
                        final int from = chunk * chunkSlots;
                        System.arraycopy(entries, 2 * from, chunkEntries, 0, 2 * chunkSlots);
                        if (stamps != null)
                        {
                            System.arraycopy(stamps, from, chunkStamps, 0, chunkSlots);
                        }
                        // a change seen above implies its copy's reference is seen below
                        VarHandle.loadLoadFence();
                        copies = this.copies;
                        copy = copies == null ? null : copies.arrays.get(chunk);
                    }
                    if (copy != null && stamps != null)
                    {
                        // stamps were copied with the chunk, since this view's arrays had them at the barrier
                        System.arraycopy(copy, 2 * chunkSlots, chunkStamps, 0, chunkSlots);
                    }
                    // the chunk as of the barrier is in hand (the task's copy or the buffer): the task may change
                    // the live chunk from now on
                    cursor = chunk + 1;
                    consumer.accept(copy != null ? copy : chunkEntries, chunkStamps, chunkSlots);
                    if (copy != null && copies.alone[chunk])
                    {
                        // read, and no other view has it: the task may copy a later chunk into it (a full pool
                        // leaves it to the collector)
                        recycled.offer(copy);
                    }
                }
            }
            finally
            {
                // read once, even when the consumer failed: no second read may reach copies already given back
                cursor = Integer.MAX_VALUE;
                done = true;
                copies = null;
            }
            // the consumer keeps no reference to the buffers (they were reused from chunk to chunk): the next read on
            // this thread may have them
            SPARE_CHUNK_ENTRIES.set(chunkEntries);
            if (chunkStamps != null)
            {
                SPARE_CHUNK_STAMPS.set(chunkStamps);
            }
        }

        /** Ends the view unread (or after reading); idempotent, any thread. */
        void release()
        {
            cursor = Integer.MAX_VALUE;
            done = true;
            copies = null;
        }
    }

    /**
     * A view's copies of chunks and, per chunk, whether its copy went to that view alone: written by the task, each
     * flag before the volatile store of its copy, and read by the view's reader after the volatile load of the copy
     * through the same holder, so a reader never pairs a copy with another holder's flag.
     */
    private static final class Copies
    {
        final AtomicReferenceArray<long[]> arrays;
        final boolean[] alone;

        Copies(final int chunks)
        {
            this.arrays = new AtomicReferenceArray<>(chunks);
            this.alone = new boolean[chunks];
        }
    }

    /** The table at one barrier, owned by its reader. */
    static final class Frozen
    {
        private final long[] entries;
        private final long[] stamps;
        private final int size;

        private Frozen(final long[] entries, final long[] stamps, final int size)
        {
            this.entries = entries;
            this.stamps = stamps;
            this.size = size;
        }

        /** @return the keys held. */
        int size()
        {
            return size;
        }

        /** @return the number of slots; occupied ones hold entries. */
        int slots()
        {
            return entries.length / 2;
        }

        /** @return whether slot {@code i} holds an entry. */
        boolean occupied(final int slot)
        {
            return entries[2 * slot + 1] != MISSING;
        }

        long keyAt(final int slot)
        {
            return entries[2 * slot];
        }

        long valueAt(final int slot)
        {
            return entries[2 * slot + 1];
        }

        /** @return the stamp of slot {@code i}, or {@link #MISSING} when none. */
        long stampAt(final int slot)
        {
            return stamps == null ? MISSING : stamps[slot];
        }
    }
}
