package io.ringflow.state.chronicle;

import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.snapshot.KeyedSnapshotFormat;
import io.ringflow.state.snapshot.KeyedSnapshotWriter;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * A snapshot's entries, gathered on the flusher in whatever order Chronicle Map yields them and handed to the
 * {@link KeyedSnapshotWriter} grouped by key group, ascending, as it requires: one growable buffer per key group,
 * so there is nothing to sort.
 *
 * <pre>
 *   one entry in a key group's buffer (little-endian):
 *   +-------------+------------+-----------+----------------+---------------+--------------+-------------+
 *   | state index | key length | key bytes | sub-key length | sub-key bytes | value length | value bytes |
 *   | int         | int        | (codec's) | int, -1: none  | (codec's)     | int          | (codec's)   |
 *   +-------------+------------+-----------+----------------+---------------+--------------+-------------+
 * </pre>
 *
 * <p><b>Memory.</b> The buckets hold at most {@code spillAfterBytes} (about the encoded size plus 16 bytes per
 * entry): past that, every bucket is appended to a spill file as one run (per key group: where its bytes start, how
 * many, how many entries) and emptied. {@link #writeTo} then writes each key group's spilled runs in the order they
 * were spilled, then what is still buffered, so the entries of a key group keep the order they were added in (a
 * delta's tombstone stays before the entries of its key that follow it). The spill file is deleted from its
 * directory as soon as it is open (so nothing is left behind by a crash) and closed by {@link #writeTo} or
 * {@link #close}. A written snapshot leaves up to {@link #KEPT_BUCKET_BYTES} of its buckets to the next on its thread
 * for the same number of key groups (a bucket smaller than the next one's share is replaced), so a flusher's deltas
 * of similar sizes write into the same arrays. Thread contract:
 * one flusher.
 */
final class KeyGroupBuckets implements AutoCloseable
{
    private static final int MAX_BUCKET = Integer.MAX_VALUE - 64;
    private static final LongRun[] NO_RUNS = new LongRun[0];
    /** Before the first spill: shared, never written (a spill copies them into longer arrays). */
    private static final long[][] NO_LONG_RUNS = new long[0][];
    private static final int[][] NO_INT_RUNS = new int[0][];
    /**
     * Per thread, the bucket arrays of its last writeTos, at most one per length (a job's flusher serves subtasks of
     * different key-group counts) and {@link #SPARE_ARRAYS} in all, each for the next snapshot of its length: each
     * holds the buckets it kept (together at most {@link #KEPT_BUCKET_BYTES}) and null for the others.
     */
    private static final int SPARE_ARRAYS = 4;
    private static final ThreadLocal<CodecBuffer[][]> SPARE_BUCKETS =
        ThreadLocal.withInitial(() -> new CodecBuffer[SPARE_ARRAYS][]);
    /**
     * How many bytes of buckets a thread keeps for its next snapshots: a thirty-second of the maximum heap, between
     * 1 MiB and 128 MiB. A flusher writing the deltas of a large store otherwise grew every key group's bucket again
     * at every checkpoint, by doubling: about 70 % of the bytes a job at 10 M keys allocated (measured); there a
     * delta and its slice fill about 60–80 MB of buckets, which a sixty-fourth of a 3 GB heap did not keep whole.
     */
    static final long KEPT_BUCKET_BYTES = Math.max(1L << 20, Math.min(128L << 20,
        Runtime.getRuntime().maxMemory() / 32));
    /**
     * The default {@code spillAfterBytes}: a sixteenth of the maximum heap, between 1 MiB and 256 MiB, so that a
     * snapshot larger than the heap is flushed through a spill file.
     */
    static final long DEFAULT_SPILL_AFTER_BYTES = Math.max(1L << 20, Math.min(256L << 20,
        Runtime.getRuntime().maxMemory() / 16));

    private final KeyGroupRange range;
    /**
     * Growable buffers, one per key group of the range, created with its first entry. This array and the next two are
     * taken from this thread's spares and given back by {@link #writeTo}, then null.
     */
    private CodecBuffer[] buckets;
    private int[] counts;
    private int[] limits;
    /** A bucket's first capacity: its share of the expected entries, so that most never grow. */
    private final int initialBucketBytes;
    /** Runs of {@code Long} entries already sorted by key group, written before each key group's bucket. */
    private LongRun[] runs = NO_RUNS;
    private final long spillAfterBytes;
    /** Where the spill file is created: the state's directory, or null for the JVM's temporary directory. */
    private final Path spillDirectory;
    /** What the buckets hold now. */
    private long bufferedBytes;
    /** How many buckets this one created (the others were kept by its thread's last snapshot). */
    private int createdBuckets;
    /** Open once the buckets first outgrew {@link #spillAfterBytes}. */
    private FileChannel spill;
    private OutputStream spillOut;
    private long spillLength;
    /** Per spilled run, per key group of the range: where its bytes start in the spill file, their length, entries. */
    private long[][] spilledOffsets = NO_LONG_RUNS;
    private int[][] spilledLengths = NO_INT_RUNS;
    private int[][] spilledCounts = NO_INT_RUNS;
    private byte[] readBack;

    /**
     * The {@code Long} keys and values of one state (both of the built-in codec), ordered by key group: the entries of
     * the range's {@code i}-th key group are at {@code [groupStarts[i], groupStarts[i + 1])}. Written straight by
     * {@link KeyedSnapshotWriter#longEntries}, never encoded into a bucket.
     *
     * @param stateIndex  the state's index in the snapshot.
     * @param keys        the keys; the arrays may be longer than the run ({@link RunArrays}): only the first
     *                    {@link #size()} are its entries.
     * @param values      their values.
     * @param groupStarts per key group of the range, where its entries start; one more element than the range, the
     *                    last one the run's size.
     */
    record LongRun(int stateIndex, long[] keys, long[] values, int[] groupStarts)
    {
        int count(final int slot)
        {
            return groupStarts[slot + 1] - groupStarts[slot];
        }

        /** @return the run's entries. */
        int size()
        {
            return groupStarts[groupStarts.length - 1];
        }
    }

    /** @param range the key groups of the store being snapshotted. */
    KeyGroupBuckets(final KeyGroupRange range)
    {
        this(range, 0);
    }

    /**
     * @param range           the key groups of the store being snapshotted.
     * @param expectedEntries about how many entries will be added (only sizes the buckets).
     */
    KeyGroupBuckets(final KeyGroupRange range, final long expectedEntries)
    {
        this(range, expectedEntries, DEFAULT_SPILL_AFTER_BYTES, null);
    }

    /**
     * @param range           the key groups of the store being snapshotted.
     * @param expectedEntries about how many entries will be added (only sizes the buckets).
     * @param spillAfterBytes the most the buckets hold before they are spilled, at least 1.
     * @param spillDirectory  where to create the spill file; null for the JVM's temporary directory.
     */
    KeyGroupBuckets(final KeyGroupRange range, final long expectedEntries, final long spillAfterBytes,
        final Path spillDirectory)
    {
        if (spillAfterBytes < 1)
        {
            throw new IllegalArgumentException("spillAfterBytes must be at least 1, not " + spillAfterBytes);
        }
        this.spillAfterBytes = spillAfterBytes;
        // resolved when a spill needs it: most snapshots never spill
        this.spillDirectory = spillDirectory;
        // an entry of a Long key and a Long value takes 32 bytes here; a quarter more for uneven key groups
        this.initialBucketBytes = (int)Math.max(64, Math.min(64 * 1024, expectedEntries * 40 / range.size() + 64));
        this.range = range;
        this.buckets = takeBuckets(range.size());
        // this thread's from an earlier snapshot when the range is the same; writeTo gives them back
        this.counts = RunArrays.takeZeroedInts(range.size());
        this.limits = RunArrays.takeZeroedInts(range.size());
    }

    private static CodecBuffer[] takeBuckets(final int length)
    {
        final CodecBuffer[][] spares = SPARE_BUCKETS.get();
        for (int i = 0; i < spares.length; i++)
        {
            final CodecBuffer[] spare = spares[i];
            if (spare != null && spare.length == length)
            {
                spares[i] = null;
                return spare;
            }
        }
        return new CodecBuffer[length];
    }

    /**
     * Keeps {@code buckets} for this thread's next snapshot of its length: the buckets that fit what the thread's
     * other spare arrays leave of {@link #KEPT_BUCKET_BYTES}, the others dropped. Replaces a spare of the same length,
     * else takes a free place, else the first place.
     */
    private static void giveBuckets(final CodecBuffer[] buckets)
    {
        final CodecBuffer[][] spares = SPARE_BUCKETS.get();
        int place = -1;
        for (int i = 0; i < spares.length; i++)
        {
            if (spares[i] == null ? place < 0 : spares[i].length == buckets.length)
            {
                place = i;
            }
        }
        place = Math.max(0, place);
        spares[place] = null;
        long kept = 0;
        for (final CodecBuffer[] spare : spares)
        {
            if (spare != null)
            {
                for (final CodecBuffer bucket : spare)
                {
                    kept += bucket == null ? 0 : bucket.capacity();
                }
            }
        }
        for (int slot = 0; slot < buckets.length; slot++)
        {
            final CodecBuffer bucket = buckets[slot];
            if (bucket != null && kept + bucket.capacity() <= KEPT_BUCKET_BYTES)
            {
                kept += bucket.capacity();
            }
            else
            {
                buckets[slot] = null;
            }
        }
        spares[place] = buckets;
    }

    /**
     * @param keyGroup        the entry's key group.
     * @param stateIndex      its state's index in the snapshot.
     * @param storedKey       the key in {@link StoredKeyLayout}.
     * @param storedKeyLength its length, prefix included.
     * @param subKey          the encoded sub-key (a map state's user key), or null.
     * @param subKeyOffset    where it starts.
     * @param subKeyLength    its length; ignored without a sub-key.
     * @param value           the encoded value.
     * @param valueOffset     where it starts.
     * @param valueLength     its length.
     * @throws IllegalStateException when the key group is not this store's, or one key group exceeds 2 GiB.
     */
    void add(
        final int keyGroup, final int stateIndex, final byte[] storedKey, final int storedKeyLength,
        final byte[] subKey, final int subKeyOffset, final int subKeyLength,
        final byte[] value, final int valueOffset, final int valueLength)
    {
        if (!range.contains(keyGroup))
        {
            throw new IllegalStateException("a key of key group " + keyGroup + " is held by a store that owns key " +
                "groups " + range.start() + ".." + range.end() + ": keys must reach the subtask that owns their key " +
                "group");
        }
        final int slot = keyGroup - range.start();
        CodecBuffer bucket = buckets[slot];
        final int start = limits[slot];
        if (bucket == null || start == 0 && bucket.capacity() < initialBucketBytes)
        {
            // none yet, or one kept by a smaller snapshot: a new one of this snapshot's share
            bucket = CodecBuffer.growable(initialBucketBytes);
            buckets[slot] = bucket;
            createdBuckets++;
        }
        final int keyLength = storedKeyLength - StoredKeyLayout.KEY_OFFSET;
        final int subKeyBytes = subKey == null ? 0 : subKeyLength;
        if ((long)start + 16 + keyLength + subKeyBytes + Math.max(0, valueLength) > MAX_BUCKET)
        {
            throw new IllegalStateException("key group " + keyGroup + " holds more than 2 GiB of state, which a " +
                "snapshot cannot hold yet");
        }
        int position = start;
        bucket.putInt(position, stateIndex);
        bucket.putInt(position + 4, keyLength);
        bucket.putBytes(position + 8, storedKey, StoredKeyLayout.KEY_OFFSET, keyLength);
        position += 8 + keyLength;
        bucket.putInt(position, subKey == null ? -1 : subKeyLength);
        if (subKey != null)
        {
            bucket.putBytes(position + 4, subKey, subKeyOffset, subKeyLength);
        }
        position += 4 + subKeyBytes;
        bucket.putInt(position, valueLength);
        if (value != null)
        {
            bucket.putBytes(position + 4, value, valueOffset, valueLength);
        }
        limits[slot] = position + 4 + Math.max(0, valueLength);
        counts[slot]++;
        bufferedBytes += limits[slot] - start;
        if (bufferedBytes > spillAfterBytes)
        {
            spill();
        }
    }

    /** Appends every bucket to the spill file as one run, and empties them (keeping their arrays). */
    private void spill()
    {
        final Path directory = spillDirectory != null ? spillDirectory : Path.of(System.getProperty("java.io.tmpdir"));
        try
        {
            if (spill == null)
            {
                Files.createDirectories(directory);
                final Path file = Files.createTempFile(directory, "ringflow-snapshot-", ".spill");
                spill = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    StandardOpenOption.DELETE_ON_CLOSE);
                try
                {
                    Files.deleteIfExists(file); // the open channel keeps it readable; a crash leaves nothing
                }
                catch (final IOException stillThere)
                {
                    // DELETE_ON_CLOSE removes it when the channel closes
                }
                spillOut = new BufferedOutputStream(Channels.newOutputStream(spill), 1 << 20);
            }
            final long[] offsets = new long[buckets.length];
            final int[] lengths = new int[buckets.length];
            final int[] entries = new int[buckets.length];
            for (int slot = 0; slot < buckets.length; slot++)
            {
                if (counts[slot] == 0)
                {
                    continue;
                }
                offsets[slot] = spillLength;
                lengths[slot] = limits[slot];
                entries[slot] = counts[slot];
                buckets[slot].writeTo(0, limits[slot], spillOut);
                spillLength += limits[slot];
                limits[slot] = 0;
                counts[slot] = 0;
            }
            spillOut.flush();
            final int run = spilledOffsets.length;
            spilledOffsets = Arrays.copyOf(spilledOffsets, run + 1);
            spilledLengths = Arrays.copyOf(spilledLengths, run + 1);
            spilledCounts = Arrays.copyOf(spilledCounts, run + 1);
            spilledOffsets[run] = offsets;
            spilledLengths[run] = lengths;
            spilledCounts[run] = entries;
            bufferedBytes = 0;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot spill a keyed snapshot's entries to a file in " + directory, ex);
        }
    }

    /** @return how many key groups' buckets this one created, rather than took from its thread's last snapshot. */
    int createdBuckets()
    {
        return createdBuckets;
    }

    /** @return how many times the buckets were spilled so far. */
    int spilledRuns()
    {
        return spilledOffsets.length;
    }

    /** Closes (and so deletes) the spill file, if any. Idempotent. */
    @Override
    public void close() throws IOException
    {
        if (spill != null)
        {
            spill.close();
            spill = null;
            spillOut = null;
        }
    }

    /** @return the key groups of the store being snapshotted. */
    KeyGroupRange range()
    {
        return range;
    }

    /**
     * Adds a run of {@code Long} entries sorted by key group, written before the entries added to each key group's
     * bucket. Not for a key that also gets a tombstone here: a delta's tombstone must come before the entries of its
     * key and state that follow it (a delta skips its run's keys among its changed keys).
     *
     * @param run the entries; its key groups are this range's.
     */
    void addLongRun(final LongRun run)
    {
        if (run.groupStarts().length != range.size() + 1)
        {
            throw new IllegalArgumentException("a run of " + (run.groupStarts().length - 1) + " key groups for a " +
                "range of " + range.size());
        }
        runs = Arrays.copyOf(runs, runs.length + 1);
        runs[runs.length - 1] = run;
    }

    /**
     * Adds a tombstone (of a delta): the key has no entry of the state any more, as of the barrier.
     *
     * @param keyGroup        the key's key group.
     * @param stateIndex      its state's index in the snapshot.
     * @param storedKey       the key in {@link StoredKeyLayout}.
     * @param storedKeyLength its length, prefix included.
     */
    void addTombstone(final int keyGroup, final int stateIndex, final byte[] storedKey, final int storedKeyLength)
    {
        add(keyGroup, stateIndex, storedKey, storedKeyLength, null, 0, 0, null, 0, KeyedSnapshotFormat.TOMBSTONE);
    }

    /** @return the bytes the entries take here (about what the writer will write for them). */
    long bytes()
    {
        long bytes = 0;
        for (final int limit : limits)
        {
            bytes += limit;
        }
        for (final LongRun run : runs)
        {
            bytes += (long)run.size() * KeyedSnapshotWriter.LONG_ENTRY_BYTES;
        }
        return bytes + spillLength;
    }

    /**
     * Writes every entry, key group by key group; once all are written, gives the runs' arrays back to this thread's
     * {@link RunArrays}, forgets the runs, and keeps up to {@link #KEPT_BUCKET_BYTES} of buckets for this thread's
     * next snapshot.
     *
     * @param writer the snapshot's writer, header written.
     * @throws IOException when writing fails.
     */
    void writeTo(final KeyedSnapshotWriter writer) throws IOException
    {
        for (int slot = 0; slot < buckets.length; slot++)
        {
            final int count = counts[slot];
            int inRuns = 0;
            for (final LongRun run : runs)
            {
                inRuns += run.count(slot);
            }
            for (final int[] spilled : spilledCounts)
            {
                inRuns += spilled[slot];
            }
            if (count + inRuns == 0)
            {
                continue;
            }
            writer.startKeyGroup(range.start() + slot, count + inRuns);
            for (final LongRun run : runs)
            {
                writer.longEntries(run.stateIndex(), run.keys(), run.values(), run.groupStarts()[slot],
                    run.groupStarts()[slot + 1]);
            }
            for (int r = 0; r < spilledCounts.length; r++)
            {
                if (spilledCounts[r][slot] > 0)
                {
                    writeEntries(writer, readSpilled(spilledOffsets[r][slot], spilledLengths[r][slot]),
                        spilledCounts[r][slot]);
                }
            }
            if (count > 0)
            {
                writeEntries(writer, buckets[slot], count);
            }
        }
        // every run is written: its arrays go back to this thread's pool for the next snapshot (RunArrays), and so
        // do the buckets' counts and limits (nothing reads them any more) and the buckets themselves (giveBuckets)
        for (final LongRun run : runs)
        {
            RunArrays.giveLongs(run.keys());
            RunArrays.giveLongs(run.values());
            RunArrays.giveInts(run.groupStarts());
        }
        runs = NO_RUNS;
        // the buckets up to KEPT_BUCKET_BYTES stay in the array, for the next snapshot on this thread to write over
        // (its counts and limits start at zero, so nothing of theirs is read again)
        giveBuckets(buckets);
        RunArrays.giveInts(counts);
        RunArrays.giveInts(limits);
        // written: a later use fails here rather than reach arrays another snapshot on this thread now has
        buckets = null;
        counts = null;
        limits = null;
        close();
    }

    private CodecBuffer readSpilled(final long offset, final int length) throws IOException
    {
        if (readBack == null || readBack.length < length)
        {
            readBack = new byte[Math.max(length, readBack == null ? 0 : Math.min(MAX_BUCKET, 2 * readBack.length))];
        }
        final ByteBuffer target = ByteBuffer.wrap(readBack, 0, length);
        long at = offset;
        while (target.hasRemaining())
        {
            final int read = spill.read(target, at);
            if (read < 0)
            {
                throw new IOException("the spill file of a keyed snapshot ends at " + at + ", before " +
                    (offset + length));
            }
            at += read;
        }
        return CodecBuffer.wrap(readBack, 0, length);
    }

    /** Writes {@code count} entries laid out as in a bucket, from its start. */
    private static void writeEntries(final KeyedSnapshotWriter writer, final CodecBuffer bucket, final int count)
        throws IOException
    {
        int position = 0;
        for (int e = 0; e < count; e++)
        {
            final int stateIndex = bucket.getInt(position);
            final int keyLength = bucket.getInt(position + 4);
            final int keyOffset = position + 8;
            final int subKeyLength = bucket.getInt(keyOffset + keyLength);
            final int subKeyOffset = keyOffset + keyLength + 4;
            final int valueAt = subKeyOffset + Math.max(0, subKeyLength);
            final int valueLength = bucket.getInt(valueAt);
            final int valueOffset = valueAt + 4;
            if (valueLength == KeyedSnapshotFormat.TOMBSTONE)
            {
                writer.tombstone(stateIndex, bucket, keyOffset, keyLength);
                position = valueOffset;
                continue;
            }
            writer.entry(stateIndex, bucket, keyOffset, keyLength, subKeyLength < 0 ? null : bucket, subKeyOffset,
                Math.max(0, subKeyLength), bucket, valueOffset, valueLength);
            position = valueOffset + valueLength;
        }
    }
}
