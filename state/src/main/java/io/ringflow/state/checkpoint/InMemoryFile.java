package io.ringflow.state.checkpoint;

import java.util.Arrays;

/**
 * A state file kept in memory, as the chunks it was written in: growing it copies nothing (a byte-array stream
 * doubles and copies as it grows, then copies again to finish: about three times the file in garbage per
 * checkpoint), and finishing copies nothing. Chunks come from the storage's {@link ChunkPool}, as arrays of a power of
 * two from 4 KiB to 4 MiB: within one write, each new chunk is the length for what is left of that write; a write
 * that finds the last chunk full asks for at least that chunk's length again. So a file written in one call is one
 * chunk up to 4 MiB, a file written in equal slices (the snapshot writer's chunks) is chunks of one length, and files
 * of about the same size ask for the same lengths. Every chunk but the last is full, and the last is no longer than
 * twice what it holds or than the full chunk before it: a file's unused room is less than 4 KiB or than its bytes,
 * and at most 4 MiB.
 * Read back whole only on restore ({@link #bytes}, a copy); {@link #recycle} gives the chunks back once the file is
 * dropped.
 *
 * <p>Thread contract: written and finished by one thread; published to readers after {@link #finish} through a
 * concurrent map (shared files) or a checkpoint's synchronized {@link CheckpointFiles}, and not written after.
 * {@link #bytes}, {@link #recycle} and {@link #corrupt} synchronize on the file, so a read copies every byte before, or
 * finds nothing after, the chunks go back to the pool.
 */
final class InMemoryFile
{
    private final ChunkPool pool;
    /** Null once recycled. */
    private byte[][] chunks = new byte[4][];
    private int chunkCount;
    /** Bytes used in the last chunk. */
    private int lastUsed;
    private long length;

    /** @param pool where chunks come from, and go back to when the file is recycled. */
    InMemoryFile(final ChunkPool pool)
    {
        this.pool = pool;
    }

    /** Appends {@code count} bytes of {@code bytes} from {@code offset}. */
    void write(final byte[] bytes, final int offset, final int count)
    {
        int from = offset;
        int left = count;
        // a write that finds the last chunk full asks for at least its length again (equal slices, equal chunks)
        int atLeast = chunkCount == 0 ? 0 : chunks[chunkCount - 1].length;
        while (left > 0)
        {
            if (chunkCount == 0 || lastUsed == chunks[chunkCount - 1].length)
            {
                addChunk(ChunkPool.lengthFor(Math.max(left, atLeast)));
                atLeast = 0;
            }
            final byte[] last = chunks[chunkCount - 1];
            final int n = Math.min(left, last.length - lastUsed);
            System.arraycopy(bytes, from, last, lastUsed, n);
            lastUsed += n;
            from += n;
            left -= n;
            length += n;
        }
    }

    /** Adds an empty chunk of {@code chunkLength} bytes, from the pool. */
    private void addChunk(final int chunkLength)
    {
        if (chunkCount == chunks.length)
        {
            chunks = Arrays.copyOf(chunks, 2 * chunkCount);
        }
        chunks[chunkCount++] = pool.take(chunkLength);
        lastUsed = 0;
    }

    /** The file is complete; its chunks are published by the map or {@link CheckpointFiles} the caller puts it in. */
    void finish()
    {
        // nothing to trim: the last chunk's unused room is bounded by its length (see the class documentation)
    }

    /** @return the file's length in bytes. */
    long length()
    {
        return length;
    }

    /** @return how many chunks the file was written in. */
    int chunkCount()
    {
        return chunkCount;
    }

    /**
     * @return a copy of the file's bytes, joined into a new array of exactly its length (a restore's read: the
     *     chunks themselves go back to the pool once the file is dropped, so no reader may keep them), or null when
     *     the file was recycled (dropped) before this read.
     * @throws IllegalStateException when it is larger than an array can hold.
     */
    synchronized byte[] bytes()
    {
        if (chunks == null)
        {
            return null;
        }
        if (length > Integer.MAX_VALUE - 8)
        {
            throw new IllegalStateException("an in-memory state file of " + length + " bytes is larger than an array " +
                "can hold");
        }
        final byte[] joined = new byte[(int)length];
        int at = 0;
        for (int i = 0; i < chunkCount; i++)
        {
            final int n = i == chunkCount - 1 ? lastUsed : chunks[i].length;
            System.arraycopy(chunks[i], 0, joined, at, n);
            at += n;
        }
        return joined;
    }

    /**
     * Gives the chunks back to the pool, once the file was removed from the storage's maps (no new reader can find
     * it); a read already holding the file finds nothing afterwards. Idempotent.
     */
    synchronized void recycle()
    {
        if (chunks == null)
        {
            return;
        }
        for (int i = 0; i < chunkCount; i++)
        {
            pool.give(chunks[i]);
        }
        chunks = null;
    }

    /** @return the bytes of the arrays this file holds (its chunks' lengths, used or not); 0 once recycled. */
    synchronized long heldBytes()
    {
        long held = 0;
        for (int i = 0; chunks != null && i < chunkCount; i++)
        {
            held += chunks[i].length;
        }
        return held;
    }

    /** Flips one byte in place, for tests of corruption detection. */
    synchronized void corrupt(final int index)
    {
        int at = index;
        for (int i = 0; chunks != null && i < chunkCount; i++)
        {
            final int n = i == chunkCount - 1 ? lastUsed : chunks[i].length;
            if (at < n)
            {
                chunks[i][at] ^= 0x5A;
                return;
            }
            at -= n;
        }
        throw new IndexOutOfBoundsException("byte " + index + " of a file of " + length + " bytes");
    }
}
