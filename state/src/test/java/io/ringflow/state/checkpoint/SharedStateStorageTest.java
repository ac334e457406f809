package io.ringflow.state.checkpoint;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Shared state files (keyed chains) and their reference-counted deletion, for both storages; then what only a
 * directory can show (files left by a crash, files changed on disk).
 */
class SharedStateStorageTest
{
    @TempDir
    Path dir;

    /** The storages under test. */
    enum Kind
    {
        DIRECTORY, IN_MEMORY;

        CheckpointStorage create(final Path dir) throws IOException
        {
            return this == DIRECTORY ? new DirectoryCheckpointStorage(dir.resolve("checkpoints")) :
                new InMemoryCheckpointStorage();
        }
    }

    private static StateHandle writeShared(final CheckpointStorage storage, final long checkpointId, final String name)
        throws IOException
    {
        try (StateOutput out = storage.createSharedStateOutput(checkpointId, name))
        {
            out.write((name + " written for checkpoint " + checkpointId).getBytes(StandardCharsets.UTF_8));
            return out.closeAndGetHandle();
        }
    }

    private static StateHandle writePrivate(final CheckpointStorage storage, final long checkpointId, final String name)
        throws IOException
    {
        try (StateOutput out = storage.createStateOutput(checkpointId, name))
        {
            out.write(name.getBytes(StandardCharsets.UTF_8));
            return out.closeAndGetHandle();
        }
    }

    /** A checkpoint with one operator "counter" of one subtask: the keyed chain given, and a private operator state. */
    private static CheckpointMetadata checkpoint(final CheckpointStorage storage, final long id,
        final boolean savepoint, final StateHandle... chain) throws IOException
    {
        final StateHandle operator = writePrivate(storage, id, "counter-0.operator");
        final SubtaskState subtask = chain.length == 0 ? new SubtaskState(null, operator, null) :
            new SubtaskState(chain[0], List.of(chain).subList(1, chain.length), operator, null);
        return new CheckpointMetadata(id, 1_700_000_000_000L + id, savepoint, Map.of("numbers", List.of(id)),
            Map.of("counter", new OperatorState(1, 128, List.of(subtask))));
    }

    private static void assertPresent(final CheckpointStorage storage, final StateHandle... handles)
        throws IOException
    {
        for (final StateHandle handle : handles)
        {
            assertThat(storage.readState(0, handle)).as(handle.name()).hasSize((int)handle.length());
        }
    }

    private static void assertDeleted(final CheckpointStorage storage, final StateHandle... handles)
    {
        for (final StateHandle handle : handles)
        {
            assertThatThrownBy(() -> storage.readState(0, handle))
                .as(handle.name())
                .isInstanceOf(CorruptCheckpointException.class)
                .hasMessageContaining(handle.name())
                .hasMessageContaining("missing");
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aChainSharedAcrossCheckpointsKeepsEveryFileARetainedCheckpointReferences(final Kind kind) throws IOException
    {
        final CheckpointStorage storage = kind.create(dir);
        final StateHandle base1 = writeShared(storage, 1, "counter-0.base-1");
        storage.store(checkpoint(storage, 1, false, base1), 1);

        final StateHandle delta2 = writeShared(storage, 2, "counter-0.delta-2");
        storage.store(checkpoint(storage, 2, false, base1, delta2), 1);
        assertThat(storage.checkpointIds()).containsExactly(2L);
        assertPresent(storage, base1, delta2);

        final StateHandle delta3 = writeShared(storage, 3, "counter-0.delta-3");
        storage.store(checkpoint(storage, 3, false, base1, delta2, delta3), 1);
        assertThat(storage.loadVerified(3).stateHandles()).contains(base1, delta2, delta3);

        // compaction: checkpoint 4 starts a new chain, so the old one is referenced by nothing once 3 is pruned
        final StateHandle base4 = writeShared(storage, 4, "counter-0.base-4");
        storage.store(checkpoint(storage, 4, false, base4), 1);
        assertThat(storage.checkpointIds()).containsExactly(4L);
        assertPresent(storage, base4);
        assertDeleted(storage, base1, delta2, delta3);

        final StateHandle delta5 = writeShared(storage, 5, "counter-0.delta-5");
        storage.store(checkpoint(storage, 5, false, base4, delta5), 1);
        assertThat(storage.checkpointIds()).containsExactly(5L);
        assertThat(storage.loadVerified(5).sharedFiles()).containsExactly("counter-0.base-4", "counter-0.delta-5");
        assertThat(storage.latestIntact().orElseThrow().checkpointId()).isEqualTo(5);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aPinnedCheckpointIsNotPrunedUntilALaterStoreNoLongerPinsIt(final Kind kind) throws IOException
    {
        final CheckpointStorage storage = kind.create(dir);
        final StateHandle base1 = writeShared(storage, 1, "base-1");
        storage.store(checkpoint(storage, 1, false, base1), 1);
        final StateHandle base2 = writeShared(storage, 2, "base-2");
        storage.store(checkpoint(storage, 2, false, base2), 1, Set.of(1L, 99L));
        assertThat(storage.checkpointIds()).containsExactly(1L, 2L);
        assertThat(storage.loadVerified(1).sharedFiles()).containsExactly("base-1");

        final StateHandle base3 = writeShared(storage, 3, "base-3");
        storage.store(checkpoint(storage, 3, false, base3), 1, Set.of(1L));
        assertThat(storage.checkpointIds()).containsExactly(1L, 3L);
        assertPresent(storage, base1, base3);
        assertDeleted(storage, base2);

        final StateHandle base4 = writeShared(storage, 4, "base-4");
        storage.store(checkpoint(storage, 4, false, base4), 1);
        assertThat(storage.checkpointIds()).containsExactly(4L);
        assertDeleted(storage, base1, base3);
        assertPresent(storage, base4);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void discardingAPendingCheckpointDeletesItsNewSharedFilesButNeverReferencedOnes(final Kind kind)
        throws IOException
    {
        final CheckpointStorage storage = kind.create(dir);
        final StateHandle base1 = writeShared(storage, 1, "base-1");
        storage.store(checkpoint(storage, 1, false, base1), 3);

        // checkpoint 2 builds on 1's base with a new delta, and is aborted
        final StateHandle delta2 = writeShared(storage, 2, "delta-2");
        final StateHandle operator2 = writePrivate(storage, 2, "counter-0.operator");
        storage.discardPending(2);
        assertDeleted(storage, delta2);
        assertPresent(storage, base1);
        assertThatThrownBy(() -> storage.readState(2, operator2)).hasMessageContaining("missing");

        // should not happen, but a file of a pending checkpoint that a stored one references is never deleted
        final StateHandle odd = writeShared(storage, 3, "odd-3");
        storage.store(checkpoint(storage, 4, false, base1, odd), 3);
        storage.discardPending(3);
        assertPresent(storage, base1, odd);
        assertThat(storage.loadVerified(4).sharedFiles()).containsExactly("base-1", "odd-3");

        // a stored checkpoint is never discarded
        storage.discardPending(4);
        assertThat(storage.checkpointIds()).containsExactly(1L, 4L);
        assertPresent(storage, base1, odd);

        // a flusher late for a discarded checkpoint: discarding it again (what the engine does) deletes the file
        final StateHandle late = writeShared(storage, 2, "late-2");
        storage.discardPending(2);
        assertDeleted(storage, late);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void theFilesOfAPendingCheckpointSurviveTheStoreOfAnother(final Kind kind) throws IOException
    {
        final CheckpointStorage storage = kind.create(dir);
        final StateHandle done = writeShared(storage, 7, "delta-7");
        final StateOutput open = storage.createSharedStateOutput(7, "base-7");
        open.write(new byte[] {1, 2, 3});

        storage.store(checkpoint(storage, 6, false), 1);
        storage.store(checkpoint(storage, 8, false), 1);
        assertPresent(storage, done);
        open.write(4);
        final StateHandle finished = open.closeAndGetHandle();
        assertThat(finished.shared()).isTrue();
        assertPresent(storage, finished);

        storage.store(checkpoint(storage, 9, false), 1);
        assertPresent(storage, done, finished);
        storage.discardPending(7);
        assertDeleted(storage, done, finished);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void storingACheckpointHandsItsSharedFilesToItsMetadata(final Kind kind) throws IOException
    {
        final CheckpointStorage storage = kind.create(dir);
        final StateHandle used = writeShared(storage, 1, "used-1");
        final StateHandle unused = writeShared(storage, 1, "unused-1");
        storage.store(checkpoint(storage, 1, false, used), 1);
        assertPresent(storage, used);
        assertDeleted(storage, unused);

        storage.discardPending(1);
        assertPresent(storage, used);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aCorruptMetadataOfARetainedCheckpointMakesTheCollectionKeepEverything(final Kind kind) throws IOException
    {
        final CheckpointStorage storage = kind.create(dir);
        final StateHandle base1 = writeShared(storage, 1, "base-1");
        storage.store(checkpoint(storage, 1, false, base1), 3);
        final StateHandle delta2 = writeShared(storage, 2, "delta-2");
        storage.store(checkpoint(storage, 2, false, base1, delta2), 3);
        flipMetadataByte(storage, 2);
        assertThatThrownBy(() -> storage.load(2)).isInstanceOf(CorruptCheckpointException.class);

        final StateHandle aborted = writeShared(storage, 3, "aborted-3");
        storage.discardPending(3);
        final StateHandle unused = writeShared(storage, 4, "unused-4");
        final StateHandle base4 = writeShared(storage, 4, "base-4");
        storage.store(checkpoint(storage, 4, false, base4), 3);
        assertPresent(storage, base1, delta2, aborted, unused, base4);

        flipMetadataByte(storage, 2);
        storage.store(checkpoint(storage, 5, false, base4), 1);
        assertThat(storage.checkpointIds()).containsExactly(5L);
        assertDeleted(storage, base1, delta2, aborted, unused);
        assertPresent(storage, base4);
    }

    private static void flipMetadataByte(final CheckpointStorage storage, final long id) throws IOException
    {
        if (storage instanceof InMemoryCheckpointStorage memory)
        {
            memory.corrupt(id, DirectoryCheckpointStorage.METADATA, 20);
        }
        else
        {
            final Path file = ((DirectoryCheckpointStorage)storage).directory().resolve("chk-" + id)
                .resolve(DirectoryCheckpointStorage.METADATA);
            final byte[] bytes = Files.readAllBytes(file);
            bytes[20] ^= 0x5A;
            Files.write(file, bytes);
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void readingAMissingOrTruncatedSharedFileNamesIt(final Kind kind) throws IOException
    {
        final CheckpointStorage storage = kind.create(dir);
        final String where = kind == Kind.DIRECTORY ?
            ((DirectoryCheckpointStorage)storage).sharedDirectory().resolve("never-written").toString() :
            "shared/never-written";
        assertThatThrownBy(() -> storage.readState(1, StateHandle.shared("never-written", 3, 0)))
            .isInstanceOf(CorruptCheckpointException.class)
            .hasMessageContaining(where)
            .hasMessageContaining("missing");

        final StateHandle written = writeShared(storage, 1, "base-1");
        final StateHandle longer = StateHandle.shared(written.name(), written.length() + 10, written.crc32c());
        assertThatThrownBy(() -> storage.readState(1, longer))
            .isInstanceOf(CorruptCheckpointException.class)
            .hasMessageContaining("shared")
            .hasMessageContaining("base-1")
            .hasMessageContaining("truncated");
        final StateHandle otherCrc = StateHandle.shared(written.name(), written.length(), written.crc32c() + 1);
        assertThatThrownBy(() -> storage.readState(1, otherCrc))
            .isInstanceOf(CorruptCheckpointException.class)
            .hasMessageContaining("base-1")
            .hasMessageContaining("checksum");
        assertThatThrownBy(() -> storage.readState(1, new StateHandle("base-1", written.length(), written.crc32c())))
            .as("a private handle of the same name is looked up in the checkpoint's folder")
            .isInstanceOf(CorruptCheckpointException.class)
            .hasMessageContaining("missing");
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void discardAllKeepsSavepointsAndTheSharedFilesTheyAndPendingCheckpointsUse(final Kind kind) throws IOException
    {
        final CheckpointStorage storage = kind.create(dir);
        final StateHandle base1 = writeShared(storage, 1, "base-1");
        storage.store(checkpoint(storage, 1, false, base1), 5);
        final StateHandle delta2 = writeShared(storage, 2, "delta-2");
        storage.store(checkpoint(storage, 2, true, base1, delta2), 5);
        final StateHandle base3 = writeShared(storage, 3, "base-3");
        storage.store(checkpoint(storage, 3, false, base3), 5);
        final StateHandle pending = writeShared(storage, 4, "pending-4");

        storage.discardAll();

        assertThat(storage.checkpointIds()).containsExactly(2L);
        assertThat(storage.loadVerified(2).savepoint()).isTrue();
        assertPresent(storage, base1, delta2, pending);
        assertDeleted(storage, base3);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aSharedFileNameIsUniqueInTheSharedAreaAndPlain(final Kind kind) throws IOException
    {
        final CheckpointStorage storage = kind.create(dir);
        final StateOutput first = storage.createSharedStateOutput(1, "base");
        assertThatThrownBy(() -> storage.createSharedStateOutput(2, "base"))
            .isInstanceOf(IOException.class)
            .hasMessageContaining("base")
            .hasMessageContaining("already in use by pending checkpoint 1");
        first.write(1);
        first.closeAndGetHandle();
        assertThatThrownBy(() -> storage.createSharedStateOutput(1, "base"))
            .isInstanceOf(IOException.class)
            .hasMessageContaining("base")
            .hasMessageContaining("unique");

        // an output abandoned unwritten gives its name back
        storage.createSharedStateOutput(1, "retried").close();
        assertThat(writeShared(storage, 1, "retried").name()).isEqualTo("retried");

        storage.store(checkpoint(storage, 1, false), 1);
        assertThatThrownBy(() -> storage.createSharedStateOutput(1, "late"))
            .isInstanceOf(IOException.class)
            .hasMessageContaining("late")
            .hasMessageContaining("for checkpoint 1: that checkpoint is already stored");
        for (final String name : new String[] {"../escape", "a/b", ".hidden", "x.inprogress"})
        {
            assertThatThrownBy(() -> storage.createSharedStateOutput(2, name))
                .as(name)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(name);
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void theSharedAreaIsNotACheckpoint(final Kind kind) throws IOException
    {
        final CheckpointStorage storage = kind.create(dir);
        final StateHandle base = writeShared(storage, 1, "base-1");
        storage.store(checkpoint(storage, 1, false, base), 1);
        assertThat(storage.checkpointIds()).containsExactly(1L);
        if (storage instanceof DirectoryCheckpointStorage directory)
        {
            assertThat(directory.sharedDirectory()).isEqualTo(directory.directory().resolve("shared"));
            assertThat(directory.sharedDirectory().resolve("base-1")).isRegularFile();
        }
    }

    @Test
    void aDirectoryRemovesOrphansLeftByACrashAtTheNextStore() throws IOException
    {
        final DirectoryCheckpointStorage before = new DirectoryCheckpointStorage(dir.resolve("checkpoints"));
        final StateHandle base1 = writeShared(before, 1, "base-1");
        before.store(checkpoint(before, 1, false, base1), 1);
        writeShared(before, 2, "delta-2");
        writePrivate(before, 2, "counter-0.operator");

        // a new process: checkpoint 2 never completed, its folder has no metadata, nothing is pending any more
        final DirectoryCheckpointStorage after = new DirectoryCheckpointStorage(dir.resolve("checkpoints"));
        final Path shared = after.sharedDirectory();
        Files.writeString(shared.resolve("unfinished-2.inprogress"), "torn by the crash");
        Files.writeString(shared.resolve("orphan"), "left by hand");
        Files.createDirectories(shared.resolve("a-folder"));
        final StateHandle base3 = writeShared(after, 3, "base-3");
        after.store(checkpoint(after, 3, false, base3), 2);

        try (var files = Files.list(shared))
        {
            assertThat(files.map(file -> file.getFileName().toString()))
                .containsExactlyInAnyOrder("base-1", "base-3", "a-folder");
        }
        assertThat(after.checkpointIds()).containsExactly(1L, 2L, 3L);
        assertThat(after.loadVerified(1).sharedFiles()).containsExactly("base-1");
    }

    @Test
    void aDirectoryVerifiesEveryFileOfAChainNamingTheBrokenOne() throws IOException
    {
        final DirectoryCheckpointStorage storage = new DirectoryCheckpointStorage(dir.resolve("checkpoints"));
        final List<StateHandle> chain = new ArrayList<>();
        chain.add(writeShared(storage, 1, "base-1"));
        for (long id = 2; id <= 4; id++)
        {
            chain.add(writeShared(storage, id, "delta-" + id));
        }
        storage.store(checkpoint(storage, 4, false, chain.toArray(StateHandle[]::new)), 1);
        assertThat(storage.loadVerified(4).operators().get("counter").subtasks().get(0).keyedChain())
            .containsExactlyElementsOf(chain);

        final Path delta3 = storage.sharedDirectory().resolve("delta-3");
        final byte[] bytes = Files.readAllBytes(delta3);
        Files.write(delta3, java.util.Arrays.copyOf(bytes, bytes.length - 1));
        assertThatThrownBy(() -> storage.loadVerified(4))
            .isInstanceOf(CorruptCheckpointException.class)
            .hasMessageContaining(delta3.toString())
            .hasMessageContaining("truncated");
        assertThat(storage.latestIntact()).isEmpty();

        Files.delete(delta3);
        assertThatThrownBy(() -> storage.loadVerified(4))
            .isInstanceOf(CorruptCheckpointException.class)
            .hasMessageContaining(delta3.toString())
            .hasMessageContaining("missing");
    }
}
