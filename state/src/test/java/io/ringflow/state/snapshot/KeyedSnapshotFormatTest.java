package io.ringflow.state.snapshot;

import io.ringflow.state.checkpoint.CorruptCheckpointException;
import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.codec.StringCodec;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.StateKind;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The keyed snapshot format's header across versions, and the value layouts every backend shares: lists and
 * time-to-live timestamps.
 */
class KeyedSnapshotFormatTest
{
    private static final KeyGroupRange ALL = new KeyGroupRange(0, 127);

    @Test
    void version2CarriesUserKeyTypesAndTheTimeToLiveFlag() throws IOException
    {
        final List<StateMeta> metas = List.of(
            new StateMeta("visits", StateKind.MAP, "java.lang.Long", 1, "java.lang.Long", 1, "java.lang.String", 3,
                true),
            new StateMeta("counts", StateKind.VALUE, "java.lang.Long", 1, "java.lang.Long", 1));
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        new KeyedSnapshotWriter(out, 128, ALL, metas).finish();

        final KeyedSnapshotReader reader = KeyedSnapshotReader.open(out.toByteArray(), "v2");

        assertThat(reader.states()).isEqualTo(metas);
        assertThat(out.toByteArray()[7]).as("version").isEqualTo((byte)KeyedSnapshotFormat.VERSION);
    }

    @Test
    void namesAndTypesRoundTripWhetherAsciiOrNotAndLongerThanAChunk() throws IOException
    {
        // ASCII is written char by char, anything else as its UTF-8 bytes; a name longer than the smallest chunk
        // crosses chunk boundaries
        final String longName = "n".repeat(20_000) + "-end";
        final List<StateMeta> metas = List.of(
            new StateMeta("z\u00e4hlung", StateKind.VALUE, "java.lang.Long", 1, "java.lang.Long", 1),
            new StateMeta(longName, StateKind.MAP, "\u65e5\u672c.Key", 2, "java.lang.String", 1, "", 0, false),
            new StateMeta("", StateKind.VALUE, "java.lang.Long", 1, "java.lang.Long", 1));
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        new KeyedSnapshotWriter(out, 128, ALL, metas).finish();

        assertThat(KeyedSnapshotReader.open(out.toByteArray(), "names").states()).isEqualTo(metas);
    }

    @Test
    void version1IsStillReadAsStatesWithoutUserKeysOrTimeToLive() throws IOException
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(KeyedSnapshotFormat.MAGIC);
        out.writeInt(1);
        out.writeInt(128);
        out.writeInt(0);
        out.writeInt(127);
        out.writeInt(1);
        writeString(out, "counts");
        out.writeByte(StateKind.VALUE.code());
        writeString(out, "java.lang.Long");
        out.writeInt(1);
        writeString(out, "java.lang.Long");
        out.writeInt(1);
        final int indexOffset = bytes.size();
        out.writeInt(0);
        out.writeLong(indexOffset);
        out.writeInt(KeyedSnapshotFormat.END_MAGIC);

        final KeyedSnapshotReader reader = KeyedSnapshotReader.open(bytes.toByteArray(), "v1");

        assertThat(reader.states()).containsExactly(
            new StateMeta("counts", StateKind.VALUE, "java.lang.Long", 1, "java.lang.Long", 1, "", 0, false));
    }

    @Test
    void unknownFlagsAndVersionsAreCorrupt() throws IOException
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        new KeyedSnapshotWriter(out, 128, ALL,
            List.of(new StateMeta("counts", StateKind.VALUE, "java.lang.Long", 1, "java.lang.Long", 1))).finish();
        final byte[] flagged = out.toByteArray();
        // the flags byte ends the header, right before the footer of an empty snapshot
        flagged[flagged.length - 16 - 1] = 0x40;
        final byte[] future = out.toByteArray();
        future[7] = 4;
        final byte[] unknownType = out.toByteArray();
        unknownType[11] = 7;

        assertThatThrownBy(() -> KeyedSnapshotReader.open(flagged, "flagged"))
            .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("flags");
        assertThatThrownBy(() -> KeyedSnapshotReader.open(future, "future"))
            .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("version 4");
        assertThatThrownBy(() -> KeyedSnapshotReader.open(unknownType, "unknown-type"))
            .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("snapshot type 7");
    }

    // ------------------------------------------------------------------------------------------------ deltas

    private static final StateMeta COUNTS =
        new StateMeta("counts", StateKind.VALUE, "java.lang.Long", 1, "java.lang.Long", 1);
    private static final StateMeta TAGS =
        new StateMeta("tags", StateKind.MAP, "java.lang.Long", 1, "java.lang.Long", 1, "java.lang.Long", 1, false);

    /** One entry to write: value null is a tombstone, userKey null means none. */
    private record Entry(int keyGroup, int state, long key, Long userKey, Long value)
    {
    }

    private static byte[] snapshot(final boolean delta, final KeyGroupRange range, final List<StateMeta> states,
        final Entry... entries) throws IOException
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final KeyedSnapshotWriter writer = new KeyedSnapshotWriter(out, 128, range, states, delta);
        int i = 0;
        while (i < entries.length)
        {
            int end = i;
            while (end < entries.length && entries[end].keyGroup() == entries[i].keyGroup())
            {
                end++;
            }
            writer.startKeyGroup(entries[i].keyGroup(), end - i);
            for (; i < end; i++)
            {
                final Entry e = entries[i];
                final CodecBuffer key = longBytes(e.key());
                if (e.value() == null)
                {
                    writer.tombstone(e.state(), key, 0, 8);
                }
                else
                {
                    writer.entry(e.state(), key, 0, 8, e.userKey() == null ? null : longBytes(e.userKey()), 0, 8,
                        longBytes(e.value()), 0, 8);
                }
            }
        }
        writer.finish();
        return out.toByteArray();
    }

    private static CodecBuffer longBytes(final long value)
    {
        final CodecBuffer buffer = CodecBuffer.allocate(8);
        buffer.putLong(0, value);
        return buffer;
    }

    /** (state name, key, user key or -1) to value, read from a full snapshot. */
    private static Map<String, Long> contents(final byte[] bytes)
    {
        final KeyedSnapshotReader reader = KeyedSnapshotReader.open(bytes, "merged");
        assertThat(reader.isDelta()).isFalse();
        final Map<String, Long> contents = new java.util.TreeMap<>();
        reader.read(reader.range(), (group, state, buffer, keyOffset, keyLength, subKeyOffset, subKeyLength,
            valueOffset, valueLength) -> contents.put(reader.states().get(state).name() + "/" + group + "/" +
                buffer.getLong(keyOffset) + "/" + (subKeyLength < 0 ? -1 :
                buffer.getLong(subKeyOffset)),
            buffer.getLong(valueOffset)));
        return contents;
    }

    @Test
    void snapshotsWrittenOneAfterAnotherOnOneThreadEachHoldExactlyTheirOwnEntries() throws IOException
    {
        // writers on one thread pass their chunk on: large and small snapshots, in a seeded order, must not see a
        // previous snapshot's bytes
        final java.util.Random random = new java.util.Random(7);
        for (int round = 0; round < 30; round++)
        {
            final int count = random.nextBoolean() ? random.nextInt(20) : random.nextInt(6_000);
            final Entry[] entries = new Entry[count];
            final Map<String, Long> expected = new java.util.TreeMap<>();
            for (int i = 0; i < count; i++)
            {
                final int group = (int)((long)i * 128 / Math.max(1, count));
                final long value = random.nextLong();
                entries[i] = new Entry(group, 0, i, null, value);
                expected.put("counts/" + group + "/" + i + "/-1", value);
            }
            assertThat(contents(snapshot(false, ALL, List.of(COUNTS), entries))).as("round %d", round)
                .isEqualTo(expected);
        }
    }

    /** Records which arrays it was handed, by identity. */
    private static final class RecordingStream extends ByteArrayOutputStream
    {
        final List<byte[]> handed = new ArrayList<>();

        @Override
        public synchronized void write(final byte[] bytes, final int offset, final int length)
        {
            if (handed.stream().noneMatch(array -> array == bytes))
            {
                handed.add(bytes);
            }
            super.write(bytes, offset, length);
        }
    }

    @Test
    void aFinishedWritersChunkGoesToTheNextWriterOnItsThreadAndTwoLiveWritersNeverShareOne() throws Exception
    {
        // on a fresh thread, whose spare starts empty
        java.util.concurrent.CompletableFuture.runAsync(() ->
        {
            try
            {
                final RecordingStream first = new RecordingStream();
                writeCounts(new KeyedSnapshotWriter(first, 128, ALL, List.of(COUNTS), false, 1_000), 0, 20);
                final RecordingStream second = new RecordingStream();
                writeCounts(new KeyedSnapshotWriter(second, 128, ALL, List.of(COUNTS), false, 1_000), 100, 20);
                assertThat(second.handed).as("the first writer's chunk is reused").hasSize(1)
                    .first().isSameAs(first.handed.get(0));
                assertThat(contents(second.toByteArray())).hasSize(20).containsKey("counts/0/100/-1");

                // two writers alive at once: the second gets a chunk and a key-group index of its own; entries
                // interleaved, two per key group in the second, so that the two indexes' offsets differ
                final RecordingStream left = new RecordingStream();
                final RecordingStream right = new RecordingStream();
                final KeyedSnapshotWriter a = new KeyedSnapshotWriter(left, 128, ALL, List.of(COUNTS), false, 1_000);
                final KeyedSnapshotWriter b = new KeyedSnapshotWriter(right, 128, ALL, List.of(COUNTS), false, 1_000);
                for (int group = 0; group < 10; group++)
                {
                    a.startKeyGroup(group, 1);
                    b.startKeyGroup(group, 2);
                    a.longEntry(0, group, group);
                    b.longEntry(0, 1_000 + group, -group);
                    b.longEntry(0, 2_000 + group, group);
                }
                a.finish();
                b.finish();
                assertThat(left.handed).doesNotContainAnyElementsOf(right.handed);
                final Map<String, Long> leftContents = contents(left.toByteArray());
                final Map<String, Long> rightContents = contents(right.toByteArray());
                assertThat(leftContents).hasSize(10).containsEntry("counts/3/3/-1", 3L);
                assertThat(rightContents).hasSize(20).containsEntry("counts/3/1003/-1", -3L)
                    .containsEntry("counts/3/2003/-1", 3L);
                // read through each file's key-group index: a shared index would point one file at the other's
                // offsets
                final KeyedSnapshotReader leftReader = KeyedSnapshotReader.open(left.toByteArray(), "left");
                final long[] readFromGroup = new long[1];
                leftReader.readGroup(7, (keyGroup, stateIndex, bytes, keyOffset, keyLength, subKeyOffset,
                    subKeyLength, valueOffset, valueLength) -> readFromGroup[0] = bytes.getLong(keyOffset));
                assertThat(readFromGroup[0]).isEqualTo(7L);

                // a writer that needs more than the spare holds gets a new, larger chunk
                final RecordingStream large = new RecordingStream();
                writeCounts(new KeyedSnapshotWriter(large, 128, ALL, List.of(COUNTS), false, 1_000_000), 0, 5_000);
                assertThat(large.handed).doesNotContainAnyElementsOf(left.handed).doesNotContainAnyElementsOf(
                    right.handed);
                assertThat(contents(large.toByteArray())).hasSize(5_000);
            }
            catch (final IOException ex)
            {
                throw new java.io.UncheckedIOException(ex);
            }
        }, runnable -> new Thread(runnable, "writers").start()).get();
    }

    /** Writes {@code count} counts with keys from {@code firstKey}, one key group each up to 128, and finishes. */
    private static void writeCounts(final KeyedSnapshotWriter writer, final long firstKey, final int count)
        throws IOException
    {
        final int groups = Math.min(128, count);
        for (int group = 0; group < groups; group++)
        {
            final int inGroup = count / groups + (group < count % groups ? 1 : 0);
            writer.startKeyGroup(group, inGroup);
            for (int i = 0; i < inGroup; i++)
            {
                final long key = firstKey + (long)i * groups + group;
                writer.longEntry(0, key, key * 7);
            }
        }
        writer.finish();
    }

    /**
     * A sorted run's entries written a key group at a time ({@link KeyedSnapshotWriter#longEntries}) are the same
     * bytes as one entry at a time, across chunk boundaries (runs of up to 5,000 entries of 32 bytes, chunks of 4 to
     * 64 KiB), and a group announced too small is refused before anything is written.
     */
    @Test
    void longEntriesWritesTheBytesOfOneLongEntryAtATime() throws IOException
    {
        final java.util.Random random = new java.util.Random(11);
        for (int round = 0; round < 20; round++)
        {
            final int size = random.nextInt(5_000);
            final long[] keys = new long[size + 3];
            final long[] values = new long[size + 3];
            final int[] groupStarts = new int[129];
            for (int i = 0; i < keys.length; i++)
            {
                keys[i] = random.nextLong();
                values[i] = random.nextLong();
            }
            for (int i = 0; i < size; i++)
            {
                groupStarts[1 + random.nextInt(128)]++;
            }
            for (int g = 1; g < groupStarts.length; g++)
            {
                groupStarts[g] += groupStarts[g - 1];
            }
            final long expectedBytes = random.nextInt(100_000);
            final ByteArrayOutputStream oneByOne = new ByteArrayOutputStream();
            final ByteArrayOutputStream inRuns = new ByteArrayOutputStream();
            final KeyedSnapshotWriter single = new KeyedSnapshotWriter(oneByOne, 128, ALL, List.of(COUNTS), false,
                expectedBytes);
            final KeyedSnapshotWriter bulk = new KeyedSnapshotWriter(inRuns, 128, ALL, List.of(COUNTS), false,
                expectedBytes);
            for (int group = 0; group < 128; group++)
            {
                final int from = groupStarts[group];
                final int to = groupStarts[group + 1];
                if (from == to)
                {
                    continue;
                }
                single.startKeyGroup(group, to - from);
                bulk.startKeyGroup(group, to - from);
                for (int i = from; i < to; i++)
                {
                    single.longEntry(0, keys[i], values[i]);
                }
                bulk.longEntries(0, keys, values, from, to);
            }
            single.finish();
            bulk.finish();
            assertThat(inRuns.toByteArray()).as("seed 11, round %d, %d entries", round, size)
                .isEqualTo(oneByOne.toByteArray());
        }

        // refused whole: the writer goes on as if the call had not been made
        final ByteArrayOutputStream refused = new ByteArrayOutputStream();
        final KeyedSnapshotWriter writer = new KeyedSnapshotWriter(refused, 128, ALL, List.of(COUNTS));
        writer.startKeyGroup(3, 2);
        assertThatThrownBy(() -> writer.longEntries(0, new long[] {1, 2, 3}, new long[3], 0, 3))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("more entries than announced");
        writer.longEntries(0, new long[] {7, 8}, new long[] {70, 80}, 0, 2);
        writer.finish();
        final ByteArrayOutputStream expected = new ByteArrayOutputStream();
        final KeyedSnapshotWriter plain = new KeyedSnapshotWriter(expected, 128, ALL, List.of(COUNTS));
        plain.startKeyGroup(3, 2);
        plain.longEntry(0, 7, 70);
        plain.longEntry(0, 8, 80);
        plain.finish();
        assertThat(refused.toByteArray()).isEqualTo(expected.toByteArray());
    }

    @Test
    void aFinishedWriterRefusesToWriteMore() throws IOException
    {
        final KeyedSnapshotWriter writer = new KeyedSnapshotWriter(new ByteArrayOutputStream(), 128, ALL,
            List.of(COUNTS));
        writer.finish();

        assertThatThrownBy(() -> writer.startKeyGroup(0, 1)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("finished");
        assertThatThrownBy(writer::finish).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("finished");
    }

    @Test
    void aChainMergesInOrderWithTombstonesRemovingAKeyAndAllItsUserKeys() throws IOException
    {
        final byte[] full = snapshot(false, ALL, List.of(COUNTS, TAGS),
            new Entry(1, 0, 10, null, 100L), new Entry(1, 1, 10, 1L, 11L), new Entry(1, 1, 10, 2L, 12L),
            new Entry(5, 0, 50, null, 500L), new Entry(9, 0, 90, null, 900L));
        // the delta lists its states in another order, and adds one
        final StateMeta extra = new StateMeta("extra", StateKind.VALUE, "java.lang.Long", 1, "java.lang.Long", 1);
        final byte[] first = snapshot(true, ALL, List.of(TAGS, COUNTS, extra),
            new Entry(1, 0, 10, null, null), new Entry(1, 0, 10, 3L, 13L),
            new Entry(5, 1, 50, null, null), new Entry(6, 2, 60, null, 6L));
        final byte[] second = snapshot(true, ALL, List.of(COUNTS, TAGS, extra),
            new Entry(5, 0, 50, null, 501L), new Entry(9, 0, 90, null, null), new Entry(9, 0, 91, null, 910L));

        final KeyedSnapshotReader deltaReader = KeyedSnapshotReader.open(first, "delta");
        assertThat(deltaReader.isDelta()).isTrue();
        final List<KeyedSnapshotReader> chain = List.of(KeyedSnapshotReader.open(full, "full"), deltaReader,
            KeyedSnapshotReader.open(second, "delta-2"));
        assertThat(contents(KeyedSnapshotChain.mergeToBytes(chain, ALL))).containsExactlyInAnyOrderEntriesOf(Map.of(
            "counts/1/10/-1", 100L, "tags/1/10/3", 13L, "counts/5/50/-1", 501L,
            "extra/6/60/-1", 6L, "counts/9/91/-1", 910L));
        assertThat(contents(KeyedSnapshotChain.mergeToBytes(chain, new KeyGroupRange(5, 6))))
            .as("only the wanted key groups").containsOnlyKeys("counts/5/50/-1", "extra/6/60/-1");
        assertThat(KeyedSnapshotChain.merge(chain.subList(0, 1), ALL)).as("a lone full snapshot as it is")
            .isSameAs(chain.get(0));
    }

    @Test
    void aChainOfDeltasOnlyMergesEveryFileAsADeltaOnNothing() throws IOException
    {
        // a round of deltas whose full snapshot was dropped: the first one's tombstones remove nothing, a tombstone
        // then a value of one key in one file leaves the value, and a later file's tombstone removes it again
        final byte[] first = snapshot(true, ALL, List.of(COUNTS, TAGS),
            new Entry(1, 0, 10, null, null), new Entry(1, 0, 10, null, 100L), new Entry(1, 1, 10, null, null),
            new Entry(1, 1, 10, 1L, 11L), new Entry(5, 0, 50, null, 500L), new Entry(9, 0, 90, null, null));
        final byte[] second = snapshot(true, ALL, List.of(COUNTS, TAGS),
            new Entry(5, 0, 50, null, null), new Entry(9, 0, 90, null, 900L), new Entry(9, 1, 90, 2L, 92L));

        final List<KeyedSnapshotReader> chain = List.of(KeyedSnapshotReader.open(first, "d1"),
            KeyedSnapshotReader.open(second, "d2"));
        assertThat(contents(KeyedSnapshotChain.mergeToBytes(chain, ALL))).containsExactlyInAnyOrderEntriesOf(Map.of(
            "counts/1/10/-1", 100L, "tags/1/10/1", 11L, "counts/9/90/-1", 900L, "tags/9/90/2", 92L));
        final KeyedSnapshotReader lone = KeyedSnapshotChain.merge(List.of(KeyedSnapshotReader.open(first, "d1")), ALL);
        assertThat(lone.isDelta()).as("a lone delta is merged into a full snapshot, not handed on").isFalse();
        assertThat(entries(lone)).containsExactlyInAnyOrderEntriesOf(Map.of(
            "counts/1/10/-1", 100L, "tags/1/10/1", 11L, "counts/5/50/-1", 500L));
    }

    @Test
    void aMergedChainToldWhichKeysAreWantedMergesOnlyThoseAndAFileStillHandsEveryEntry() throws IOException
    {
        final byte[] full = snapshot(false, ALL, List.of(COUNTS, TAGS),
            new Entry(1, 0, 10, null, 100L), new Entry(1, 1, 10, 1L, 11L), new Entry(1, 1, 10, 2L, 12L),
            new Entry(5, 0, 50, null, 500L), new Entry(9, 0, 90, null, 900L));
        final byte[] delta = snapshot(true, ALL, List.of(TAGS, COUNTS),
            new Entry(1, 0, 10, null, null), new Entry(1, 0, 10, 3L, 13L),
            new Entry(5, 1, 50, null, 501L), new Entry(9, 1, 90, null, null), new Entry(9, 1, 91, null, 910L));
        final KeyedSnapshotReader merged = KeyedSnapshotChain.merge(List.of(open(full, "full"), open(delta, "delta")),
            ALL);
        // wanted: counts 50 and 90 (removed by the delta), tags 10 (removed, then given user key 3)
        final java.util.Set<String> asked = new java.util.TreeSet<>();
        merged.skipUnwanted((group, state, bytes, keyOffset, keyLength) ->
        {
            final String key = merged.states().get(state).name() + "/" + bytes.getLong(keyOffset);
            asked.add(key);
            return key.equals("counts/50") || key.equals("counts/90") || key.equals("tags/10");
        });

        assertThat(entries(merged)).containsExactlyInAnyOrderEntriesOf(Map.of(
            "counts/5/50/-1", 501L, "tags/1/10/3", 13L));
        assertThat(asked).as("every key of every file asked about, by its merged state")
            .containsExactly("counts/10", "counts/50", "counts/90", "counts/91", "tags/10");

        merged.skipUnwanted(null);
        assertThat(entries(merged)).as("every key again").isEqualTo(contents(KeyedSnapshotChain.mergeToBytes(
            List.of(open(full, "full"), open(delta, "delta")), ALL)));

        final KeyedSnapshotReader file = open(full, "full");
        file.skipUnwanted((group, state, bytes, keyOffset, keyLength) -> false);
        assertThat(entries(file)).as("a file's reader hands every entry").isEqualTo(contents(full));
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "seed {0}")
    @org.junit.jupiter.params.provider.ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void aMergedChainEqualsItsEntriesAppliedInOrderWithOrWithoutAFilter(final long seed) throws IOException
    {
        // a model: the chain's entries applied in order to a map of (state, key group, key) to user key (-1 for
        // none) to value; a tombstone removes the (state, key) with its user keys
        final java.util.Random random = new java.util.Random(seed);
        final int keySpace = 1 + random.nextInt(400);
        final Map<String, java.util.LinkedHashMap<Long, Long>> model = new java.util.TreeMap<>();
        final List<Entry> baseEntries = new java.util.ArrayList<>();
        for (long key = 0; key < keySpace; key++)
        {
            if (random.nextInt(3) > 0)
            {
                baseEntries.add(new Entry(groupOf(key), 0, key, null, random.nextLong()));
            }
            for (long userKey = 0, n = random.nextInt(4); userKey < n; userKey++)
            {
                baseEntries.add(new Entry(groupOf(key), 1, key, userKey, random.nextLong()));
            }
        }
        baseEntries.forEach(e -> applyTo(model, e));
        final List<KeyedSnapshotReader> chain = new java.util.ArrayList<>();
        chain.add(open(snapshot(false, ALL, List.of(COUNTS, TAGS), byGroup(baseEntries)), "full"));
        final int deltas = random.nextInt(5);
        for (int d = 0; d < deltas; d++)
        {
            final List<Entry> delta = new java.util.ArrayList<>();
            for (int i = 0, n = random.nextInt(keySpace); i < n; i++)
            {
                final long key = random.nextInt(keySpace + 20);
                final int op = random.nextInt(6);
                final Entry entry = switch (op)
                {
                    case 0 -> new Entry(groupOf(key), 0, key, null, null);
                    case 1 -> new Entry(groupOf(key), 1, key, null, null);
                    case 2, 3 -> new Entry(groupOf(key), 0, key, null, random.nextLong());
                    default -> new Entry(groupOf(key), 1, key, (long)random.nextInt(6), random.nextLong());
                };
                delta.add(entry);
            }
            final Entry[] ordered = byGroup(delta);
            for (final Entry entry : ordered)
            {
                applyTo(model, entry);
            }
            chain.add(open(snapshot(true, ALL, List.of(COUNTS, TAGS), ordered), "delta-" + d));
        }
        final Map<String, Long> expected = new java.util.TreeMap<>();
        model.forEach((stateKey, values) -> values.forEach((userKey, value) -> expected.put(stateKey + "/" + userKey,
            value)));

        final KeyedSnapshotReader merged = KeyedSnapshotChain.merge(chain, ALL);
        assertThat(entriesOnce(merged)).as("seed %d", seed).isEqualTo(expected);
        assertThat(contents(KeyedSnapshotChain.mergeToBytes(chain, ALL))).isEqualTo(expected);

        final java.util.Set<Long> wantedKeys = new java.util.HashSet<>();
        for (long key = 0; key < keySpace + 20; key++)
        {
            if (random.nextInt(4) == 0)
            {
                wantedKeys.add(key);
            }
        }
        final boolean countsOnly = random.nextBoolean();
        merged.skipUnwanted((group, state, bytes, keyOffset, keyLength) ->
            wantedKeys.contains(bytes.getLong(keyOffset)) && (!countsOnly || state == 0));
        final Map<String, Long> filtered = new java.util.TreeMap<>(expected);
        filtered.keySet().removeIf(k -> !wantedKeys.contains(Long.parseLong(k.split("/")[2])) ||
            countsOnly && !k.startsWith("counts/"));
        assertThat(entriesOnce(merged)).as("seed %d, filtered", seed).isEqualTo(filtered);
    }

    private static int groupOf(final long key)
    {
        return (int)(key % 7) * 11;
    }

    /** @return the entries ordered by key group, each group's in their given order (a file lists groups ascending). */
    private static Entry[] byGroup(final List<Entry> entries)
    {
        return entries.stream().sorted(java.util.Comparator.comparingInt(Entry::keyGroup)).toArray(Entry[]::new);
    }

    private static void applyTo(final Map<String, java.util.LinkedHashMap<Long, Long>> model, final Entry entry)
    {
        final String stateKey = (entry.state() == 0 ? "counts" : "tags") + "/" + entry.keyGroup() + "/" + entry.key();
        if (entry.value() == null)
        {
            model.remove(stateKey);
            return;
        }
        model.computeIfAbsent(stateKey, k -> new java.util.LinkedHashMap<>())
            .put(entry.userKey() == null ? -1L : entry.userKey(), entry.value());
    }

    /** {@link #entries}, failing on an entry handed twice. */
    private static Map<String, Long> entriesOnce(final KeyedSnapshotReader reader)
    {
        final Map<String, Long> entries = new java.util.TreeMap<>();
        reader.read(reader.range(), (group, state, buffer, keyOffset, keyLength, subKeyOffset, subKeyLength,
            valueOffset, valueLength) ->
        {
            final String at = reader.states().get(state).name() + "/" + group + "/" + buffer.getLong(keyOffset) +
                "/" + (subKeyLength < 0 ? -1 : buffer.getLong(subKeyOffset));
            assertThat(entries.put(at, buffer.getLong(valueOffset))).as("%s handed once", at).isNull();
        });
        return entries;
    }

    /** (state name, key group, key, user key or -1) to value, as {@code reader} hands them. */
    private static Map<String, Long> entries(final KeyedSnapshotReader reader)
    {
        final Map<String, Long> entries = new java.util.TreeMap<>();
        reader.read(reader.range(), (group, state, buffer, keyOffset, keyLength, subKeyOffset, subKeyLength,
            valueOffset, valueLength) -> entries.put(reader.states().get(state).name() + "/" + group + "/" +
                buffer.getLong(keyOffset) + "/" + (subKeyLength < 0 ? -1 : buffer.getLong(subKeyOffset)),
            buffer.getLong(valueOffset)));
        return entries;
    }

    @Test
    void aBrokenChainIsCorruptAndATombstoneNeedsADelta() throws IOException
    {
        final byte[] full = snapshot(false, ALL, List.of(COUNTS), new Entry(1, 0, 10, null, 100L));
        final byte[] delta = snapshot(true, ALL, List.of(COUNTS), new Entry(1, 0, 10, null, null));
        final byte[] otherRange = snapshot(true, new KeyGroupRange(0, 63), List.of(COUNTS));
        final StateMeta retyped = new StateMeta("counts", StateKind.VALUE, "java.lang.Long", 1, "java.lang.Long", 2);
        final byte[] otherMeta = snapshot(true, ALL, List.of(retyped));

        assertThatThrownBy(() -> KeyedSnapshotChain.merge(List.of(open(delta, "d1"), open(full, "f")), ALL))
            .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("f")
            .hasMessageContaining("only deltas may follow");
        assertThatThrownBy(() -> KeyedSnapshotChain.merge(List.of(open(full, "f"), open(full, "f2")), ALL))
            .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("f2")
            .hasMessageContaining("only deltas may follow");
        assertThatThrownBy(() -> KeyedSnapshotChain.merge(List.of(open(full, "f"), open(otherRange, "r")), ALL))
            .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("key groups");
        assertThatThrownBy(() -> KeyedSnapshotChain.merge(List.of(open(full, "f"), open(otherMeta, "m")), ALL))
            .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("'counts'");
        final byte[] userKeyed = snapshot(true, ALL, List.of(COUNTS), new Entry(1, 0, 10, 3L, 5L));
        assertThatThrownBy(() -> KeyedSnapshotChain.mergeToBytes(List.of(open(full, "f"), open(userKeyed, "u")), ALL))
            .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("u")
            .hasMessageContaining("'counts'").hasMessageContaining("user key");

        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final KeyedSnapshotWriter writer = new KeyedSnapshotWriter(out, 128, ALL, List.of(COUNTS));
        writer.startKeyGroup(1, 1);
        assertThatThrownBy(() -> writer.tombstone(0, longBytes(1), 0, 8)).isInstanceOf(IllegalStateException.class);

        // a tombstone's -1 in a full snapshot is a negative length
        final byte[] fakeFull = delta.clone();
        fakeFull[11] = 0;
        assertThatThrownBy(() -> KeyedSnapshotReader.open(fakeFull, "fake").read(ALL, (g, s, b, ko, kl, so, sl, vo,
            vl) -> { })).isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("negative length");
    }

    private static KeyedSnapshotReader open(final byte[] bytes, final String name)
    {
        return KeyedSnapshotReader.open(bytes, name);
    }

    @Test
    void aListIsItsCountThenLengthPrefixedElementsAndAppendsInPlace()
    {
        final ListCodec<String> codec = new ListCodec<>(StringCodec.INSTANCE);
        final CodecBuffer buffer = CodecBuffer.growable(64);

        int length = codec.encode(List.of("a", "bc"), buffer, 8);
        assertThat(length).isEqualTo(4 + (4 + 5) + (4 + 6));
        assertThat(buffer.getInt(8)).isEqualTo(2);
        length = codec.appendElement("def", buffer, 8, length);

        assertThat(codec.decode(buffer, 8, length)).containsExactly("a", "bc", "def");
        assertThat(codec.decode(buffer, 40, codec.encode(List.of(), buffer, 40))).isEmpty();
    }

    @Test
    void anElementThatDoesNotFitIsNotCountedAndCanBeAppendedAgainInALargerWindow()
    {
        final ListCodec<String> codec = new ListCodec<>(StringCodec.INSTANCE);
        final byte[] small = new byte[24];
        final CodecBuffer window = CodecBuffer.wrap(small);
        final int length = codec.encode(List.of("a"), window, 0);
        assertThat(window.overflowed()).isFalse();

        codec.appendElement("too long for the window", window, 0, length);
        assertThat(window.overflowed()).isTrue();
        assertThat(window.getInt(0)).as("the count").isEqualTo(1);
        assertThat(codec.decode(window, 0, length)).containsExactly("a");
        assertThatThrownBy(() -> codec.appendElement("b", window, 0, length))
            .as("a window already marked cannot tell a fit from an overflow")
            .isInstanceOf(IllegalStateException.class);

        final CodecBuffer larger = CodecBuffer.allocate(64);
        larger.putBytes(0, window, 0, length);
        final int appended = codec.appendElement("too long for the window", larger, 0, length);
        assertThat(larger.overflowed()).isFalse();
        assertThat(codec.decode(larger, 0, appended)).containsExactly("a", "too long for the window");
    }

    @Test
    void aDamagedListIsRefused()
    {
        final ListCodec<String> codec = new ListCodec<>(StringCodec.INSTANCE);
        final CodecBuffer buffer = CodecBuffer.allocate(64);
        final int length = codec.encode(new ArrayList<>(List.of("a", "b")), buffer, 0);

        assertThatThrownBy(() -> codec.decode(buffer, 0, length - 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> codec.decode(buffer, 0, 3)).isInstanceOf(IllegalArgumentException.class);
        buffer.putInt(0, 1_000);
        assertThatThrownBy(() -> codec.decode(buffer, 0, length)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("1000");
    }

    @Test
    void aTimestampIsEightLittleEndianBytesAndExpiresAtItsTtl()
    {
        final byte[] array = new byte[16];
        final CodecBuffer buffer = CodecBuffer.wrap(array);
        TtlValues.putTimestamp(buffer, 4, 0x0102_0304_0506_0708L);

        assertThat(buffer.getByte(4)).isEqualTo((byte)0x08);
        assertThat(TtlValues.timestamp(buffer, 4)).isEqualTo(0x0102_0304_0506_0708L);
        assertThat(TtlValues.timestamp(array, 4)).isEqualTo(0x0102_0304_0506_0708L);
        assertThat(TtlValues.isExpired(1_000, 100, 1_099)).isFalse();
        assertThat(TtlValues.isExpired(1_000, 100, 1_100)).isTrue();
    }

    private static void writeString(final DataOutputStream out, final String value) throws IOException
    {
        final byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
    }
}
