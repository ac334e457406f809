package io.ringflow.state.snapshot;

import io.ringflow.state.checkpoint.CorruptCheckpointException;
import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.StateKind;

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
public final class KeyedSnapshotReader
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

    private final String file;
    /** The snapshot's bytes as the visitors see them: codecs' bytes, little-endian. */
    private final CodecBuffer bytes;
    /** The same bytes, for the format's own fields, which are big-endian (a {@link ByteBuffer}'s default order). */
    private final ByteBuffer bigEndian;
    private final int maxParallelism;
    private final KeyGroupRange range;
    private final List<StateMeta> states;
    private final int[] groups;
    private final long[] offsets;
    private final boolean delta;

    private KeyedSnapshotReader(final byte[] data, final String file)
    {
        this.file = file;
        this.bytes = CodecBuffer.wrap(data);
        this.bigEndian = ByteBuffer.wrap(data);
        final int length = data.length;
        if (length < 24 + KeyedSnapshotFormat.FOOTER_LENGTH)
        {
            throw corrupt("truncated: " + length + " bytes");
        }
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
        if (getInt(length - 4) != KeyedSnapshotFormat.END_MAGIC)
        {
            throw corrupt("torn: the end marker is missing");
        }
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
        int position = fields + 16;
        final List<StateMeta> metas = new ArrayList<>(stateCount);
        for (int i = 0; i < stateCount; i++)
        {
            final String name = getString(position);
            position += 4 + bigEndian.getInt(position);
            check(position, 1);
            final int kindCode = bigEndian.get(position);
            position += 1;
            final String keyType = getString(position);
            position += 4 + bigEndian.getInt(position);
            final int keyVersion = getInt(position);
            position += 4;
            final String valueType = getString(position);
            position += 4 + bigEndian.getInt(position);
            final int valueVersion = getInt(position);
            position += 4;
            String userKeyType = "";
            int userKeyVersion = 0;
            boolean timeToLive = false;
            if (version >= 2)
            {
                userKeyType = getString(position);
                position += 4 + bigEndian.getInt(position);
                userKeyVersion = getInt(position);
                position += 4;
                check(position, 1);
                final int flags = bigEndian.get(position);
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
        final int groupCount = getInt(length - KeyedSnapshotFormat.FOOTER_LENGTH);
        final long indexOffset = bigEndian.getLong(length - 12);
        if (groupCount < 0 || groupCount > range.size() ||
            indexOffset != length - KeyedSnapshotFormat.FOOTER_LENGTH - 12L * groupCount || indexOffset < position)
        {
            throw corrupt("index of " + groupCount + " groups at " + indexOffset + " does not fit the file");
        }
        groups = new int[groupCount];
        offsets = new long[groupCount];
        for (int i = 0; i < groupCount; i++)
        {
            final int at = (int)indexOffset + 12 * i;
            groups[i] = getInt(at);
            offsets[i] = bigEndian.getLong(at + 4);
            if (!range.contains(groups[i]) || (i > 0 && groups[i] <= groups[i - 1]) || offsets[i] < position ||
                offsets[i] >= indexOffset)
            {
                throw corrupt("index entry " + i + " (key group " + groups[i] + " at " + offsets[i] + ") is invalid");
            }
        }
    }

    /**
     * @param data the snapshot's bytes, already checked against their handle's length and checksum.
     * @param file the file, for messages.
     * @return a reader.
     * @throws CorruptCheckpointException when the header or index are damaged.
     */
    public static KeyedSnapshotReader open(final byte[] data, final String file)
    {
        return new KeyedSnapshotReader(data, file);
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
        int position = (int)offsets[g];
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
        for (int e = 0; e < entries; e++)
        {
            final int stateIndex = getInt(position);
            if (stateIndex < 0 || stateIndex >= states.size())
            {
                throw corrupt("entry of key group " + groups[g] + " names state " + stateIndex);
            }
            final int keyLength = length(position + 4);
            final int keyOffset = position + 8;
            position = keyOffset + keyLength;
            final int subKeyLength = getInt(position);
            if (subKeyLength < -1)
            {
                throw corrupt("negative sub-key length in key group " + groups[g]);
            }
            final int subKeyOffset = position + 4;
            position = subKeyOffset + Math.max(0, subKeyLength);
            check(position, 0);
            if (delta && subKeyLength == -1 && getInt(position) == KeyedSnapshotFormat.TOMBSTONE)
            {
                visitor.entry(groups[g], stateIndex, bytes, keyOffset, keyLength, subKeyOffset, -1, position + 4,
                    KeyedSnapshotFormat.TOMBSTONE);
                position += 4;
                continue;
            }
            final int valueLength = length(position);
            final int valueOffset = position + 4;
            position = valueOffset + valueLength;
            visitor.entry(groups[g], stateIndex, bytes, keyOffset, keyLength, subKeyOffset, subKeyLength,
                valueOffset, valueLength);
        }
    }

    private int length(final int at)
    {
        final int length = getInt(at);
        if (length < 0)
        {
            throw corrupt("negative length at offset " + at);
        }
        check(at + 4, length);
        return length;
    }

    private int getInt(final int at)
    {
        check(at, 4);
        return bigEndian.getInt(at);
    }

    private String getString(final int at)
    {
        final int length = length(at);
        if (length > 1 << 16)
        {
            throw corrupt("string of " + length + " bytes at offset " + at);
        }
        return new String(bytes.toByteArray(at + 4, length), StandardCharsets.UTF_8);
    }

    private void check(final long at, final long length)
    {
        if (at < 0 || length < 0 || at + length > bytes.capacity())
        {
            throw corrupt("an entry runs past the end of the file (offset " + at + ", " + length + " bytes)");
        }
    }

    private CorruptCheckpointException corrupt(final String problem)
    {
        return new CorruptCheckpointException(file, problem);
    }
}
