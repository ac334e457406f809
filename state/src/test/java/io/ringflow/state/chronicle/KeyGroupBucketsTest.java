package io.ringflow.state.chronicle;

import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.StateKind;
import io.ringflow.state.snapshot.KeyedSnapshotFormat;
import io.ringflow.state.snapshot.KeyedSnapshotReader;
import io.ringflow.state.snapshot.KeyedSnapshotWriter;
import io.ringflow.state.snapshot.StateMeta;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link KeyGroupBuckets}: a snapshot's entries come out grouped by key group, ascending, each group's in the order
 * they were added, whatever the buckets held before (a thread's next snapshot writes over the buckets the last one
 * kept) and whether or not they were spilled.
 */
class KeyGroupBucketsTest
{
    private static final KeyGroupRange RANGE = new KeyGroupRange(16, 47);
    private static final List<StateMeta> STATES = List.of(
        new StateMeta("counts", StateKind.VALUE, "java.lang.Long", 1, "java.lang.Long", 1),
        new StateMeta("seen", StateKind.MAP, "java.lang.Long", 1, "java.lang.String", 1, "java.lang.String", 1,
            false));

    @TempDir
    Path spillDirectory;

    /** One entry as the reader hands it back: key, user key and value in hex, the value "tombstone" for one. */
    private record Entry(int keyGroup, int state, String key, String userKey, String value)
    {
    }

    @Test
    void snapshotsOnOneThreadWriteOverTheBucketsTheLastKeptAndReadBackExactlyTheirOwnEntries() throws IOException
    {
        final SplittableRandom random = new SplittableRandom(0x5EED_B0C7L);
        // per key group, the most entries of a round that used it: its kept bucket is at least that round's share
        final int[] largestRoundUsing = new int[RANGE.end() + 1];
        Arrays.fill(largestRoundUsing, -1);
        int roundsWithoutNewBuckets = 0;
        for (int round = 0; round < 40; round++)
        {
            // large and small snapshots in turn, so a later one writes fewer, shorter entries over longer old ones
            final int entries = random.nextInt(4) == 0 ? 2_000 + random.nextInt(3_000) : random.nextInt(60);
            final long spillAfter = random.nextInt(5) == 0 ? 1 + random.nextInt(4_096) : Long.MAX_VALUE;
            final List<Entry> added = new ArrayList<>();
            final KeyGroupBuckets buckets = new KeyGroupBuckets(RANGE, entries, spillAfter, spillDirectory);
            final BitSet used = new BitSet();
            for (int e = 0; e < entries; e++)
            {
                final int keyGroup = RANGE.start() + random.nextInt(RANGE.size());
                used.set(keyGroup);
                final byte[] storedKey = bytes(random, StoredKeyLayout.KEY_OFFSET + 1 + random.nextInt(24));
                final int state = random.nextInt(STATES.size());
                final String key = hex(storedKey, StoredKeyLayout.KEY_OFFSET, storedKey.length);
                if (random.nextInt(8) == 0)
                {
                    buckets.addTombstone(keyGroup, state, storedKey, storedKey.length);
                    added.add(new Entry(keyGroup, state, key, null, "tombstone"));
                    continue;
                }
                final byte[] value = bytes(random, random.nextInt(40));
                final byte[] userKey = state == 1 ? bytes(random, 1 + random.nextInt(12)) : null;
                buckets.add(keyGroup, state, storedKey, storedKey.length, userKey, 0,
                    userKey == null ? 0 : userKey.length, value, 0, value.length);
                added.add(new Entry(keyGroup, state, key, userKey == null ? null : hex(userKey, 0, userKey.length),
                    hex(value, 0, value.length)));
            }
            // a bucket kept from a smaller round is replaced by one of this round's share
            final boolean everyGroupUsedBefore = used.stream().allMatch(group -> largestRoundUsing[group] >= entries);
            final int created = buckets.createdBuckets();

            assertThat(readBack(buckets, RANGE)).as("round %d", round).isEqualTo(groupedInOrder(added));
            if (everyGroupUsedBefore && round > 0)
            {
                // the rounds' buckets together stay far below KEPT_BUCKET_BYTES, so every one is kept
                assertThat(created).as("buckets created in round %d", round).isZero();
                roundsWithoutNewBuckets++;
            }
            used.stream().forEach(group -> largestRoundUsing[group] = Math.max(largestRoundUsing[group], entries));
        }
        assertThat(roundsWithoutNewBuckets).as("rounds that reused every bucket").isGreaterThan(10);
    }

    @Test
    void snapshotsOfStoresOfDifferentKeyGroupCountsOnOneThreadEachWriteOverTheirOwnKeptBuckets() throws IOException
    {
        final KeyGroupRange other = new KeyGroupRange(100, 109);
        final SplittableRandom random = new SplittableRandom(7);
        for (int round = 0; round < 4; round++)
        {
            for (final KeyGroupRange range : List.of(RANGE, other))
            {
                final KeyGroupBuckets buckets = new KeyGroupBuckets(range, 100, Long.MAX_VALUE, spillDirectory);
                final List<Entry> added = new ArrayList<>();
                for (int group = range.start(); group <= range.end(); group++)
                {
                    final byte[] storedKey = bytes(random, StoredKeyLayout.KEY_OFFSET + 8);
                    final byte[] value = bytes(random, 8);
                    buckets.add(group, 0, storedKey, storedKey.length, null, 0, 0, value, 0, value.length);
                    added.add(new Entry(group, 0, hex(storedKey, StoredKeyLayout.KEY_OFFSET, storedKey.length), null,
                        hex(value, 0, value.length)));
                }
                if (round > 0)
                {
                    // the first round's may come from another test on this thread
                    assertThat(buckets.createdBuckets()).as("round %d, %s", round, range).isZero();
                }
                assertThat(readBack(buckets, range)).isEqualTo(added);
            }
        }
    }

    private static List<Entry> readBack(final KeyGroupBuckets buckets, final KeyGroupRange range) throws IOException
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final KeyedSnapshotWriter writer = new KeyedSnapshotWriter(out, 128, range, STATES, true);
        buckets.writeTo(writer);
        writer.finish();
        final List<Entry> read = new ArrayList<>();
        try (KeyedSnapshotReader reader = KeyedSnapshotReader.open(out.toByteArray(), "buckets"))
        {
            for (final int group : reader.keyGroups())
            {
                reader.readGroup(group, (keyGroup, state, bytes, keyOffset, keyLength, subKeyOffset, subKeyLength,
                    valueOffset, valueLength) -> read.add(new Entry(keyGroup, state,
                    hex(bytes.toByteArray(keyOffset, keyLength), 0, keyLength),
                    subKeyLength < 0 ? null : hex(bytes.toByteArray(subKeyOffset, subKeyLength), 0, subKeyLength),
                    valueLength == KeyedSnapshotFormat.TOMBSTONE ? "tombstone" :
                        hex(bytes.toByteArray(valueOffset, valueLength), 0, valueLength))));
            }
        }
        return read;
    }

    /** @return the entries ordered by key group, ascending, each group's in the order they were added. */
    private static List<Entry> groupedInOrder(final List<Entry> added)
    {
        final List<Entry> sorted = new ArrayList<>(added);
        sorted.sort(Comparator.comparingInt(Entry::keyGroup)); // stable
        return sorted;
    }

    private static byte[] bytes(final SplittableRandom random, final int length)
    {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = (byte)random.nextInt(256);
        }
        return bytes;
    }

    private static String hex(final byte[] bytes, final int from, final int to)
    {
        return HexFormat.of().formatHex(Arrays.copyOfRange(bytes, from, to));
    }
}
