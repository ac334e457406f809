package io.ringflow.state.snapshot;

import io.ringflow.state.checkpoint.CorruptCheckpointException;
import io.ringflow.state.codec.StringCodec;
import io.ringflow.state.keyed.KeyGroupRange;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

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
        future[7] = 3;

        assertThatThrownBy(() -> KeyedSnapshotReader.open(flagged, "flagged"))
            .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("flags");
        assertThatThrownBy(() -> KeyedSnapshotReader.open(future, "future"))
            .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("version 3");
    }

    @Test
    void aListIsItsCountThenLengthPrefixedElementsAndAppendsInPlace()
    {
        final ListCodec<String> codec = new ListCodec<>(StringCodec.INSTANCE);
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);

        int length = codec.encode(List.of("a", "bc"), buffer, 8);
        assertThat(length).isEqualTo(4 + (4 + 5) + (4 + 6));
        assertThat(buffer.getInt(8, java.nio.ByteOrder.LITTLE_ENDIAN)).isEqualTo(2);
        length = codec.appendElement("def", buffer, 8, length);

        assertThat(codec.decode(buffer, 8, length)).containsExactly("a", "bc", "def");
        assertThat(codec.decode(buffer, 40, codec.encode(List.of(), buffer, 40))).isEmpty();
    }

    @Test
    void aDamagedListIsRefused()
    {
        final ListCodec<String> codec = new ListCodec<>(StringCodec.INSTANCE);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        final int length = codec.encode(new ArrayList<>(List.of("a", "b")), buffer, 0);

        assertThatThrownBy(() -> codec.decode(buffer, 0, length - 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> codec.decode(buffer, 0, 3)).isInstanceOf(IllegalArgumentException.class);
        buffer.putInt(0, 1_000, java.nio.ByteOrder.LITTLE_ENDIAN);
        assertThatThrownBy(() -> codec.decode(buffer, 0, length)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("1000");
    }

    @Test
    void aTimestampIsEightLittleEndianBytesAndExpiresAtItsTtl()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[16]);
        TtlValues.putTimestamp(buffer, 4, 0x0102_0304_0506_0708L);

        assertThat(buffer.getByte(4)).isEqualTo((byte)0x08);
        assertThat(TtlValues.timestamp(buffer, 4)).isEqualTo(0x0102_0304_0506_0708L);
        assertThat(TtlValues.timestamp(buffer.byteArray(), 4)).isEqualTo(0x0102_0304_0506_0708L);
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
