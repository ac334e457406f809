package io.ringflow.state.inspect;

import io.ringflow.state.checkpoint.CheckpointCatalog;
import io.ringflow.state.checkpoint.CheckpointMetadata;
import io.ringflow.state.checkpoint.DirectoryCheckpointStorage;
import io.ringflow.state.checkpoint.OperatorState;
import io.ringflow.state.checkpoint.StateHandle;
import io.ringflow.state.checkpoint.StateOutput;
import io.ringflow.state.checkpoint.SubtaskState;
import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.codec.LongCodec;
import io.ringflow.state.codec.StringCodec;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.StateKind;
import io.ringflow.state.snapshot.KeyedSnapshotWriter;
import io.ringflow.state.snapshot.StateMeta;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CheckpointInspectorTest
{
    @Test
    void describesKeyedStatesDecodesBuiltInTypesAndNamesTypesItCannotLoad(@TempDir final Path temp)
        throws IOException
    {
        final DirectoryCheckpointStorage storage = new DirectoryCheckpointStorage(temp);
        final StateOutput output = storage.createStateOutput(1, "keyed-0");
        final KeyedSnapshotWriter writer = new KeyedSnapshotWriter(output, 128, new KeyGroupRange(0, 127), List.of(
            new StateMeta("visits", StateKind.MAP, "java.lang.String", 1, "java.lang.Long", 1, "java.lang.Long", 1,
                false),
            new StateMeta("profile", StateKind.VALUE, "java.lang.String", 1, "com.example.NotOnTheClassPath", 1)));
        final CodecBuffer key = CodecBuffer.growable(16);
        final int keyLength = StringCodec.INSTANCE.encode("alice", key, 0);
        final CodecBuffer number = CodecBuffer.growable(8);
        writer.startKeyGroup(3, 3);
        for (long day = 1; day <= 2; day++)
        {
            final CodecBuffer subKey = CodecBuffer.growable(8);
            LongCodec.INSTANCE.encode(day, subKey, 0);
            LongCodec.INSTANCE.encode(10 * day, number, 0);
            writer.entry(0, key, 0, keyLength, subKey, 0, 8, number, 0, 8);
        }
        final CodecBuffer opaque = CodecBuffer.wrap(new byte[] {1, 2, 3, 4, 5});
        writer.entry(1, key, 0, keyLength, null, 0, -1, opaque, 0, 5);
        writer.finish();
        final StateHandle handle = output.closeAndGetHandle();
        storage.store(new CheckpointMetadata(1, 1_700_000_000_000L, false, Map.of("src", List.of(42L, 43L)),
            Map.of("profiles", new OperatorState(1, 128, List.of(new SubtaskState(handle, null, null))))), 5);

        final CheckpointCatalog.Report report = CheckpointCatalog.verify(temp.resolve("chk-1"));
        final List<CheckpointInspector.OperatorView> operators =
            CheckpointInspector.inspect(report, null, null, 10, getClass().getClassLoader());

        assertThat(operators).extracting(CheckpointInspector.OperatorView::uid).containsExactly("profiles", "src");
        assertThat(operators.get(1).sourcePositions()).containsExactly(42L, 43L);
        assertThat(operators.get(1).parallelism()).isEqualTo(2);
        final List<CheckpointInspector.KeyedStateView> states = operators.get(0).subtasks().get(0).keyed();
        assertThat(states).extracting(view -> view.meta().name()).containsExactly("visits", "profile");
        assertThat(states.get(0).entries()).isEqualTo(2);
        assertThat(states.get(0).keys()).isEqualTo(1);
        assertThat(states.get(0).keyGroups()).isEqualTo(1);
        assertThat(states.get(0).samples()).extracting(Object::toString)
            .containsExactly("key group 3: alice / 1 = 10", "key group 3: alice / 2 = 20");
        assertThat(states.get(0).samples().get(1)).isEqualTo(new CheckpointInspector.Entry(3, "alice", "2", "20"));
        assertThat(states.get(1).samples()).singleElement().asString()
            .contains("alice = <5 bytes: com.example.NotOnTheClassPath is not on the class path");

        assertThat(CheckpointInspector.inspect(report, "profiles", "profile", 0, getClass().getClassLoader())
            .get(0).subtasks().get(0).keyed()).singleElement()
            .satisfies(view -> assertThat(view.samples()).isEmpty());
        assertThat(CheckpointInspector.inspect(report, "profiles", "visits",
            new CheckpointInspector.EntryFilter(10, "alice", 3), getClass().getClassLoader())
            .get(0).subtasks().get(0).keyed().get(0).samples()).hasSize(2);
        assertThat(CheckpointInspector.inspect(report, "profiles", "visits",
            new CheckpointInspector.EntryFilter(1, "alice", -1), getClass().getClassLoader())
            .get(0).subtasks().get(0).keyed().get(0).samples()).hasSize(1);
        assertThat(CheckpointInspector.inspect(report, "profiles", "visits",
            new CheckpointInspector.EntryFilter(10, "bob", -1), getClass().getClassLoader())
            .get(0).subtasks().get(0).keyed().get(0).samples()).isEmpty();
        assertThat(CheckpointInspector.inspect(report, "profiles", "visits",
            new CheckpointInspector.EntryFilter(10, null, 4), getClass().getClassLoader())
            .get(0).subtasks().get(0).keyed().get(0).samples()).isEmpty();
        assertThatThrownBy(() -> new CheckpointInspector.EntryFilter(-1, null, -1))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CheckpointInspector.inspect(report, "nope", null, 0, getClass().getClassLoader()))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("profiles, src");
    }
}
