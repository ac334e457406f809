package io.ringflow.state.snapshot;

import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.keyed.KeyGroupRange;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Writes one keyed snapshot in {@link KeyedSnapshotFormat}. Call {@link #startKeyGroup} for each non-empty key
 * group in ascending order, then {@link #entry} (or, in a delta, {@link #tombstone}) exactly as many times as
 * announced, then {@link #finish}.
 *
 * <p>Thread contract: one thread, usually a snapshot flusher.
 */
public final class KeyedSnapshotWriter
{
    private static final int MAX_CHUNK = 64 * 1024;
    private static final int MIN_CHUNK = 4 * 1024;

    /**
     * Per thread, the chunk of the last writer that finished on it, taken by the next writer on the same thread that
     * needs no larger one: a flusher, or a task writing its small snapshots itself, then assembles every snapshot in
     * one array instead of allocating one per checkpoint. Safe because a destination copies what it is handed before
     * {@code write} returns (the contract of {@code StateOutput.writeBytes}), and a finished writer no longer holds
     * the array.
     */
    private static final ThreadLocal<byte[]> SPARE_CHUNK = new ThreadLocal<>();
    /**
     * Per thread, the key-group index arrays of the last writer that finished on it ({@code groups}, {@code offsets}),
     * taken by the next writer on the same thread, as the chunk is: a writer keeps them only until {@link #finish}
     * has written the index from them.
     */
    private static final ThreadLocal<int[]> SPARE_GROUPS = new ThreadLocal<>();
    private static final ThreadLocal<long[]> SPARE_OFFSETS = new ThreadLocal<>();
    private static final int FIRST_INDEX = 16;

    /** Where complete chunks go; not closed here. */
    private final OutputStream destination;
    /** Bytes are assembled here and handed on a chunk at a time: no call per field. Null once finished. */
    private byte[] chunkBytes;
    /**
     * {@code chunkBytes.length}: 64 KiB, less for a snapshot known to be smaller (less garbage per checkpoint), more
     * when this thread's spare chunk is larger than needed.
     */
    private final int chunkSize;
    private int position;
    /** Bytes handed to the destination so far. */
    private long flushed;
    private final int statesCount;
    private final KeyGroupRange range;
    /** Per key group written, its number and where it starts; grown as needed, taken from this thread's spares. */
    private int[] groups;
    private long[] offsets;
    private int groupCount;
    private int remainingInGroup;
    private final boolean delta;
    private int lastGroup = -1;

    /**
     * Writes the header of a full snapshot.
     *
     * @param destination    where the snapshot goes; not closed here; copies what it is handed before returning.
     * @param maxParallelism the job's number of key groups.
     * @param range          the key groups the writing subtask owns.
     * @param states         the states, in the order their entries refer to them.
     * @throws IOException when writing fails.
     */
    public KeyedSnapshotWriter(
        final OutputStream destination, final int maxParallelism, final KeyGroupRange range,
        final List<StateMeta> states) throws IOException
    {
        this(destination, maxParallelism, range, states, false);
    }

    /**
     * Writes the header of a full snapshot or of a delta ({@link KeyedSnapshotFormat#TYPE_DELTA}).
     *
     * @param destination    where the snapshot goes; not closed here; copies what it is handed before returning.
     * @param maxParallelism the job's number of key groups.
     * @param range          the key groups the writing subtask owns.
     * @param states         the states, in the order their entries refer to them.
     * @param delta          whether this is a delta, which may hold tombstones.
     * @throws IOException when writing fails.
     */
    public KeyedSnapshotWriter(
        final OutputStream destination, final int maxParallelism, final KeyGroupRange range,
        final List<StateMeta> states, final boolean delta) throws IOException
    {
        this(destination, maxParallelism, range, states, delta, MAX_CHUNK);
    }

    /**
     * Writes the header of a full snapshot or of a delta, assembling about {@code expectedEntryBytes} plus a few KiB
     * (at least 4 KiB, at most 64 KiB) before each hand-off to the destination: a small snapshot needs only a small
     * chunk. The chunk is this thread's spare when it is at least that large (then the spare's size is used), else a
     * new one.
     *
     * @param destination        where the snapshot goes; not closed here. It must copy what {@code write} hands it
     *                           before returning: the chunk goes on to the next writer on this thread.
     * @param maxParallelism     the job's number of key groups.
     * @param range              the key groups the writing subtask owns.
     * @param states             the states, in the order their entries refer to them.
     * @param delta              whether this is a delta, which may hold tombstones.
     * @param expectedEntryBytes about how many bytes the entries take; only sizes the chunk.
     * @throws IOException when writing fails.
     */
    public KeyedSnapshotWriter(
        final OutputStream destination, final int maxParallelism, final KeyGroupRange range,
        final List<StateMeta> states, final boolean delta, final long expectedEntryBytes) throws IOException
    {
        final int needed = (int)Math.max(MIN_CHUNK, Math.min(MAX_CHUNK, expectedEntryBytes + MIN_CHUNK));
        final byte[] spare = SPARE_CHUNK.get();
        if (spare != null && spare.length >= needed)
        {
            SPARE_CHUNK.set(null);
            this.chunkBytes = spare;
        }
        else
        {
            this.chunkBytes = new byte[needed];
        }
        this.chunkSize = chunkBytes.length;
        final int[] spareGroups = SPARE_GROUPS.get();
        final long[] spareOffsets = SPARE_OFFSETS.get();
        if (spareGroups != null && spareOffsets != null && spareGroups.length == spareOffsets.length)
        {
            SPARE_GROUPS.set(null);
            SPARE_OFFSETS.set(null);
            this.groups = spareGroups;
            this.offsets = spareOffsets;
        }
        else
        {
            this.groups = new int[FIRST_INDEX];
            this.offsets = new long[FIRST_INDEX];
        }
        this.destination = destination;
        this.statesCount = states.size();
        this.range = range;
        this.delta = delta;
        putInt(KeyedSnapshotFormat.MAGIC);
        putInt(KeyedSnapshotFormat.VERSION);
        putInt(delta ? KeyedSnapshotFormat.TYPE_DELTA : KeyedSnapshotFormat.TYPE_FULL);
        putInt(maxParallelism);
        putInt(range.start());
        putInt(range.end());
        putInt(states.size());
        for (int i = 0; i < states.size(); i++)
        {
            final StateMeta state = states.get(i);
            writeString(state.name());
            putByte(state.kind().code());
            writeString(state.keyType());
            putInt(state.keyCodecVersion());
            writeString(state.valueType());
            putInt(state.valueCodecVersion());
            writeString(state.userKeyType());
            putInt(state.userKeyCodecVersion());
            putByte(state.timeToLive() ? KeyedSnapshotFormat.FLAG_TIME_TO_LIVE : 0);
        }
    }

    /**
     * @param keyGroup the next key group, above the previous one and within the range.
     * @param entries  how many entries follow, positive.
     * @throws IOException when writing fails.
     */
    public void startKeyGroup(final int keyGroup, final int entries) throws IOException
    {
        checkNotFinished();
        if (remainingInGroup != 0)
        {
            throw new IllegalStateException("key group " + lastGroup + " still expects " + remainingInGroup +
                " entries");
        }
        if (keyGroup <= lastGroup || !range.contains(keyGroup))
        {
            throw new IllegalArgumentException("key group " + keyGroup + " out of order or outside " + range);
        }
        if (entries <= 0)
        {
            throw new IllegalArgumentException("a key group is written only when it has entries");
        }
        if (groupCount == groups.length)
        {
            groups = Arrays.copyOf(groups, groupCount * 2);
            offsets = Arrays.copyOf(offsets, groupCount * 2);
        }
        groups[groupCount] = keyGroup;
        offsets[groupCount] = flushed + position;
        groupCount++;
        lastGroup = keyGroup;
        remainingInGroup = entries;
        putInt(keyGroup);
        putInt(entries);
    }

    /**
     * Writes one entry of the current key group.
     *
     * @param stateIndex   which state, an index into the header's list.
     * @param key          the encoded key.
     * @param keyOffset    where it starts.
     * @param keyLength    its length.
     * @param subKey       the encoded sub-key (a map state's user key), or null.
     * @param subKeyOffset where it starts.
     * @param subKeyLength its length.
     * @param value        the encoded value; not null (a delta's tombstone is written by {@link #tombstone}).
     * @param valueOffset  where it starts.
     * @param valueLength  its length.
     * @throws IOException when writing fails.
     */
    public void entry(
        final int stateIndex,
        final CodecBuffer key, final int keyOffset, final int keyLength,
        final CodecBuffer subKey, final int subKeyOffset, final int subKeyLength,
        final CodecBuffer value, final int valueOffset, final int valueLength) throws IOException
    {
        countEntry(stateIndex);
        putInt(stateIndex);
        writeBytes(key, keyOffset, keyLength);
        if (value == null)
        {
            putInt(-1);
            putInt(KeyedSnapshotFormat.TOMBSTONE);
            return;
        }
        if (subKey == null)
        {
            putInt(-1);
        }
        else
        {
            writeBytes(subKey, subKeyOffset, subKeyLength);
        }
        writeBytes(value, valueOffset, valueLength);
    }

    /**
     * Writes one entry of the current key group whose key and value are {@code Long}s of the built-in codec: exactly
     * what {@link #entry} writes for their encodings (eight bytes each, little-endian), without encoding them first.
     *
     * @param stateIndex which state, an index into the header's list.
     * @param key        the key.
     * @param value      its value.
     * @throws IOException when writing fails.
     */
    public void longEntry(final int stateIndex, final long key, final long value) throws IOException
    {
        countEntries(stateIndex, 1);
        ensure(LONG_ENTRY_BYTES);
        putLongEntry(chunkBytes, position, stateIndex, key, value);
        position += LONG_ENTRY_BYTES;
    }

    /**
     * Writes {@code keys[from, to)} with their {@code values} as entries of the current key group, each exactly as
     * {@link #longEntry} writes it: the entries of a key group's sorted run in one call, checked once, written a
     * chunk's worth at a time.
     *
     * @param stateIndex which state, an index into the header's list.
     * @param keys       the keys.
     * @param values     their values, at the same indexes.
     * @param from       the first index written.
     * @param to         one past the last.
     * @throws IOException              when writing fails.
     * @throws IllegalStateException    when the key group announced fewer entries (nothing is written then).
     */
    public void longEntries(final int stateIndex, final long[] keys, final long[] values, final int from,
        final int to) throws IOException
    {
        if (to <= from)
        {
            return;
        }
        countEntries(stateIndex, to - from);
        final byte[] bytes = chunkBytes;
        int i = from;
        while (i < to)
        {
            if (chunkSize - position < LONG_ENTRY_BYTES)
            {
                flushChunk();
            }
            final int end = i + Math.min(to - i, (chunkSize - position) / LONG_ENTRY_BYTES);
            int at = position;
            for (; i < end; i++)
            {
                putLongEntry(bytes, at, stateIndex, keys[i], values[i]);
                at += LONG_ENTRY_BYTES;
            }
            position = at;
        }
    }

    /** Lays out one entry of a {@code Long} key and value: {@link #LONG_ENTRY_BYTES} bytes from {@code at}. */
    private static void putLongEntry(final byte[] bytes, final int at, final int stateIndex, final long key,
        final long value)
    {
        BIG_ENDIAN_INT.set(bytes, at, stateIndex);
        BIG_ENDIAN_INT.set(bytes, at + 4, Long.BYTES);
        // the built-in codec's bytes: little-endian
        LITTLE_ENDIAN_LONG.set(bytes, at + 8, key);
        BIG_ENDIAN_INT.set(bytes, at + 16, -1);
        BIG_ENDIAN_INT.set(bytes, at + 20, Long.BYTES);
        LITTLE_ENDIAN_LONG.set(bytes, at + 24, value);
    }

    private static final java.lang.invoke.VarHandle BIG_ENDIAN_INT =
        java.lang.invoke.MethodHandles.byteArrayViewVarHandle(int[].class, java.nio.ByteOrder.BIG_ENDIAN);
    /**
     * The format's own fields are big-endian, written straight into the chunk (a {@code ByteBuffer} around it was an
     * object per snapshot).
     */
    private static final java.lang.invoke.VarHandle BIG_ENDIAN_LONG =
        java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.BIG_ENDIAN);
    private static final java.lang.invoke.VarHandle LITTLE_ENDIAN_LONG =
        java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    /** Counts one more entry of the current key group, of state {@code stateIndex}, refusing one too many. */
    private void countEntry(final int stateIndex)
    {
        countEntries(stateIndex, 1);
    }

    /**
     * Counts {@code count} more entries of the current key group, of state {@code stateIndex}, refusing them all when
     * the group announced fewer.
     */
    private void countEntries(final int stateIndex, final int count)
    {
        if (count > remainingInGroup)
        {
            throw new IllegalStateException("more entries than announced for key group " + lastGroup);
        }
        if (stateIndex < 0 || stateIndex >= statesCount)
        {
            throw new IllegalArgumentException("state index " + stateIndex + " of " + statesCount);
        }
        remainingInGroup -= count;
    }

    /** The bytes {@link #longEntry} writes. */
    public static final int LONG_ENTRY_BYTES = 32;

    /**
     * Writes a tombstone in the current key group of a delta: the key has no entry of this state any more (for a map
     * state, none of its user keys), as of the delta's barrier; entries of the same key that follow it in the delta
     * are its entries now.
     *
     * @param stateIndex which state, an index into the header's list.
     * @param key        the encoded key.
     * @param keyOffset  where it starts.
     * @param keyLength  its length.
     * @throws IOException           when writing fails.
     * @throws IllegalStateException when this is not a delta.
     */
    public void tombstone(final int stateIndex, final CodecBuffer key, final int keyOffset, final int keyLength)
        throws IOException
    {
        if (!delta)
        {
            throw new IllegalStateException("only a delta snapshot holds tombstones");
        }
        entry(stateIndex, key, keyOffset, keyLength, null, 0, 0, null, 0, 0);
    }

    /**
     * Writes the index and footer and flushes; the destination stays open.
     *
     * @throws IOException when writing fails.
     */
    public void finish() throws IOException
    {
        checkNotFinished();
        if (remainingInGroup != 0)
        {
            throw new IllegalStateException("key group " + lastGroup + " still expects " + remainingInGroup +
                " entries");
        }
        final long indexOffset = flushed + position;
        for (int i = 0; i < groupCount; i++)
        {
            putInt(groups[i]);
            putLong(offsets[i]);
        }
        putInt(groupCount);
        putLong(indexOffset);
        putInt(KeyedSnapshotFormat.END_MAGIC);
        flushChunk();
        destination.flush();
        // the chunk goes to the next writer on this thread (the larger of two spares is kept); any later use of this
        // writer fails on the null instead of writing into another snapshot's chunk
        final byte[] spare = SPARE_CHUNK.get();
        if (spare == null || spare.length < chunkBytes.length)
        {
            SPARE_CHUNK.set(chunkBytes);
        }
        chunkBytes = null;
        final int[] spareGroups = SPARE_GROUPS.get();
        if (spareGroups == null || spareGroups.length < groups.length)
        {
            SPARE_GROUPS.set(groups);
            SPARE_OFFSETS.set(offsets);
        }
        groups = null;
        offsets = null;
    }

    private void checkNotFinished()
    {
        if (chunkBytes == null)
        {
            throw new IllegalStateException("the snapshot is finished");
        }
    }

    private void writeBytes(final CodecBuffer buffer, final int offset, final int length) throws IOException
    {
        putInt(length);
        int done = 0;
        while (done < length)
        {
            if (position == chunkSize)
            {
                flushChunk();
            }
            final int part = Math.min(length - done, chunkSize - position);
            buffer.getBytes(offset + done, chunkBytes, position, part);
            position += part;
            done += part;
        }
    }

    /**
     * A length, then the string's UTF-8 bytes; an ASCII string (a state's name and type names, usually) is written
     * char by char, with no array of its bytes.
     */
    private void writeString(final String value) throws IOException
    {
        final int chars = value.length();
        for (int i = 0; i < chars; i++)
        {
            if (value.charAt(i) >= 0x80)
            {
                final byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
                writeBytes(CodecBuffer.wrap(bytes), 0, bytes.length);
                return;
            }
        }
        putInt(chars);
        int done = 0;
        while (done < chars)
        {
            if (position == chunkSize)
            {
                flushChunk();
            }
            final int end = done + Math.min(chars - done, chunkSize - position);
            for (; done < end; done++)
            {
                chunkBytes[position++] = (byte)value.charAt(done);
            }
        }
    }

    private void putInt(final int value) throws IOException
    {
        ensure(Integer.BYTES);
        BIG_ENDIAN_INT.set(chunkBytes, position, value);
        position += Integer.BYTES;
    }

    private void putLong(final long value) throws IOException
    {
        ensure(Long.BYTES);
        BIG_ENDIAN_LONG.set(chunkBytes, position, value);
        position += Long.BYTES;
    }

    private void putByte(final int value) throws IOException
    {
        ensure(1);
        chunkBytes[position] = (byte)value;
        position++;
    }

    private void ensure(final int bytes) throws IOException
    {
        if (position + bytes > chunkSize)
        {
            flushChunk();
        }
    }

    private void flushChunk() throws IOException
    {
        if (position > 0)
        {
            destination.write(chunkBytes, 0, position);
            flushed += position;
            position = 0;
        }
    }
}
