package io.ringflow.state.checkpoint;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * The arrays of dropped in-memory state files, kept for the files of later checkpoints: with checkpoints of a steady
 * size, the file of checkpoint n is written into the arrays of the checkpoint that retention dropped before it, so
 * in-memory checkpoints allocate no state-file arrays once the first few are dropped.
 *
 * <p>Every array is a power of two from {@link #SMALLEST} to {@link #LARGEST} bytes ({@link #lengthFor}), and a take
 * is served only by an array of exactly the length asked for: a file whose size moves a little from one checkpoint
 * to the next asks for the same lengths, so it finds the arrays of the one before, and no file takes an array much
 * larger than it needs.
 *
 * <p>An array is given only once no reader can reach it: its file was removed from the storage's maps, and a read
 * copies a file's bytes out under the file's lock ({@link InMemoryFile#bytes}), so a recycled array is never seen by
 * a reader. The pool holds at most {@link #limitTo limit} bytes: the storage sets it, at each commit, to the bytes of
 * the arrays that commit dropped (a checkpoint retention let go, shared files no longer referenced) and an eighth, so
 * about one checkpoint's worth of memory beyond what retention keeps, and to 0 once everything is discarded. Arrays
 * that no take used are evicted oldest first.
 *
 * <p>Thread-safe (synchronized): files are written by several task and flusher threads at once, and dropped under the
 * storage's lock. Called once per chunk (a few per checkpoint, a few hundred for a snapshot of a million keys), never
 * per record; its scans are over the few arrays one checkpoint dropped.
 */
final class ChunkPool
{
    static final int SMALLEST = 4 * 1024;
    static final int LARGEST = 4 * 1024 * 1024;

    /** Arrays free for the taking, oldest first. */
    private final ArrayDeque<byte[]> free = new ArrayDeque<>();
    private long freeBytes;
    private long limitBytes;
    private long allocated;

    /**
     * @param wanted the bytes a chunk should hold.
     * @return the length of the array for it: the power of two at least {@code wanted}, within [{@link #SMALLEST},
     *     {@link #LARGEST}].
     */
    static int lengthFor(final int wanted)
    {
        if (wanted >= LARGEST)
        {
            return LARGEST;
        }
        return Math.max(SMALLEST, Integer.highestOneBit(Math.max(1, wanted - 1)) << 1);
    }

    /**
     * @param length a length {@link #lengthFor} gave.
     * @return a free array of exactly that length (its contents are stale), or a new one.
     */
    synchronized byte[] take(final int length)
    {
        final byte[] oldest = free.peekFirst();
        if (oldest != null && oldest.length == length)
        {
            // the usual take (a storage's chunks are mostly of one length): no iterator to search with
            free.pollFirst();
            freeBytes -= length;
            return oldest;
        }
        for (final Iterator<byte[]> it = free.iterator(); it.hasNext(); )
        {
            final byte[] candidate = it.next();
            if (candidate.length == length)
            {
                it.remove();
                freeBytes -= length;
                return candidate;
            }
        }
        allocated++;
        return new byte[length];
    }

    /**
     * Keeps an array no reader can reach any more, evicting the oldest free arrays while the pool holds more than its
     * limit.
     *
     * @param chunk the array.
     */
    synchronized void give(final byte[] chunk)
    {
        free.addLast(chunk);
        freeBytes += chunk.length;
        evictBeyondLimit();
    }

    /**
     * Sets how many bytes the pool may hold (the arrays of one dropped checkpoint), evicting the oldest free arrays
     * beyond it.
     *
     * @param bytes the limit.
     */
    synchronized void limitTo(final long bytes)
    {
        limitBytes = bytes;
        evictBeyondLimit();
    }

    /** @return how many arrays {@link #take} had to allocate so far: the measure tests count. */
    synchronized long allocated()
    {
        return allocated;
    }

    /** @return the bytes of the arrays held free. */
    synchronized long freeBytes()
    {
        return freeBytes;
    }

    private void evictBeyondLimit()
    {
        while (freeBytes > limitBytes && !free.isEmpty())
        {
            freeBytes -= free.removeFirst().length;
        }
    }
}
