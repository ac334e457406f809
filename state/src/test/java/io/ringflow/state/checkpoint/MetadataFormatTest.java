package io.ringflow.state.checkpoint;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Version 3 of the metadata format (keyed chains, shared files), and reading version 2. */
class MetadataFormatTest
{
    private static final StateHandle BASE = StateHandle.shared("counter-0.base-1", 1000, 0x11111111);
    private static final StateHandle DELTA_2 = StateHandle.shared("counter-0.delta-2", 40, 0x22222222);
    private static final StateHandle DELTA_3 = StateHandle.shared("counter-0.delta-3", 7, 0x33333333);
    private static final StateHandle OPERATOR = new StateHandle("counter-0.operator", 12, 0x44444444);
    private static final StateHandle CHANNELS = new StateHandle("counter-0.channels", 99, 0x55555555);

    private static CheckpointMetadata chained()
    {
        final OperatorState counter = new OperatorState(3, 128, List.of(
            new SubtaskState(BASE, List.of(DELTA_2, DELTA_3), OPERATOR, CHANNELS),
            new SubtaskState(new StateHandle("counter-1.keyed", 5, 6), null, null),
            SubtaskState.EMPTY));
        final OperatorState sink = new OperatorState(1, 128, List.of(
            new SubtaskState(StateHandle.shared("sink-0.base-3", 3, -1), List.of(), null, null)));
        return new CheckpointMetadata(3, 1_700_000_000_003L, false, Map.of("numbers", List.of(30L, 31L, 32L)),
            Map.of("counter", counter, "sink", sink));
    }

    @Test
    void version3RoundTripsChainsAndSharedFlagsAndDetectsEverySingleByteCorruption()
    {
        final CheckpointMetadata original = chained();
        final byte[] bytes = MetadataFormat.encode(original);
        assertThat(ByteBuffer.wrap(bytes, 4, 4).getInt()).isEqualTo(3);

        final CheckpointMetadata decoded = MetadataFormat.decode(bytes, "f");
        assertThat(decoded).isEqualTo(original);
        final SubtaskState first = decoded.operators().get("counter").subtasks().get(0);
        assertThat(first.keyed().shared()).isTrue();
        assertThat(first.keyedIncrements()).containsExactly(DELTA_2, DELTA_3);
        assertThat(first.operator().shared()).isFalse();

        for (int i = 0; i < bytes.length; i++)
        {
            final byte[] corrupt = bytes.clone();
            corrupt[i] ^= 0x5A;
            final int at = i;
            assertThatThrownBy(() -> MetadataFormat.decode(corrupt, "chk-3/_metadata"))
                .as("byte %d flipped", at)
                .isInstanceOf(CorruptCheckpointException.class)
                .hasMessageContaining("chk-3/_metadata");
        }
        for (int length = 0; length < bytes.length; length++)
        {
            final byte[] torn = Arrays.copyOf(bytes, length);
            assertThatThrownBy(() -> MetadataFormat.decode(torn, "torn"))
                .isInstanceOf(CorruptCheckpointException.class);
        }
    }

    @Test
    void theMetadataListsEveryFileOfEachChainAndNamesItsSharedFiles()
    {
        final CheckpointMetadata metadata = chained();
        assertThat(metadata.stateHandles()).containsExactlyInAnyOrder(BASE, DELTA_2, DELTA_3, OPERATOR, CHANNELS,
            new StateHandle("counter-1.keyed", 5, 6), StateHandle.shared("sink-0.base-3", 3, -1));
        assertThat(metadata.stateHandles()).containsSubsequence(BASE, DELTA_2, DELTA_3, OPERATOR, CHANNELS);
        assertThat(metadata.sharedFiles())
            .containsExactly("counter-0.base-1", "counter-0.delta-2", "counter-0.delta-3", "sink-0.base-3");
    }

    @Test
    void aVersion2FileStillDecodesWithPrivateHandlesAndNoIncrements() throws IOException
    {
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        final DataOutputStream out = new DataOutputStream(body);
        out.writeLong(4);
        out.writeLong(1_700_000_000_004L);
        out.writeBoolean(true);
        out.writeInt(1);
        writeString(out, "numbers");
        out.writeInt(2);
        out.writeLong(40);
        out.writeLong(41);
        out.writeInt(1);
        writeString(out, "counter");
        out.writeInt(2);
        out.writeInt(64);
        // subtask 0: keyed | operator | channels, each: present | name | length | crc (no shared flag in version 2)
        writeVersion2Handle(out, "counter-0.keyed", 100, 7);
        writeVersion2Handle(out, "counter-0.operator", 5, 8);
        out.writeBoolean(false);
        // subtask 1: nothing
        out.writeBoolean(false);
        out.writeBoolean(false);
        out.writeBoolean(false);
        out.flush();

        final CheckpointMetadata decoded = MetadataFormat.decode(frame(2, body.toByteArray()), "chk-4/_metadata");

        final OperatorState counter = new OperatorState(2, 64, List.of(
            new SubtaskState(new StateHandle("counter-0.keyed", 100, 7), new StateHandle("counter-0.operator", 5, 8),
                null),
            SubtaskState.EMPTY));
        assertThat(decoded).isEqualTo(new CheckpointMetadata(4, 1_700_000_000_004L, true,
            Map.of("numbers", List.of(40L, 41L)), Map.of("counter", counter)));
        assertThat(decoded.sharedFiles()).isEmpty();
        assertThat(decoded.operators().get("counter").subtasks().get(0).keyedIncrements()).isEmpty();
    }

    @Test
    void anIncrementCountOutOfRangeIsReportedNamingTheFile() throws IOException
    {
        for (final int count : new int[] {-1, Integer.MAX_VALUE, (1 << 16) + 1})
        {
            final byte[] bytes = frame(3, oneSubtaskBody(true, count));
            assertThatThrownBy(() -> MetadataFormat.decode(bytes, "chk-5/_metadata"))
                .as("count %d", count)
                .isInstanceOf(CorruptCheckpointException.class)
                .hasMessageContaining("chk-5/_metadata")
                .hasMessageContaining("keyed increment count " + count + " out of range");
        }
    }

    @Test
    void aChainLongerThanAReaderAcceptsIsNeverWritten()
    {
        final List<StateHandle> increments = new ArrayList<>();
        for (int i = 0; i <= 1 << 16; i++)
        {
            increments.add(StateHandle.shared("d-" + i, 1, i));
        }
        final CheckpointMetadata tooLong = new CheckpointMetadata(6, 0, false, Map.of(), Map.of("counter",
            new OperatorState(1, 1, List.of(new SubtaskState(BASE, increments, null, null)))));
        assertThatThrownBy(() -> MetadataFormat.encode(tooLong))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("operator counter")
            .hasMessageContaining("65537 increments");
    }

    /**
     * The encoder's buffer is reused on a thread: a large file (past what the thread keeps), an encode abandoned
     * half way (a chain too long) and small files in turn must each come out exactly as a fresh encoder writes them,
     * framed by the documented header and checksum.
     */
    @Test
    void encodingsInTurnOnOneThreadEachComeOutWholeAndFramed()
    {
        final List<StateHandle> many = new ArrayList<>();
        for (int i = 0; i < 3_000; i++)
        {
            many.add(StateHandle.shared("counter-0.delta-" + i + "-with-a-long-random-suffix", i, i));
        }
        final CheckpointMetadata large = new CheckpointMetadata(8, 1, false, Map.of("numbers", List.of(1L)),
            Map.of("counter", new OperatorState(1, 128, List.of(new SubtaskState(BASE, many, OPERATOR, CHANNELS)))));
        final List<StateHandle> tooMany = new ArrayList<>();
        for (int i = 0; i <= 1 << 16; i++)
        {
            tooMany.add(StateHandle.shared("d-" + i, 1, i));
        }
        final CheckpointMetadata tooLong = new CheckpointMetadata(9, 0, false, Map.of(), Map.of("counter",
            new OperatorState(1, 1, List.of(new SubtaskState(BASE, tooMany, null, null)))));
        final CheckpointMetadata small = chained();

        final byte[] first = MetadataFormat.encode(small);
        final byte[] big = MetadataFormat.encode(large);
        assertThat(big.length).isGreaterThan(64 * 1024);
        assertThat(MetadataFormat.decode(big, "large")).isEqualTo(large);
        assertThatThrownBy(() -> MetadataFormat.encode(tooLong)).isInstanceOf(IllegalArgumentException.class);
        final byte[] again = MetadataFormat.encode(small);
        assertThat(again).isEqualTo(first).isNotSameAs(first);
        assertThat(MetadataFormat.decode(again, "small")).isEqualTo(small);

        final ByteBuffer framing = ByteBuffer.wrap(again);
        assertThat(framing.getInt(0)).isEqualTo(MetadataFormat.MAGIC);
        assertThat(framing.getInt(4)).isEqualTo(MetadataFormat.VERSION);
        assertThat(framing.getInt(8)).isEqualTo(again.length - 16);
        final CRC32C crc = new CRC32C();
        crc.update(again, 0, again.length - 4);
        assertThat(framing.getInt(again.length - 4)).isEqualTo((int)crc.getValue());
    }

    @Test
    void incrementsWithoutAKeyedBaseAreReportedNamingTheFile() throws IOException
    {
        final byte[] bytes = frame(3, oneSubtaskBody(false, 1));
        assertThatThrownBy(() -> MetadataFormat.decode(bytes, "chk-5/_metadata"))
            .isInstanceOf(CorruptCheckpointException.class)
            .hasMessageContaining("chk-5/_metadata")
            .hasMessageContaining("subtask 0 of operator counter has 1 keyed increments but no keyed base");
    }

    @Test
    void sourcesAndOperatorsAreWrittenInTheOrderOfTheirUidsWhateverTheirNumber() throws IOException
    {
        // more uids than the encoder's scratch array holds at first, one of them not ASCII
        final Map<String, List<Long>> sources = new java.util.HashMap<>();
        for (int i = 11; i >= 0; i--)
        {
            sources.put("source-" + (char)('a' + i) + (i == 5 ? "\u00e9" : ""), List.of((long)i, i * 10L));
        }
        final CheckpointMetadata metadata = new CheckpointMetadata(7, 1234, sources);

        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        final DataOutputStream out = new DataOutputStream(body);
        out.writeLong(7);
        out.writeLong(1234);
        out.writeBoolean(false);
        out.writeInt(sources.size());
        for (final String uid : new java.util.TreeSet<>(sources.keySet()))
        {
            writeString(out, uid);
            out.writeInt(2);
            for (final long position : sources.get(uid))
            {
                out.writeLong(position);
            }
        }
        out.writeInt(0);
        out.flush();

        assertThat(MetadataFormat.encode(metadata)).isEqualTo(frame(3, body.toByteArray()));
        // and again on the same thread, with its scratch array already grown
        assertThat(MetadataFormat.encode(metadata)).isEqualTo(frame(3, body.toByteArray()));
    }

    @Test
    void anArrayOfTheExactLengthIsEncodedIntoAnyOtherIsLeftAlone()
    {
        final CheckpointMetadata metadata = chained();
        final byte[] expected = MetadataFormat.encode(metadata);
        final byte[] sameLength = new byte[expected.length];
        java.util.Arrays.fill(sameLength, (byte)0x7F);
        final byte[] longer = new byte[expected.length + 1];

        assertThat(MetadataFormat.encode(metadata, sameLength)).isSameAs(sameLength).isEqualTo(expected);
        final byte[] encoded = MetadataFormat.encode(metadata, longer);
        assertThat(encoded).isNotSameAs(longer).isEqualTo(expected);
        assertThat(longer).as("an array of another length is not written").containsOnly(0);
        assertThat(MetadataFormat.decode(sameLength, "reused")).isEqualTo(metadata);
    }

    /**
     * The encoder reuses the last checkpoint's key order when the next has the same keys: a map as large but with one
     * key replaced, or the same keys in another map, must still come out in its own order.
     */
    @Test
    void keysOfTheLastEncodeAreReusedOnlyForTheSameSet()
    {
        final OperatorState state = new OperatorState(1, 128, List.of(new SubtaskState(BASE, null, null)));
        final CheckpointMetadata first = new CheckpointMetadata(1, 1, false,
            Map.of("a", List.of(1L), "b", List.of(2L)), Map.of("x", state, "y", state));
        final CheckpointMetadata sameKeys = new CheckpointMetadata(2, 2, false,
            Map.of("b", List.of(4L), "a", List.of(3L)), Map.of("y", state, "x", state));
        final CheckpointMetadata oneKeyReplaced = new CheckpointMetadata(3, 3, false,
            Map.of("a", List.of(5L), "c", List.of(6L)), Map.of("x", state, "w", state));
        final CheckpointMetadata fewer = new CheckpointMetadata(4, 4, false,
            Map.of("c", List.of(7L)), Map.of("w", state));

        for (final CheckpointMetadata metadata : List.of(first, sameKeys, oneKeyReplaced, fewer, first))
        {
            final byte[] encoded = MetadataFormat.encode(metadata);
            assertThat(MetadataFormat.decode(encoded, "chk")).isEqualTo(metadata);
            assertThat(encoded).isEqualTo(encodedOnAFreshThread(metadata));
        }
    }

    private static byte[] encodedOnAFreshThread(final CheckpointMetadata metadata)
    {
        final byte[][] encoded = new byte[1][];
        final Thread thread = new Thread(() -> encoded[0] = MetadataFormat.encode(metadata));
        thread.start();
        try
        {
            thread.join();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new AssertionError(ex);
        }
        return encoded[0];
    }

    @Test
    void aWellFormedVersion3BodyBuiltByHandDecodes() throws IOException
    {
        final CheckpointMetadata decoded = MetadataFormat.decode(frame(3, oneSubtaskBody(true, 1)), "f");
        final SubtaskState subtask = decoded.operators().get("counter").subtasks().get(0);
        assertThat(subtask.keyedChain()).containsExactly(StateHandle.shared("base", 10, 1),
            StateHandle.shared("delta-0", 1, 0));
    }

    @Test
    void aFlagByteOtherThanZeroOrOneIsCorruption() throws IOException
    {
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        final DataOutputStream out = new DataOutputStream(body);
        out.writeLong(5);
        out.writeLong(0);
        out.writeByte(2);
        out.writeInt(0);
        out.writeInt(0);
        out.flush();
        assertThatThrownBy(() -> MetadataFormat.decode(frame(3, body.toByteArray()), "chk-5/_metadata"))
            .isInstanceOf(CorruptCheckpointException.class)
            .hasMessageContaining("chk-5/_metadata")
            .hasMessageContaining("savepoint flag 2");
    }

    @Test
    void versionsThisBuildCannotReadAreRefused() throws IOException
    {
        for (final int version : new int[] {1, 4})
        {
            assertThatThrownBy(() -> MetadataFormat.decode(frame(version, oneSubtaskBody(true, 0)), "chk-5/_metadata"))
                .isInstanceOf(CorruptCheckpointException.class)
                .hasMessageContaining("chk-5/_metadata")
                .hasMessageContaining("format version " + version + ", this build reads 2 to 3");
        }
    }

    @Test
    void aSubtaskStateKeepsItsChainImmutableAndRefusesIncrementsWithoutABase()
    {
        final List<StateHandle> increments = new ArrayList<>(List.of(DELTA_2));
        final SubtaskState state = new SubtaskState(BASE, increments, null, null);
        increments.add(DELTA_3);
        assertThat(state.keyedIncrements()).containsExactly(DELTA_2);
        assertThat(state.keyedChain()).containsExactly(BASE, DELTA_2);
        assertThatThrownBy(() -> state.keyedChain().add(DELTA_3)).isInstanceOf(UnsupportedOperationException.class);
        assertThat(new SubtaskState(BASE, null, null).keyedIncrements()).isEmpty();
        assertThat(new SubtaskState(null, OPERATOR, null).keyedChain()).isEmpty();
        assertThat(SubtaskState.EMPTY.isEmpty()).isTrue();

        assertThatThrownBy(() -> new SubtaskState(null, List.of(DELTA_2), OPERATOR, null))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("without a keyed base")
            .hasMessageContaining(DELTA_2.name());
        assertThatThrownBy(() -> new SubtaskState(BASE, null, null, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new SubtaskState(BASE, Arrays.asList(DELTA_2, null), null, null))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("keyed increment 1 is null");
    }

    @Test
    void aHandleIsPrivateUnlessMadeSharedAndAlwaysHasAPlainName()
    {
        assertThat(new StateHandle("a", 1, 2).shared()).isFalse();
        assertThat(StateHandle.shared("a", 1, 2)).isEqualTo(new StateHandle("a", 1, 2, true));
        assertThat(StateHandle.shared("a", 1, 2)).isNotEqualTo(new StateHandle("a", 1, 2));
        for (final String name : new String[] {"", "../a", "a/b", "a\\b", ".hidden"})
        {
            assertThatThrownBy(() -> StateHandle.shared(name, 1, 2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("plain file name");
        }
    }

    /**
     * A version 3 body with one operator "counter" of one subtask: a keyed base (or none) and {@code count} as its
     * increment count, followed by min(count, 1) increments when count is positive, then no operator and no channel
     * state.
     */
    private static byte[] oneSubtaskBody(final boolean keyed, final int count) throws IOException
    {
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        final DataOutputStream out = new DataOutputStream(body);
        out.writeLong(5);
        out.writeLong(1_700_000_000_005L);
        out.writeBoolean(false);
        out.writeInt(0);
        out.writeInt(1);
        writeString(out, "counter");
        out.writeInt(1);
        out.writeInt(16);
        out.writeBoolean(keyed);
        if (keyed)
        {
            writeVersion3File(out, "base", 10, 1, true);
        }
        out.writeInt(count);
        for (int i = 0; i < Math.min(count, 1); i++)
        {
            writeVersion3File(out, "delta-" + i, 1, 0, true);
        }
        out.writeBoolean(false);
        out.writeBoolean(false);
        out.flush();
        return body.toByteArray();
    }

    private static void writeVersion2Handle(final DataOutputStream out, final String name, final long length,
        final int crc) throws IOException
    {
        out.writeBoolean(true);
        writeString(out, name);
        out.writeLong(length);
        out.writeInt(crc);
    }

    private static void writeVersion3File(final DataOutputStream out, final String name, final long length,
        final int crc, final boolean shared) throws IOException
    {
        writeString(out, name);
        out.writeLong(length);
        out.writeInt(crc);
        out.writeBoolean(shared);
    }

    private static void writeString(final DataOutputStream out, final String value) throws IOException
    {
        final byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    /** Magic, version, body length, body, CRC32C of all before: a frame whose checks pass, whatever the body. */
    private static byte[] frame(final int version, final byte[] body)
    {
        final ByteBuffer file = ByteBuffer.allocate(12 + body.length + 4);
        file.putInt(MetadataFormat.MAGIC).putInt(version).putInt(body.length).put(body);
        final CRC32C crc = new CRC32C();
        crc.update(file.array(), 0, file.position());
        file.putInt((int)crc.getValue());
        return file.array();
    }
}
