package io.ringflow.state.chronicle;

import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ExternalMapQueryContext;

import java.util.Arrays;
import java.util.List;

/**
 * The keys of a delta's change sets, ordered by the segment of a Chronicle map they fall in, each key once though it
 * be in several sets: what lets a delta read its keys segment by segment ({@link PendingStateDelta}).
 *
 * <p>Each key is a reference into its set's arena ({@code set index << 32 | record}); no key is copied. Built with two
 * passes over the sets (the segment of each key, from the map's own hashing, then a counting sort), and, when there is
 * more than one set, a pass per segment that drops a key met before in that segment (a table as large as the largest
 * segment's keys, so its probes stay in cache). Memory: 12 bytes a key while it is built, 8 after.
 *
 * <p>Thread contract: built and read by one thread (the flusher), over sets no longer recorded into.
 */
final class ChangedKeysBySegment
{
    private final List<ChangedKeySet> sets;
    /** By segment: where its keys start in {@link #refs}; {@code starts[segments]} is the end of the last. */
    private final int[] starts;
    /** {@code set index << 32 | record}, by segment. */
    private final long[] refs;

    private ChangedKeysBySegment(final List<ChangedKeySet> sets, final int[] starts, final long[] refs)
    {
        this.sets = sets;
        this.starts = starts;
        this.refs = refs;
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
        if (total > Integer.MAX_VALUE - 8)
        {
            throw new IllegalStateException("a delta of " + total + " changed keys is more than one array can order");
        }
        final int segments = map.segments();
        final int[] segmentOf = new int[(int)total];
        final int[] starts = new int[segments + 1];
        final SegmentPass segmentPass = new SegmentPass(map, scratch, segmentOf, starts);
        for (final ChangedKeySet set : sets)
        {
            set.forEachRecord(segmentPass);
        }
        // starts[s + 1] holds the count of segment s: turn the counts into where each segment starts
        for (int s = 0; s < segments; s++)
        {
            starts[s + 1] += starts[s];
        }
        final long[] refs = new long[(int)total];
        final int[] next = Arrays.copyOf(starts, segments);
        int key = 0;
        for (int setIndex = 0; setIndex < sets.size(); setIndex++)
        {
            final long high = (long)setIndex << 32;
            final PlacePass place = new PlacePass(high, segmentOf, next, refs, key);
            sets.get(setIndex).forEachRecord(place);
            key = place.key;
        }
        final ChangedKeysBySegment bySegment = new ChangedKeysBySegment(sets, starts, refs);
        if (sets.size() > 1)
        {
            bySegment.dropRepeats();
        }
        return bySegment;
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
        final long ref = refs[at];
        final ChangedKeySet set = sets.get((int)(ref >>> 32));
        final int record = (int)ref;
        final int length = set.keyLength(record);
        into.ensureCapacity(length);
        System.arraycopy(set.arena(), set.keyOffset(record), into.array(), 0, length);
        into.length(length);
    }

    /** Keeps the first reference to each key in each segment, moving the segments' starts down to match. */
    private void dropRepeats()
    {
        int largest = 0;
        for (int s = 0; s + 1 < starts.length; s++)
        {
            largest = Math.max(largest, starts[s + 1] - starts[s]);
        }
        // at most half full; a slot holds a kept key's index in refs plus one, 0 when empty
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
                final long ref = refs[at];
                final ChangedKeySet set = sets.get((int)(ref >>> 32));
                final int record = (int)ref;
                final byte[] arena = set.arena();
                final int offset = set.keyOffset(record);
                final int length = set.keyLength(record);
                int slot = ChangedKeySet.spread(PreservedKey.hash(arena, offset, length)) & mask;
                boolean repeat = false;
                for (int held = table[slot]; held != 0; held = table[slot])
                {
                    if (sameKey(refs[held - 1], arena, offset, length))
                    {
                        repeat = true;
                        break;
                    }
                    slot = (slot + 1) & mask;
                }
                if (!repeat)
                {
                    refs[kept] = ref;
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

    private boolean sameKey(final long ref, final byte[] arena, final int offset, final int length)
    {
        final ChangedKeySet set = sets.get((int)(ref >>> 32));
        final int record = (int)ref;
        final int heldOffset = set.keyOffset(record);
        return set.keyLength(record) == length &&
            Arrays.equals(set.arena(), heldOffset, heldOffset + length, arena, offset, offset + length);
    }

    /** Finds each key's segment (the map's hashing; no segment is locked) and counts the keys of each. */
    private static final class SegmentPass implements ChangedKeySet.KeyRecords
    {
        private final ChronicleMap<EncodedBytes, EncodedBytes> map;
        private final EncodedBytes scratch;
        private final int[] segmentOf;
        private final int[] counts;
        private int key;

        SegmentPass(final ChronicleMap<EncodedBytes, EncodedBytes> map, final EncodedBytes scratch,
            final int[] segmentOf, final int[] counts)
        {
            this.map = map;
            this.scratch = scratch;
            this.segmentOf = segmentOf;
            this.counts = counts;
        }

        @Override
        public void accept(final int record, final byte[] arena, final int keyOffset, final int keyLength)
        {
            scratch.ensureCapacity(keyLength);
            System.arraycopy(arena, keyOffset, scratch.array(), 0, keyLength);
            scratch.length(keyLength);
            final int segment;
            try (ExternalMapQueryContext<EncodedBytes, EncodedBytes, ?> context = map.queryContext(scratch))
            {
                segment = context.segmentIndex();
            }
            segmentOf[key++] = segment;
            counts[segment + 1]++;
        }
    }

    /** Puts each key's reference at the next free place of its segment, in the same order as {@link SegmentPass}. */
    private static final class PlacePass implements ChangedKeySet.KeyRecords
    {
        private final long high;
        private final int[] segmentOf;
        private final int[] next;
        private final long[] refs;
        int key;

        PlacePass(final long high, final int[] segmentOf, final int[] next, final long[] refs, final int key)
        {
            this.high = high;
            this.segmentOf = segmentOf;
            this.next = next;
            this.refs = refs;
            this.key = key;
        }

        @Override
        public void accept(final int record, final byte[] arena, final int keyOffset, final int keyLength)
        {
            refs[next[segmentOf[key++]]++] = high | record;
        }
    }
}
