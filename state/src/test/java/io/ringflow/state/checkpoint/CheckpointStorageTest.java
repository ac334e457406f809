package io.ringflow.state.checkpoint;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class CheckpointStorageTest
{
    private static CheckpointMetadata metadata(final long id)
    {
        return new CheckpointMetadata(id, 1_700_000_000_000L + id,
            Map.of("numbers", List.of(10L * id, 10L * id + 1), "ünïcødé-source", List.of(-1L)));
    }

    @Test
    void theFormatRoundTripsAndDetectsEverySingleByteCorruption()
    {
        final CheckpointMetadata original = metadata(7);
        final byte[] bytes = MetadataFormat.encode(original);
        assertThat(MetadataFormat.decode(bytes, "f")).isEqualTo(original);

        for (int i = 0; i < bytes.length; i++)
        {
            final byte[] corrupt = bytes.clone();
            corrupt[i] ^= 0x5A;
            final int at = i;
            assertThatThrownBy(() -> MetadataFormat.decode(corrupt, "chk-7/_metadata"))
                .as("byte %d flipped", at)
                .isInstanceOf(CorruptCheckpointException.class)
                .hasMessageContaining("chk-7/_metadata");
        }
        for (int length = 0; length < bytes.length; length++)
        {
            final byte[] torn = java.util.Arrays.copyOf(bytes, length);
            assertThatThrownBy(() -> MetadataFormat.decode(torn, "torn")).isInstanceOf(CorruptCheckpointException.class);
        }
    }

    @Test
    void randomGarbageIsNeverAcceptedAsMetadata()
    {
        final Random random = new Random(5);
        for (int n = 0; n < 2000; n++)
        {
            final byte[] garbage = new byte[random.nextInt(200)];
            random.nextBytes(garbage);
            assertThatThrownBy(() -> MetadataFormat.decode(garbage, "garbage"))
                .as("seed 5, case %d", n)
                .isInstanceOf(CorruptCheckpointException.class);
        }
    }

    @Test
    void aDirectoryKeepsTheRetainedCheckpointsAndSkipsACorruptNewestOne(@TempDir final Path dir) throws IOException
    {
        final DirectoryCheckpointStorage storage = new DirectoryCheckpointStorage(dir.resolve("checkpoints"));
        for (long id = 1; id <= 5; id++)
        {
            storage.store(metadata(id), 3);
        }
        assertThat(storage.checkpointIds()).containsExactly(3L, 4L, 5L);
        assertThat(storage.load(4)).isEqualTo(metadata(4));
        assertThat(Files.exists(storage.directory().resolve("chk-5").resolve("_metadata.inprogress"))).isFalse();

        final Path newest = storage.directory().resolve("chk-5").resolve(DirectoryCheckpointStorage.METADATA);
        final byte[] bytes = Files.readAllBytes(newest);
        bytes[bytes.length / 2] ^= 1;
        Files.write(newest, bytes);
        assertThatThrownBy(() -> storage.load(5))
            .isInstanceOf(CorruptCheckpointException.class)
            .hasMessageContaining(newest.toString())
            .hasMessageContaining("checksum");
        assertThat(storage.latestIntact()).contains(metadata(4));

        Files.createDirectories(storage.directory().resolve("chk-9"));
        assertThatThrownBy(() -> storage.load(9)).hasMessageContaining("missing");
        assertThat(storage.latestIntact()).contains(metadata(4));

        Files.createDirectories(storage.directory().resolve("chk-not-a-checkpoint"));
        storage.discardAll();
        assertThat(storage.checkpointIds()).isEmpty();
        assertThat(Files.exists(storage.directory().resolve("chk-not-a-checkpoint"))).isTrue();
    }

    @Test
    void discardIncompleteRemovesOnlyFoldersWithoutMetadataAndNamesThem(@TempDir final Path dir) throws IOException
    {
        final DirectoryCheckpointStorage storage = new DirectoryCheckpointStorage(dir);
        storage.store(metadata(3), 5);
        storage.store(metadata(4), 5);
        // a JVM killed while writing checkpoints 5 and 7 left their state files, and no metadata
        final StateOutput torn = storage.createStateOutput(5, "keyed-0");
        torn.write(new byte[] {1, 2, 3}, 0, 3);
        torn.closeAndGetHandle();
        java.nio.file.Files.createDirectories(dir.resolve("chk-7"));
        java.nio.file.Files.createDirectories(dir.resolve("chk-not-a-number"));

        assertThat(storage.discardIncomplete()).containsExactly(5L, 7L);
        assertThat(storage.checkpointIds()).containsExactly(3L, 4L);
        assertThat(storage.load(4)).isEqualTo(metadata(4));
        assertThat(dir.resolve("chk-not-a-number")).as("not ours to touch").exists();
        assertThat(storage.discardIncomplete()).isEmpty();
        assertThat(new InMemoryCheckpointStorage().discardIncomplete()).isEmpty();
    }

    @Test
    void anUnwritableDirectoryIsAClearErrorNamingIt(@TempDir final Path dir) throws IOException
    {
        final Path locked = Files.createDirectory(dir.resolve("locked"));
        Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("r-x------"));
        try
        {
            assumeTrue(!Files.isWritable(locked), "running as a user who can write anywhere (root)");
            assertThatThrownBy(() -> new DirectoryCheckpointStorage(locked))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(locked.toString());
        }
        finally
        {
            Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("rwx------"));
        }
    }

    @Test
    void aFileWhereTheDirectoryShouldBeIsAClearError(@TempDir final Path dir) throws IOException
    {
        final Path file = Files.writeString(dir.resolve("not-a-dir"), "x");
        assertThatThrownBy(() -> new DirectoryCheckpointStorage(file))
            .isInstanceOf(IOException.class)
            .hasMessageContaining(file.toString());
    }

    @Test
    void inMemoryStorageUsesTheSameFormatAndRetention()
    {
        final InMemoryCheckpointStorage storage = new InMemoryCheckpointStorage();
        for (long id = 1; id <= 4; id++)
        {
            storage.store(metadata(id), 2);
        }
        assertThat(storage.checkpointIds()).containsExactly(3L, 4L);
        assertThat(storage.load(3)).isEqualTo(metadata(3));
        assertThatThrownBy(() -> storage.load(1)).isInstanceOf(CorruptCheckpointException.class);
    }

    /**
     * The coordinator announces a checkpoint complete between its commit and its prune: the commit must delete
     * nothing, and the prune must keep the newest, the retained count before it, savepoints, pinned checkpoints, and
     * any checkpoint committed after the newest it was asked about (the I/O thread may commit the next one before
     * this one's prune runs).
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"memory", "directory"})
    void aCommitDeletesNothingAndTheLaterPruneKeepsTheRetainedTheSavepointsTheNewerAndThePinned(
        final String kind, @TempDir final Path dir) throws IOException
    {
        final CheckpointStorage storage = "memory".equals(kind) ? new InMemoryCheckpointStorage() :
            new DirectoryCheckpointStorage(dir.resolve("checkpoints"));
        final CheckpointMetadata savepoint = new CheckpointMetadata(2, 1_700_000_000_002L, true,
            Map.of("numbers", List.of(20L)), Map.of());
        storage.commit(metadata(1));
        storage.commit(savepoint);
        for (long id = 3; id <= 6; id++)
        {
            storage.commit(metadata(id));
        }
        assertThat(storage.checkpointIds()).as("a commit deletes nothing").containsExactly(1L, 2L, 3L, 4L, 5L, 6L);

        // 6 is committed too, but the prune is 5's: 5 and the one before it stay, and 6 is neither pruned nor
        // counted; 3 is pinned this time
        storage.prune(5, 2, java.util.Set.of(3L));
        assertThat(storage.checkpointIds()).containsExactly(2L, 3L, 4L, 5L, 6L);

        storage.prune(6, 2, java.util.Set.of());
        assertThat(storage.checkpointIds()).as("the savepoint is never pruned").containsExactly(2L, 5L, 6L);
        assertThat(storage.load(2)).isEqualTo(savepoint);
        assertThat(storage.load(6)).isEqualTo(metadata(6));
    }
    /**
     * Retention in a directory reads the folders once (a new storage object finds a previous run's checkpoints), then
     * counts its own commits; a folder deleted by hand, or holding a folder of its own, stops nothing, and after
     * discarding everything the count starts again.
     */
    @Test
    void directoryRetentionFindsEarlierCheckpointsOnceThenKeepsItsOwnCount(@TempDir final Path dir) throws IOException
    {
        final Path folder = dir.resolve("checkpoints");
        final DirectoryCheckpointStorage first = new DirectoryCheckpointStorage(folder);
        for (long id = 1; id <= 3; id++)
        {
            first.store(metadata(id), 2);
        }
        assertThat(first.checkpointIds()).containsExactly(2L, 3L);

        // a new object on the same folder, as after a restart of the JVM
        final DirectoryCheckpointStorage storage = new DirectoryCheckpointStorage(folder);
        storage.store(metadata(4), 2);
        assertThat(storage.checkpointIds()).as("found by reading the folders").containsExactly(3L, 4L);

        deleteByHand(folder.resolve("chk-3"));
        Files.createDirectories(folder.resolve("chk-4").resolve("nested"));
        Files.write(folder.resolve("chk-4").resolve("nested").resolve("file"), new byte[] {1});
        for (long id = 5; id <= 7; id++)
        {
            storage.store(metadata(id), 2);
        }
        assertThat(storage.checkpointIds()).as("the folder deleted by hand and the nested one stop nothing")
            .containsExactly(6L, 7L);
        assertThat(folder.resolve("chk-4")).doesNotExist();

        storage.discardAll();
        for (long id = 8; id <= 10; id++)
        {
            storage.store(metadata(id), 1);
        }
        assertThat(storage.checkpointIds()).containsExactly(10L);
        assertThat(storage.load(10)).isEqualTo(metadata(10));
    }

    private static void deleteByHand(final Path checkpoint) throws IOException
    {
        try (java.util.stream.Stream<Path> files = Files.list(checkpoint))
        {
            for (final Path file : (Iterable<Path>)files::iterator)
            {
                Files.delete(file);
            }
        }
        Files.delete(checkpoint);
    }
}
