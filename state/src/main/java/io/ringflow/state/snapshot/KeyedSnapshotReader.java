package io.ringflow.state.snapshot;

import io.ringflow.state.checkpoint.CorruptCheckpointException;
import io.ringflow.state.checkpoint.StateFile;
import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.KeyGroups;
import io.ringflow.state.keyed.StateKind;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a keyed snapshot written by {@link KeyedSnapshotWriter}. The header and index are parsed and checked when it
 * is opened; {@link #read} then visits the entries of the requested key groups only.
 *
 * <p>Every length is checked against the file's bounds: a damaged file is reported as corrupt, naming it, and
 * never read out of bounds.
 */
public final class KeyedSnapshotReader implements AutoCloseable
{
    /** Receives the entries of a snapshot; the buffers are only valid during the call. */
    @FunctionalInterface
    public interface EntryVisitor
    {
        /**
         * @param keyGroup     the entry's key group.
         * @param stateIndex   its state, an index into {@link #states()}.
         * @param bytes        the snapshot's bytes.
         * @param keyOffset    where the encoded key starts.
         * @param keyLength    its length.
         * @param subKeyOffset where the encoded sub-key starts; meaningless when {@code subKeyLength} is -1.
         * @param subKeyLength its length, or -1 when the entry has none.
         * @param valueOffset  where the encoded value starts.
         * @param valueLength  its length, or {@link KeyedSnapshotFormat#TOMBSTONE} for a delta's tombstone (then
         *                     there is no sub-key either).
         */
        void entry(int keyGroup, int stateIndex, CodecBuffer bytes, int keyOffset, int keyLength,
            int subKeyOffset, int subKeyLength, int valueOffset, int valueLength);
    }

    /**
     * Which keys a reader's caller wants, so that a merged chain can leave the others out before merging them
     * ({@link #skipUnwanted}).
     *
     * <p>Thread contract: called on the reader's thread, during a read.
     */
    @FunctionalInterface
    public interface KeyFilter
    {
        /**
         * @param keyGroup   the key's key group.
         * @param stateIndex its state, an index into the reader's {@link #states()}.
         * @param bytes      the bytes holding the encoded key; read only, and only during the call.
         * @param keyOffset  where the encoded key starts.
         * @param keyLength  its length.
         * @return whether the entries of this (state, key) are wanted; the same answer for every entry of a key
         *     while the read lasts.
         */
        boolean wants(int keyGroup, int stateIndex, CodecBuffer bytes, int keyOffset, int keyLength);
    }

    /**
     * The key groups of a merged chain ({@link KeyedSnapshotChain#merge}), produced one at a time when read.
     *
     * <p>Thread contract: the reader's.
     */
    interface MergedGroups extends Closeable
    {
        /**
         * @param keyGroup one of the merged reader's key groups.
         * @param visitor  given the group's merged entries; none when every entry of the group was removed.
         */
        void readGroup(int keyGroup, EntryVisitor visitor);

        /** @param filter the keys to merge from now on, the others dropped unmerged; null for every key. */
        void skipUnwanted(KeyFilter filter);
    }

    /** The most of a file's header (state descriptions) that is loaded for a file read by position. */
    private static final int MAX_HEADER_BYTES = 64 << 20;

    private final String file;
    /** Where the bytes come from; null for a merged chain. */
    private final StateFile source;
    /** The key groups of a merged chain; null for a file. */
    private final MergedGroups merged;
    /** Whether {@link #window} is the whole file, loaded once: nothing is read by position. */
    private final boolean whole;
    /** The loaded part of the file: {@link #windowLength} bytes from {@link #windowStart}. */
    private byte[] window;
    private long windowStart;
    private int windowLength;
    /** The window as the visitors see it: codecs' bytes, little-endian. */
    private CodecBuffer bytes;
    /** The window for the format's own fields, which are big-endian (a {@link ByteBuffer}'s default order). */
    private ByteBuffer bigEndian;
    private final int maxParallelism;
    private final KeyGroupRange range;
    private final List<StateMeta> states;
    private final int[] groups;
    private final long[] offsets;
    private final long indexOffset;
    private final boolean delta;

    private KeyedSnapshotReader(final StateFile source)
    {
        this.file = source.name();
        this.source = source;
        this.merged = null;
        final long length = source.length();
        final byte[] data = source.bytesIfInMemory();
        this.whole = data != null;
        if (whole)
        {
            useWindow(data, data.length);
        }
        if (length < 24 + KeyedSnapshotFormat.FOOTER_LENGTH)
        {
            throw corrupt("truncated: " + length + " bytes");
        }
        load(0, 12);
        if (getInt(0) != KeyedSnapshotFormat.MAGIC)
        {
            throw corrupt("not a Ringflow keyed snapshot (magic " + Integer.toHexString(getInt(0)) + ")");
        }
        final int version = getInt(4);
        if (version < KeyedSnapshotFormat.OLDEST_READABLE_VERSION || version > KeyedSnapshotFormat.VERSION)
        {
            throw corrupt("keyed snapshot format version " + version + ", this build reads versions " +
                KeyedSnapshotFormat.OLDEST_READABLE_VERSION + " to " + KeyedSnapshotFormat.VERSION);
        }
        load(length - KeyedSnapshotFormat.FOOTER_LENGTH, KeyedSnapshotFormat.FOOTER_LENGTH);
        if (getInt(length - 4) != KeyedSnapshotFormat.END_MAGIC)
        {
            throw corrupt("torn: the end marker is missing");
        }
        final int groupCount = getInt(length - KeyedSnapshotFormat.FOOTER_LENGTH);
        indexOffset = getLong(length - 12);
        if (groupCount < 0 || groupCount > KeyGroups.UPPER_BOUND_MAX_PARALLELISM ||
            indexOffset != length - KeyedSnapshotFormat.FOOTER_LENGTH - 12L * groupCount)
        {
            throw corrupt("index of " + groupCount + " groups at " + indexOffset + " does not fit the file");
        }
        groups = new int[groupCount];
        offsets = new long[groupCount];
        load(indexOffset, 12L * groupCount);
        for (int i = 0; i < groupCount; i++)
        {
            final long at = indexOffset + 12L * i;
            groups[i] = getInt(at);
            offsets[i] = getLong(at + 4);
        }
        final long headerEnd = groupCount == 0 ? indexOffset : offsets[0];
        if (headerEnd < 24 || headerEnd > indexOffset)
        {
            throw corrupt(groupCount == 0 ? "index at " + indexOffset + " does not fit the file" :
                "index entry 0 (key group " + groups[0] + " at " + offsets[0] + ") is invalid");
        }
        load(0, Math.min(headerEnd, MAX_HEADER_BYTES));
        final int fields = version >= 3 ? 12 : 8;
        if (version >= 3)
        {
            final int type = getInt(8);
            if (type != KeyedSnapshotFormat.TYPE_FULL && type != KeyedSnapshotFormat.TYPE_DELTA)
            {
                throw corrupt("unknown snapshot type " + type);
            }
            delta = type == KeyedSnapshotFormat.TYPE_DELTA;
        }
        else
        {
            delta = false;
        }
        maxParallelism = getInt(fields);
        final int first = getInt(fields + 4);
        final int last = getInt(fields + 8);
        if (maxParallelism <= 0 || first < 0 || last >= maxParallelism || first > last + 1)
        {
            throw corrupt("key group range " + first + ".." + last + " of max parallelism " + maxParallelism);
        }
        range = new KeyGroupRange(first, last);
        final int stateCount = getInt(fields + 12);
        if (stateCount < 0 || stateCount > 1 << 16)
        {
            throw corrupt("state count " + stateCount);
        }
        long position = fields + 16;
        final List<StateMeta> metas = new ArrayList<>(stateCount);
        for (int i = 0; i < stateCount; i++)
        {
            final String name = getString(position);
            position += 4 + getInt(position);
            check(position, 1);
            final int kindCode = getByte(position);
            position += 1;
            final String keyType = getString(position);
            position += 4 + getInt(position);
            final int keyVersion = getInt(position);
            position += 4;
            final String valueType = getString(position);
            position += 4 + getInt(position);
            final int valueVersion = getInt(position);
            position += 4;
            String userKeyType = "";
            int userKeyVersion = 0;
            boolean timeToLive = false;
            if (version >= 2)
            {
                userKeyType = getString(position);
                position += 4 + getInt(position);
                userKeyVersion = getInt(position);
                position += 4;
                check(position, 1);
                final int flags = getByte(position);
                position += 1;
                if ((flags & ~KeyedSnapshotFormat.FLAG_TIME_TO_LIVE) != 0)
                {
                    throw corrupt("unknown flags " + Integer.toHexString(flags & 0xFF) + " for state '" + name + "'");
                }
                timeToLive = (flags & KeyedSnapshotFormat.FLAG_TIME_TO_LIVE) != 0;
            }
            final StateKind kind;
            try
            {
                kind = StateKind.fromCode(kindCode);
            }
            catch (final IllegalArgumentException ex)
            {
                throw corrupt(ex.getMessage() + " for state '" + name + "'");
            }
            metas.add(new StateMeta(name, kind, keyType, keyVersion, valueType, valueVersion, userKeyType,
                userKeyVersion, timeToLive));
        }
        states = List.copyOf(metas);
        if (groupCount > range.size() || indexOffset < position)
        {
            throw corrupt("index of " + groupCount + " groups at " + indexOffset + " does not fit the file");
        }
        for (int i = 0; i < groupCount; i++)
        {
            if (!range.contains(groups[i]) || (i > 0 && (groups[i] <= groups[i - 1] || offsets[i] <= offsets[i - 1])) ||
                offsets[i] < position || offsets[i] >= indexOffset)
            {
                throw corrupt("index entry " + i + " (key group " + groups[i] + " at " + offsets[i] + ") is invalid");
            }
        }
    }

    /** A merged chain's reader: its key groups are merged when read. */
    KeyedSnapshotReader(final String file, final int maxParallelism, final KeyGroupRange range,
        final List<StateMeta> states, final int[] groups, final MergedGroups merged)
    {
        this.file = file;
        this.source = null;
        this.merged = merged;
        this.whole = false;
        this.maxParallelism = maxParallelism;
        this.range = range;
        this.states = List.copyOf(states);
        this.groups = groups.clone();
        this.offsets = null;
        this.indexOffset = 0;
        this.delta = false;
    }

    /**
     * @param data the snapshot's bytes, already checked against their handle's length and checksum.
     * @param file the file, for messages.
     * @return a reader.
     * @throws CorruptCheckpointException when the header or index are damaged.
     */
    public static KeyedSnapshotReader open(final byte[] data, final String file)
    {
        return new KeyedSnapshotReader(StateFile.of(data, file));
    }

    /**
     * Opens a snapshot read by position: the header and index now, then one key group at a time, each loaded into a
     * buffer the reader reuses, so the file need not fit in the heap (a file held in memory is read in place).
     *
     * @param file a state file from {@link io.ringflow.state.checkpoint.CheckpointStorage#openState}, already
     *             checked; the reader owns it from now on and {@link #close} closes it, also when this throws.
     * @return a reader.
     * @throws IOException                when the file cannot be read.
     * @throws CorruptCheckpointException when the header or index are damaged.
     */
    public static KeyedSnapshotReader open(final StateFile file) throws IOException
    {
        try
        {
            return new KeyedSnapshotReader(file);
        }
        catch (final UncheckedIOException ex)
        {
            file.close();
            throw ex.getCause();
        }
        catch (final RuntimeException ex)
        {
            file.close();
            throw ex;
        }
    }

    /** @return the number of key groups of the job that wrote it. */
    public int maxParallelism()
    {
        return maxParallelism;
    }

    /** @return the key groups the writing subtask owned. */
    public KeyGroupRange range()
    {
        return range;
    }

    /**
     * What every store checks before it restores a snapshot: a full one, of the job's number of key groups.
     *
     * @param maxParallelism the restoring job's number of key groups.
     * @throws IllegalStateException when this is a delta (its chain must be merged first) or of another number of
     *                               key groups.
     */
    public void checkRestorableInto(final int maxParallelism)
    {
        if (isDelta())
        {
            throw new IllegalStateException("the keyed snapshot " + file() + " is a delta of an " +
                "incremental checkpoint: restore its whole chain, merged by KeyedSnapshotChain");
        }
        if (maxParallelism() != maxParallelism)
        {
            throw new IllegalStateException("the keyed snapshot was written with " + maxParallelism() +
                " key groups (max parallelism) and cannot be restored into a job with " + maxParallelism);
        }
    }

    /**
     * @return whether this is a delta ({@link KeyedSnapshotFormat#TYPE_DELTA}): meaningful only on top of its chain,
     *     see {@link KeyedSnapshotChain}.
     */
    public boolean isDelta()
    {
        return delta;
    }

    /** @return the file, for messages. */
    public String file()
    {
        return file;
    }

    /** @return the states, in the order entries refer to them. */
    public List<StateMeta> states()
    {
        return states;
    }

    /**
     * Lets later reads leave out the entries of the (state, key)s that {@code filter} does not want. A merged chain
     * ({@link KeyedSnapshotChain#merge}) then drops them as it reads its files, before merging: a restore that
     * rewrites a few keys (local recovery) no longer pays for merging the whole chain. A file's reader hands every
     * entry still, as the filter would cost what it saves there: a visitor must check the keys it wants itself and
     * may rely only on getting every entry it wants, merged as without a filter.
     *
     * @param filter the keys wanted, asked about each (state, key) of each file of a chain; null to read every key
     *               again.
     */
    public void skipUnwanted(final KeyFilter filter)
    {
        if (merged != null)
        {
            merged.skipUnwanted(filter);
        }
    }

    /**
     * Visits every entry of the key groups in {@code wanted}, in key group order, skipping the others unread.
     *
     * @param wanted  the key groups to read.
     * @param visitor receives the entries.
     * @throws CorruptCheckpointException when an entry is damaged.
     */
    public void read(final KeyGroupRange wanted, final EntryVisitor visitor)
    {
        for (int g = 0; g < groups.length; g++)
        {
            if (wanted.contains(groups[g]))
            {
                readGroupAt(g, visitor);
            }
        }
    }

    /**
     * @return the non-empty key groups of the snapshot, ascending; a copy.
     */
    public int[] keyGroups()
    {
        return groups.clone();
    }

    /**
     * Visits the entries of one key group, if the snapshot has any, found through the index.
     *
     * @param keyGroup the key group.
     * @param visitor  receives its entries, in file order.
     * @throws CorruptCheckpointException when an entry is damaged.
     */
    public void readGroup(final int keyGroup, final EntryVisitor visitor)
    {
        final int g = java.util.Arrays.binarySearch(groups, keyGroup);
        if (g >= 0)
        {
            readGroupAt(g, visitor);
        }
    }

    private void readGroupAt(final int g, final EntryVisitor visitor)
    {
        if (merged != null)
        {
            merged.readGroup(groups[g], visitor);
            return;
        }
        long position = offsets[g];
        load(position, (g + 1 < groups.length ? offsets[g + 1] : indexOffset) - position);
        if (getInt(position) != groups[g])
        {
            throw corrupt("key group " + groups[g] + " is not where the index says");
        }
        final int entries = getInt(position + 4);
        position += 8;
        if (entries <= 0)
        {
            throw corrupt("key group " + groups[g] + " has " + entries + " entries");
        }
        final CodecBuffer bytes = this.bytes;
        final long start = windowStart;
        for (int e = 0; e < entries; e++)
        {
            final int stateIndex = getInt(position);
            if (stateIndex < 0 || stateIndex >= states.size())
            {
                throw corrupt("entry of key group " + groups[g] + " names state " + stateIndex);
            }
            final int keyLength = length(position + 4);
            final long keyOffset = position + 8;
            position = keyOffset + keyLength;
            final int subKeyLength = getInt(position);
            if (subKeyLength < -1)
            {
                throw corrupt("negative sub-key length in key group " + groups[g]);
            }
            final long subKeyOffset = position + 4;
            position = subKeyOffset + Math.max(0, subKeyLength);
            check(position, 0);
            if (delta && subKeyLength == -1 && getInt(position) == KeyedSnapshotFormat.TOMBSTONE)
            {
                visitor.entry(groups[g], stateIndex, bytes, (int)(keyOffset - start), keyLength,
                    (int)(subKeyOffset - start), -1, (int)(position + 4 - start), KeyedSnapshotFormat.TOMBSTONE);
                position += 4;
                continue;
            }
            final int valueLength = length(position);
            final long valueOffset = position + 4;
            position = valueOffset + valueLength;
            visitor.entry(groups[g], stateIndex, bytes, (int)(keyOffset - start), keyLength,
                (int)(subKeyOffset - start), subKeyLength, (int)(valueOffset - start), valueLength);
        }
    }

    /**
     * Frees the file (or, for a merged chain, every file of the chain). Idempotent.
     *
     * @throws IOException when closing fails.
     */
    @Override
    public void close() throws IOException
    {
        if (source != null)
        {
            source.close();
        }
        if (merged != null)
        {
            merged.close();
        }
    }

    /** Makes {@code length} bytes from {@code from} readable, loading them unless the whole file is loaded. */
    private void load(final long from, final long length)
    {
        if (whole)
        {
            return;
        }
        if (from < 0 || length < 0 || length > Integer.MAX_VALUE - 16 || from + length > source.length())
        {
            throw corrupt("a part of " + length + " bytes at offset " + from + " does not fit the file (" +
                source.length() + " bytes)");
        }
        final int size = (int)length;
        byte[] target = window;
        if (target == null || target.length < size)
        {
            target = new byte[(int)Math.min(Integer.MAX_VALUE - 16, Math.max(size, target == null ? 0 :
                2L * target.length))];
        }
        try
        {
            source.readFully(from, target, 0, size);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read " + size + " bytes at offset " + from + " of " + file, ex);
        }
        useWindow(target, size);
        windowStart = from;
    }

    private void useWindow(final byte[] target, final int length)
    {
        if (target != window)
        {
            window = target;
            bytes = CodecBuffer.wrap(target);
            bigEndian = ByteBuffer.wrap(target);
        }
        windowStart = 0;
        windowLength = length;
    }

    private int length(final long at)
    {
        final int length = getInt(at);
        if (length < 0)
        {
            throw corrupt("negative length at offset " + at);
        }
        check(at + 4, length);
        return length;
    }

    private int getInt(final long at)
    {
        check(at, 4);
        return bigEndian.getInt((int)(at - windowStart));
    }

    private long getLong(final long at)
    {
        check(at, 8);
        return bigEndian.getLong((int)(at - windowStart));
    }

    private byte getByte(final long at)
    {
        check(at, 1);
        return bigEndian.get((int)(at - windowStart));
    }

    private String getString(final long at)
    {
        final int length = length(at);
        if (length > 1 << 16)
        {
            throw corrupt("string of " + length + " bytes at offset " + at);
        }
        return new String(window, (int)(at + 4 - windowStart), length, StandardCharsets.UTF_8);
    }

    private void check(final long at, final long length)
    {
        if (at < windowStart || length < 0 || at + length > windowStart + windowLength)
        {
            throw corrupt("an entry runs past the end of the file (offset " + at + ", " + length + " bytes)");
        }
    }

    private CorruptCheckpointException corrupt(final String problem)
    {
        return new CorruptCheckpointException(file, problem);
    }
}
