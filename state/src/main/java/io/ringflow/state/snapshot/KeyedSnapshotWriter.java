package io.ringflow.state.snapshot;

import io.ringflow.state.keyed.KeyGroupRange;
import org.agrona.DirectBuffer;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Writes one keyed snapshot in {@link KeyedSnapshotFormat}. Call {@link #startKeyGroup} for each non-empty key
 * group in ascending order, then {@link #entry} exactly as many times as announced, then {@link #finish}.
 *
 * <p>Thread contract: one thread, usually a snapshot flusher.
 */
public final class KeyedSnapshotWriter
{
    private final DataOutputStream out;
    private final CountingStream counter;
    private final int statesCount;
    private final KeyGroupRange range;
    private int[] groups = new int[16];
    private long[] offsets = new long[16];
    private int groupCount;
    private int remainingInGroup;
    private int lastGroup = -1;
    private byte[] scratch = new byte[256];

    /**
     * Writes the header.
     *
     * @param destination    where the snapshot goes; not closed here.
     * @param maxParallelism the job's number of key groups.
     * @param range          the key groups the writing subtask owns.
     * @param states         the states, in the order their entries refer to them.
     * @throws IOException when writing fails.
     */
    public KeyedSnapshotWriter(
        final OutputStream destination, final int maxParallelism, final KeyGroupRange range,
        final List<StateMeta> states) throws IOException
    {
        this.counter = new CountingStream(new BufferedOutputStream(destination, 64 * 1024));
        this.out = new DataOutputStream(counter);
        this.statesCount = states.size();
        this.range = range;
        out.writeInt(KeyedSnapshotFormat.MAGIC);
        out.writeInt(KeyedSnapshotFormat.VERSION);
        out.writeInt(maxParallelism);
        out.writeInt(range.start());
        out.writeInt(range.end());
        out.writeInt(states.size());
        for (final StateMeta state : states)
        {
            writeString(state.name());
            out.writeByte(state.kind().code());
            writeString(state.keyType());
            out.writeInt(state.keyCodecVersion());
            writeString(state.valueType());
            out.writeInt(state.valueCodecVersion());
            writeString(state.userKeyType());
            out.writeInt(state.userKeyCodecVersion());
            out.writeByte(state.timeToLive() ? KeyedSnapshotFormat.FLAG_TIME_TO_LIVE : 0);
        }
    }

    /**
     * @param keyGroup the next key group, above the previous one and within the range.
     * @param entries  how many entries follow, positive.
     * @throws IOException when writing fails.
     */
    public void startKeyGroup(final int keyGroup, final int entries) throws IOException
    {
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
            groups = java.util.Arrays.copyOf(groups, groupCount * 2);
            offsets = java.util.Arrays.copyOf(offsets, groupCount * 2);
        }
        groups[groupCount] = keyGroup;
        offsets[groupCount] = counter.count;
        groupCount++;
        lastGroup = keyGroup;
        remainingInGroup = entries;
        out.writeInt(keyGroup);
        out.writeInt(entries);
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
     * @param value        the encoded value.
     * @param valueOffset  where it starts.
     * @param valueLength  its length.
     * @throws IOException when writing fails.
     */
    public void entry(
        final int stateIndex,
        final DirectBuffer key, final int keyOffset, final int keyLength,
        final DirectBuffer subKey, final int subKeyOffset, final int subKeyLength,
        final DirectBuffer value, final int valueOffset, final int valueLength) throws IOException
    {
        if (remainingInGroup == 0)
        {
            throw new IllegalStateException("more entries than announced for key group " + lastGroup);
        }
        if (stateIndex < 0 || stateIndex >= statesCount)
        {
            throw new IllegalArgumentException("state index " + stateIndex + " of " + statesCount);
        }
        remainingInGroup--;
        out.writeInt(stateIndex);
        writeBytes(key, keyOffset, keyLength);
        if (subKey == null)
        {
            out.writeInt(-1);
        }
        else
        {
            writeBytes(subKey, subKeyOffset, subKeyLength);
        }
        writeBytes(value, valueOffset, valueLength);
    }

    /**
     * Writes the index and footer and flushes; the destination stays open.
     *
     * @throws IOException when writing fails.
     */
    public void finish() throws IOException
    {
        if (remainingInGroup != 0)
        {
            throw new IllegalStateException("key group " + lastGroup + " still expects " + remainingInGroup +
                " entries");
        }
        final long indexOffset = counter.count;
        for (int i = 0; i < groupCount; i++)
        {
            out.writeInt(groups[i]);
            out.writeLong(offsets[i]);
        }
        out.writeInt(groupCount);
        out.writeLong(indexOffset);
        out.writeInt(KeyedSnapshotFormat.END_MAGIC);
        out.flush();
    }

    private void writeBytes(final DirectBuffer buffer, final int offset, final int length) throws IOException
    {
        out.writeInt(length);
        if (scratch.length < length)
        {
            scratch = new byte[Math.max(length, scratch.length * 2)];
        }
        buffer.getBytes(offset, scratch, 0, length);
        out.write(scratch, 0, length);
    }

    private void writeString(final String value) throws IOException
    {
        final byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    /** Counts the bytes written, as a long: a snapshot may exceed 2 GiB. */
    private static final class CountingStream extends java.io.FilterOutputStream
    {
        long count;

        CountingStream(final OutputStream out)
        {
            super(out);
        }

        @Override
        public void write(final int b) throws IOException
        {
            out.write(b);
            count++;
        }

        @Override
        public void write(final byte[] bytes, final int offset, final int length) throws IOException
        {
            out.write(bytes, offset, length);
            count += length;
        }
    }
}
