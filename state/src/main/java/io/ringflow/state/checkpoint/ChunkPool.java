package io.ringflow.state.checkpoint;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * The arrays of dropped in-memory state files, kept for the files of later checkpoints: with checkpoints of a steady
 * size, the file of checkpoint n is written into the arrays of the checkpoint that retention dropped before it, so
 * in-memory checkpoints allocate no state-file arrays once the first few are dropped.
 *
 * <p>An array is given only once no reader can reach it: its file was removed from the storage's maps, and a read
 * copies a file's bytes out under the file's lock ({@link InMemoryFile#bytes}), so a recycled array is never seen by
 * a reader. The pool holds at most {@link #limitBytes} bytes, the size of the largest checkpoint dropped at the last
 * drop (set by the storage before it gives that checkpoint's arrays): about one checkpoint's worth of memory beyond
 * what retention keeps. Arrays that no take used are evicted oldest first.
 *
 * <p>Thread-safe (synchronized): files are written by several task and flusher threads at once, and dropped under the
 * storage's lock. Called a few times per checkpoint, never per record.
 */
final class ChunkPool
{
    /** Arrays free for the taking, oldest first. Few: one to a few dozen chunks per checkpoint. */
    private final ArrayDeque<byte[]> free = new ArrayDeque<>();
    private long freeBytes;
    private long limitBytes;
    private long allocated;

    /**
     * @param minLength the length the caller would like; a file takes any chunk length, so less will do.
     * @return the smallest free array of {@code minLength} to {@code 2 * minLength} bytes; else the largest free
     *     array shorter than {@code minLength} (the file then takes one more chunk); else a new array with an eighth
     *     more room than asked, so that a file that grows a little from one checkpoint to the next still fits in the
     *     arrays of the one before. Arrays longer than twice the request are left alone, so that a file much smaller
     *     than an earlier one does not keep its large arrays circulating. A free array's contents are stale.
     */
    synchronized byte[] take(final int minLength)
    {
        byte[] fitting = null;
        byte[] shorter = null;
        for (final byte[] candidate : free)
        {
            final int length = candidate.length;
            if (length >= minLength)
            {
                if (length / 2 <= minLength && (fitting == null || length < fitting.length))
                {
                    fitting = candidate;
                }
            }
            else if (shorter == null || length > shorter.length)
            {
                shorter = candidate;
            }
        }
        final byte[] taken = fitting != null ? fitting : shorter;
        if (taken != null)
        {
            removeIdentical(taken);
            freeBytes -= taken.length;
            return taken;
        }
        allocated++;
        return new byte[(int)Math.min(Integer.MAX_VALUE - 8, minLength + (long)(minLength >>> 3))];
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
        while (freeBytes > limitBytes && !free.isEmpty())
        {
            freeBytes -= free.removeFirst().length;
        }
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
        while (freeBytes > limitBytes && !free.isEmpty())
        {
            freeBytes -= free.removeFirst().length;
        }
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

    private void removeIdentical(final byte[] chunk)
    {
        for (final Iterator<byte[]> it = free.iterator(); it.hasNext(); )
        {
            if (it.next() == chunk)
            {
                it.remove();
                return;
            }
        }
    }
}
