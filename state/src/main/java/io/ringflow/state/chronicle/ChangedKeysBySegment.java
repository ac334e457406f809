package io.ringflow.state.chronicle;

import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ExternalMapQueryContext;

import java.util.Arrays;
import java.util.List;

/**
 * The keys of a delta's change sets, ordered by the segment of a Chronicle map they fall in, each key once though it
 * be in several sets: what lets a delta read its keys segment by segment ({@link PendingStateDelta}).
 *
 * <p>The keys' bytes are copied into one array in that order, so that the flusher, going segment by segment, reads
 * them sequentially (read where the change sets recorded them, in recording order, each key was a cache miss: a
 * fifth of a large delta's time). Built with two passes over the sets (the segment of each key, from the map's own
 * hashing, then a counting sort that copies each key to its place), and, when there is more than one set, a pass per
 * segment that drops a key met before in that segment (a table as large as the largest segment's keys, so its probes
 * stay in cache). Memory: the keys' bytes, plus 12 bytes a key while it is built and 8 after.
 *
 * <p>Thread contract: built and read by one thread (the flusher), over sets no longer recorded into.
 */
final class ChangedKeysBySegment
{
    /** The keys' bytes, by segment. */
    private final byte[] bytes;
    /** By key, in segment order: where its bytes start in {@link #bytes}, and how many. */
    private final int[] offsets;
    private final int[] lengths;
    /** By segment: where its keys start in {@link #offsets}; {@code starts[segments]} is the end of the last. */
    private final int[] starts;

    private ChangedKeysBySegment(final byte[] bytes, final int[] offsets, final int[] lengths, final int[] starts)
    {
        this.bytes = bytes;
        this.offsets = offsets;
        this.lengths = lengths;
        this.starts = starts;
    }

    /**
     * @param map     the map whose segments order the keys.
     * @param sets    the change sets, not recorded into from now on.
     * @param scratch a buffer to look keys up with; overwritten.
     * @return their keys by segment, each once.
     */
    static ChangedKeysBySegment of(
        final ChronicleMap<EncodedBytes, EncodedBytes> map, final List<ChangedKeySet> sets, final EncodedBytes scratch)
    {
        long total = 0;
        for (final ChangedKeySet set : sets)
        {
            total += set.size();
        }
        final int segments = map.segments();
        final SegmentPass segmentPass = new SegmentPass(map, scratch, checkedSize(total, "changed keys"), segments);
        for (final ChangedKeySet set : sets)
        {
            set.forEachKey(segmentPass);
        }
        // starts[s + 1] and byteStarts[s + 1] hold segment s's counts: turn them into where each segment starts
        final int[] starts = segmentPass.counts;
        final long[] byteStarts = segmentPass.byteCounts;
        for (int s = 0; s < segments; s++)
        {
            starts[s + 1] += starts[s];
            byteStarts[s + 1] += byteStarts[s];
        }
        final PlacePass place = new PlacePass(segmentPass.segmentOf, starts,
            new byte[checkedSize(byteStarts[segments], "bytes of changed keys")], byteStarts);
        for (final ChangedKeySet set : sets)
        {
            set.forEachKey(place);
        }
        final ChangedKeysBySegment bySegment =
            new ChangedKeysBySegment(place.bytes, place.offsets, place.lengths, starts);
        if (sets.size() > 1)
        {
            bySegment.dropRepeats();
        }
        return bySegment;
    }

    private static int checkedSize(final long size, final String what)
    {
        if (size > Integer.MAX_VALUE - 8)
        {
            throw new IllegalStateException("a delta of " + size + " " + what + " is more than one array can order");
        }
        return (int)size;
    }

    /** @return how many segments the keys are ordered by. */
    int segments()
    {
        return starts.length - 1;
    }

    /** @return where {@code segment}'s keys start, for {@link #keyInto}. */
    int start(final int segment)
    {
        return starts[segment];
    }

    /** @return where {@code segment}'s keys end (exclusive). */
    int end(final int segment)
    {
        return starts[segment + 1];
    }

    /**
     * Copies the {@code at}th key into {@code into}.
     *
     * @param at   between {@link #start} and {@link #end} of a segment.
     * @param into the buffer the key's bytes go to, from index 0.
     */
    void keyInto(final int at, final EncodedBytes into)
    {
        final int length = lengths[at];
        into.ensureCapacity(length);
        System.arraycopy(bytes, offsets[at], into.array(), 0, length);
        into.length(length);
    }

    /** Keeps the first of each key in each segment, moving the segments' starts down to match. */
    private void dropRepeats()
    {
        int largest = 0;
        for (int s = 0; s + 1 < starts.length; s++)
        {
            largest = Math.max(largest, starts[s + 1] - starts[s]);
        }
        // at most half full; a slot holds a kept key's index plus one, 0 when empty
        final int[] table = new int[Integer.highestOneBit(Math.max(2, largest) * 2 - 1) << 1];
        final int mask = table.length - 1;
        final int[] used = new int[largest];
        int kept = 0;
        int from = starts[0];
        for (int s = 0; s + 1 < starts.length; s++)
        {
            final int to = starts[s + 1];
            starts[s] = kept;
            int usedCount = 0;
            for (int at = from; at < to; at++)
            {
                final int offset = offsets[at];
                final int length = lengths[at];
                int slot = ChangedKeySet.spread(PreservedKey.hash(bytes, offset, length)) & mask;
                boolean repeat = false;
                for (int held = table[slot]; held != 0; held = table[slot])
                {
                    final int heldOffset = offsets[held - 1];
                    if (lengths[held - 1] == length &&
                        Arrays.equals(bytes, heldOffset, heldOffset + length, bytes, offset, offset + length))
                    {
                        repeat = true;
                        break;
                    }
                    slot = (slot + 1) & mask;
                }
                if (!repeat)
                {
                    offsets[kept] = offset;
                    lengths[kept] = length;
                    table[slot] = ++kept;
                    used[usedCount++] = slot;
                }
            }
            for (int u = 0; u < usedCount; u++)
            {
                table[used[u]] = 0;
            }
            from = to;
        }
        starts[starts.length - 1] = kept;
    }

    /**
     * Finds each key's segment (the map's hashing; no segment is locked) and counts the keys and bytes of each,
     * segment {@code s}'s at {@code s + 1}.
     */
    private static final class SegmentPass implements ChangedKeySet.KeyBytes
    {
        private final ChronicleMap<EncodedBytes, EncodedBytes> map;
        private final EncodedBytes scratch;
        final int[] segmentOf;
        final int[] counts;
        final long[] byteCounts;
        private int key;

        SegmentPass(final ChronicleMap<EncodedBytes, EncodedBytes> map, final EncodedBytes scratch, final int keys,
            final int segments)
        {
            this.map = map;
            this.scratch = scratch;
            this.segmentOf = new int[keys];
            this.counts = new int[segments + 1];
            this.byteCounts = new long[segments + 1];
        }

        @Override
        public void accept(final byte[] bytes, final int offset, final int length)
        {
            scratch.ensureCapacity(length);
            System.arraycopy(bytes, offset, scratch.array(), 0, length);
            scratch.length(length);
            final int segment;
            try (ExternalMapQueryContext<EncodedBytes, EncodedBytes, ?> context = map.queryContext(scratch))
            {
                segment = context.segmentIndex();
            }
            segmentOf[key++] = segment;
            counts[segment + 1]++;
            byteCounts[segment + 1] += length;
        }
    }

    /** Copies each key to the next free place of its segment, in the same order as {@link SegmentPass}. */
    private static final class PlacePass implements ChangedKeySet.KeyBytes
    {
        private final int[] segmentOf;
        /** By segment: the next key's index, then the next key's byte. */
        private final int[] nextKey;
        private final long[] nextByte;
        final byte[] bytes;
        final int[] offsets;
        final int[] lengths;
        private int key;

        PlacePass(final int[] segmentOf, final int[] starts, final byte[] bytes, final long[] byteStarts)
        {
            this.segmentOf = segmentOf;
            this.nextKey = Arrays.copyOf(starts, starts.length - 1);
            this.nextByte = Arrays.copyOf(byteStarts, byteStarts.length - 1);
            this.bytes = bytes;
            this.offsets = new int[segmentOf.length];
            this.lengths = new int[segmentOf.length];
        }

        @Override
        public void accept(final byte[] source, final int offset, final int length)
        {
            final int segment = segmentOf[key++];
            final int at = nextKey[segment]++;
            final int to = (int)nextByte[segment];
            nextByte[segment] = to + length;
            System.arraycopy(source, offset, bytes, to, length);
            offsets[at] = to;
            lengths[at] = length;
        }
    }
}
