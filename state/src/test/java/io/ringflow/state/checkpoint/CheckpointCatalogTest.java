package io.ringflow.state.checkpoint;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CheckpointCatalogTest
{
    private Path dir;
    private DirectoryCheckpointStorage storage;

    @BeforeEach
    void writeCheckpoints(@TempDir final Path temp) throws IOException
    {
        dir = temp.resolve("checkpoints");
        storage = new DirectoryCheckpointStorage(dir);
        // chk-1: full keyed snapshot and operator state in its own folder
        final StateHandle keyed1 = write(storage.createStateOutput(1, "keyed-0"), 300);
        final StateHandle operator1 = write(storage.createStateOutput(1, "operator-0"), 40);
        storage.store(checkpoint(1, false, new SubtaskState(keyed1, operator1, null)), 10);
        // chk-2: an incremental chain in shared/: a base and one delta
        final StateHandle base = write(storage.createSharedStateOutput(2, "base-0"), 500);
        final StateHandle delta = write(storage.createSharedStateOutput(2, "delta-0"), 60);
        storage.store(checkpoint(2, false, new SubtaskState(base, List.of(delta), null, null)), 10);
        // chk-3: state written, never committed
        write(storage.createStateOutput(3, "keyed-0"), 10);
        // chk-4: a savepoint with channel state
        final StateHandle keyed4 = write(storage.createStateOutput(4, "keyed-0"), 320);
        final StateHandle channels4 = write(storage.createStateOutput(4, "channels-0"), 90);
        storage.store(checkpoint(4, true, new SubtaskState(keyed4, null, channels4)), 10);
    }

    @Test
    void listsEveryFolderOldestFirstAndPicksTheNewestIntactOne() throws IOException
    {
        final List<CheckpointCatalog.Report> reports = CheckpointCatalog.list(dir);

        assertThat(reports).extracting(CheckpointCatalog.Report::checkpointId).containsExactly(1L, 2L, 3L, 4L);
        assertThat(reports).extracting(CheckpointCatalog.Report::intact).containsExactly(true, true, false, true);
        assertThat(reports.get(2).problems()).singleElement().asString().contains("never committed");
        assertThat(reports).extracting(CheckpointCatalog.Report::stateFiles).containsExactly(2, 2, 0, 2);
        assertThat(reports).extracting(CheckpointCatalog.Report::stateBytes).containsExactly(340L, 560L, 0L, 410L);
        assertThat(reports).extracting(CheckpointCatalog.Report::longestKeyedChain).containsExactly(1, 2, 0, 1);
        assertThat(reports).extracting(CheckpointCatalog.Report::savepoint).containsExactly(false, false, false, true);
        assertThat(CheckpointCatalog.newestIntact(reports)).get()
            .extracting(CheckpointCatalog.Report::checkpointId).isEqualTo(4L);
    }

    @Test
    void aFlippedByteATruncatedFileAndAMissingSharedFileAreEachNamed() throws IOException
    {
        final Path keyed1 = dir.resolve("chk-1").resolve("keyed-0");
        final byte[] bytes = Files.readAllBytes(keyed1);
        bytes[17] ^= 1;
        Files.write(keyed1, bytes);
        assertThat(CheckpointCatalog.verify(dir.resolve("chk-1")).problems()).singleElement().asString()
            .contains(keyed1.toString()).contains("checksum mismatch");

        Files.write(keyed1, new byte[299]);
        assertThat(CheckpointCatalog.verify(dir.resolve("chk-1")).problems()).singleElement().asString()
            .contains("truncated: 299 bytes").contains("says 300");

        Files.delete(dir.resolve("shared").resolve("delta-0"));
        final CheckpointCatalog.Report chain = CheckpointCatalog.verify(dir.resolve("chk-2"));
        assertThat(chain.intact()).isFalse();
        assertThat(chain.problems()).singleElement().asString().contains("delta-0").contains("missing (a shared file");

        assertThat(CheckpointCatalog.newestIntact(CheckpointCatalog.list(dir))).get()
            .extracting(CheckpointCatalog.Report::checkpointId).isEqualTo(4L);
    }

    @Test
    void corruptMetadataIsReportedNotThrown() throws IOException
    {
        final Path metadata = dir.resolve("chk-4").resolve("_metadata");
        final byte[] bytes = Files.readAllBytes(metadata);
        bytes[bytes.length / 2] ^= 0x40;
        Files.write(metadata, bytes);

        final CheckpointCatalog.Report report = CheckpointCatalog.verify(metadata);
        assertThat(report.intact()).isFalse();
        assertThat(report.metadata()).isNull();
        assertThat(report.problems()).singleElement().asString().contains("_metadata");
        assertThat(CheckpointCatalog.newestIntact(CheckpointCatalog.list(dir))).get()
            .extracting(CheckpointCatalog.Report::checkpointId).isEqualTo(2L);
    }

    @Test
    void metadataOfANewerFormatIsReportedWithTheVersionsThisBuildReads() throws IOException
    {
        final Path metadata = dir.resolve("chk-1").resolve("_metadata");
        final byte[] bytes = Files.readAllBytes(metadata);
        java.nio.ByteBuffer.wrap(bytes).putInt(4, MetadataFormat.VERSION + 1);
        Files.write(metadata, bytes);

        assertThat(CheckpointCatalog.verify(dir.resolve("chk-1")).problems()).singleElement().asString()
            .contains("format version " + (MetadataFormat.VERSION + 1))
            .contains("this build reads " + MetadataFormat.OLDEST_READABLE_VERSION + " to " + MetadataFormat.VERSION);
    }

    @Test
    void aFolderRenamedByHandIsNotTakenForTheCheckpointItHolds() throws IOException
    {
        Files.move(dir.resolve("chk-1"), dir.resolve("chk-9"));
        assertThat(CheckpointCatalog.verify(dir.resolve("chk-9")).problems()).singleElement().asString()
            .contains("describes checkpoint 1, not 9");
    }

    @Test
    void whatIsNotACheckpointIsRefusedWithWhatItIs(@TempDir final Path other) throws IOException
    {
        assertThatThrownBy(() -> CheckpointCatalog.list(other.resolve("absent")))
            .isInstanceOf(NoSuchFileException.class);
        final Path file = Files.writeString(other.resolve("notes.txt"), "x");
        assertThatThrownBy(() -> CheckpointCatalog.list(file)).isInstanceOf(NotDirectoryException.class);
        assertThatThrownBy(() -> CheckpointCatalog.verify(other)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("not a checkpoint").hasMessageContaining("chk-<n>");
        assertThatThrownBy(() -> CheckpointCatalog.verify(dir.resolve("chk-77")))
            .isInstanceOf(NoSuchFileException.class);
        assertThat(CheckpointCatalog.list(other)).isEmpty();
    }

    @Test
    void readingChangesNothingOnDisk() throws IOException
    {
        final Map<String, String> before = tree(dir);
        CheckpointCatalog.list(dir);
        CheckpointCatalog.verify(dir.resolve("chk-2"));
        assertThat(tree(dir)).isEqualTo(before);
    }

    private static CheckpointMetadata checkpoint(final long id, final boolean savepoint, final SubtaskState subtask)
    {
        return new CheckpointMetadata(id, 1_700_000_000_000L + id, savepoint, Map.of("source", List.of(100 * id)),
            Map.of("count", new OperatorState(1, 128, List.of(subtask))));
    }

    private static StateHandle write(final StateOutput output, final int length) throws IOException
    {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = (byte)(i * 31 + length);
        }
        output.write(bytes);
        return output.closeAndGetHandle();
    }

    private static Map<String, String> tree(final Path root) throws IOException
    {
        final Map<String, String> files = new TreeMap<>();
        try (Stream<Path> paths = Files.walk(root))
        {
            for (final Path path : (Iterable<Path>)paths::iterator)
            {
                final FileTime modified = Files.getLastModifiedTime(path);
                files.put(root.relativize(path).toString(),
                    (Files.isDirectory(path) ? "dir" : Files.size(path) + " bytes") + " " + modified);
            }
        }
        return files;
    }
}
