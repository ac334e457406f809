package io.ringflow.state.checkpoint;

import java.util.Arrays;

/**
 * A state file kept in memory, as the chunks it was written in: growing it copies nothing (a byte-array stream
 * doubles and copies as it grows, then copies again to finish: about three times the file in garbage per
 * checkpoint), and finishing copies at most its last chunk, to trim it. A new chunk is as large as the file so far
 * (at least 4 KiB, at most 4 MiB), or as what is left of the write that needs it if that is more: a file written
 * in one call (a small snapshot's single chunk) is one array of exactly its size, and a large one has at most one
 * 4 MiB chunk of slack while written. Read back whole only on restore ({@link #bytes}).
 *
 * <p>Thread contract: written and finished by one thread; published to readers through a concurrent map after
 * {@link #finish}, and not written after.
 */
final class InMemoryFile
{
    private static final int FIRST_CHUNK = 4 * 1024;
    private static final int LARGEST_CHUNK = 4 * 1024 * 1024;

    private byte[][] chunks = new byte[4][];
    private int chunkCount;
    /** Bytes used in the last chunk. */
    private int lastUsed;
    private long length;

    /** Appends {@code count} bytes of {@code bytes} from {@code offset}. */
    void write(final byte[] bytes, final int offset, final int count)
    {
        int from = offset;
        int left = count;
        while (left > 0)
        {
            if (chunkCount == 0 || lastUsed == chunks[chunkCount - 1].length)
            {
                addChunk(left);
            }
            final byte[] last = chunks[chunkCount - 1];
            final int n = Math.min(left, last.length - lastUsed);
            System.arraycopy(bytes, from, last, lastUsed, n);
            lastUsed += n;
            from += n;
            left -= n;
            // counted as it goes, so that the next chunk of one large write is sized by what is written so far
            length += n;
        }
    }

    /** Adds an empty chunk for a write that has {@code needed} bytes left to place. */
    private void addChunk(final int needed)
    {
        if (chunkCount == chunks.length)
        {
            chunks = Arrays.copyOf(chunks, 2 * chunkCount);
        }
        chunks[chunkCount++] = new byte[(int)Math.max(FIRST_CHUNK, Math.min(LARGEST_CHUNK, Math.max(length, needed)))];
        lastUsed = 0;
    }

    /** Trims the last chunk to what it holds; the file is complete. */
    void finish()
    {
        if (chunkCount > 0 && lastUsed < chunks[chunkCount - 1].length)
        {
            chunks[chunkCount - 1] = Arrays.copyOf(chunks[chunkCount - 1], lastUsed);
        }
    }

    /** @return the file's length in bytes. */
    long length()
    {
        return length;
    }

    /**
     * @return the file's bytes: its one chunk itself (not to be changed by the caller, like the array this storage
     *     used to keep), or its chunks joined into a new array (a restore's read).
     * @throws IllegalStateException when it is larger than an array can hold.
     */
    byte[] bytes()
    {
        if (chunkCount == 1)
        {
            return chunks[0];
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

    /** Flips one byte in place, for tests of corruption detection. */
    void corrupt(final int index)
    {
        int at = index;
        for (int i = 0; i < chunkCount; i++)
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
