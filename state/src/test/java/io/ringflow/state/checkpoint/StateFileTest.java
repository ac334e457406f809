package io.ringflow.state.checkpoint;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link CheckpointStorage#openState} and {@link CheckpointStorage#verifyState}: a state file is read by position only
 * once its length and checksum matched its handle, on disk as in memory.
 */
class StateFileTest
{
    private static final long CHECKPOINT = 7;

    @Test
    void aDirectoryOpensAnIntactFileAndReadsItByPosition(@TempDir final Path dir) throws IOException
    {
        final DirectoryCheckpointStorage storage = new DirectoryCheckpointStorage(dir);
        final byte[] bytes = randomBytes(3 << 20, 1);
        final StateHandle handle = write(storage, "keyed-0", bytes);
        storage.verifyState(CHECKPOINT, handle);
        try (StateFile file = storage.openState(CHECKPOINT, handle))
        {
            assertThat(file.length()).isEqualTo(bytes.length);
            assertThat(file.bytesIfInMemory()).as("kept on disk").isNull();
            assertThat(file.name()).contains("keyed-0");
            final Random random = new Random(2);
            for (int i = 0; i < 100; i++)
            {
                final int at = random.nextInt(bytes.length);
                final int length = random.nextInt(Math.min(70_000, bytes.length - at) + 1);
                final byte[] read = new byte[length + 3];
                file.readFully(at, read, 3, length);
                for (int b = 0; b < length; b++)
                {
                    assertThat(read[3 + b]).isEqualTo(bytes[at + b]);
                }
            }
            assertThatThrownBy(() -> file.readFully(bytes.length - 2, new byte[4], 0, 4))
                .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("keyed-0");
        }
    }

    @Test
    void aFlippedByteATruncationOrAMissingFileIsRefusedNamingTheFile(@TempDir final Path dir) throws IOException
    {
        final DirectoryCheckpointStorage storage = new DirectoryCheckpointStorage(dir);
        final byte[] bytes = randomBytes(200_000, 3);
        final StateHandle handle = write(storage, "keyed-1", bytes);
        final Path path = dir.resolve("chk-" + CHECKPOINT).resolve("keyed-1");

        final byte[] flipped = bytes.clone();
        flipped[150_000] ^= 0x10;
        Files.write(path, flipped);
        assertThatThrownBy(() -> storage.openState(CHECKPOINT, handle)).isInstanceOf(CorruptCheckpointException.class)
            .hasMessageContaining("checksum mismatch").hasMessageContaining(path.toString());
        assertThatThrownBy(() -> storage.verifyState(CHECKPOINT, handle))
            .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("checksum mismatch");

        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE))
        {
            channel.truncate(199_999);
        }
        assertThatThrownBy(() -> storage.openState(CHECKPOINT, handle)).isInstanceOf(CorruptCheckpointException.class)
            .hasMessageContaining("truncated: 199999 bytes");

        Files.delete(path);
        assertThatThrownBy(() -> storage.openState(CHECKPOINT, handle)).isInstanceOf(CorruptCheckpointException.class)
            .hasMessageContaining("missing");
        assertThatThrownBy(() -> storage.verifyState(CHECKPOINT, handle))
            .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("missing");
    }

    @Test
    void aFileVerifiedMomentsAgoIsOpenedCheckingItsLengthAndPresence(@TempDir final Path dir) throws IOException
    {
        final DirectoryCheckpointStorage storage = new DirectoryCheckpointStorage(dir);
        final byte[] bytes = randomBytes(300_000, 5);
        final StateHandle handle = write(storage, "keyed-3", bytes);
        storage.verifyState(CHECKPOINT, handle);
        try (StateFile file = storage.openVerifiedState(CHECKPOINT, handle))
        {
            assertThat(file.length()).isEqualTo(bytes.length);
            final byte[] read = new byte[1_000];
            file.readFully(123_456, read, 0, read.length);
            assertThat(read).containsExactly(java.util.Arrays.copyOfRange(bytes, 123_456, 124_456));
        }
        final Path path = dir.resolve("chk-" + CHECKPOINT).resolve("keyed-3");
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE))
        {
            channel.truncate(299_000);
        }
        assertThatThrownBy(() -> storage.openVerifiedState(CHECKPOINT, handle))
            .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("truncated: 299000 bytes")
            .hasMessageContaining(path.toString());
        Files.write(path, randomBytes(300_001, 6));
        assertThatThrownBy(() -> storage.openVerifiedState(CHECKPOINT, handle))
            .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("torn: 300001 bytes");
        Files.delete(path);
        assertThatThrownBy(() -> storage.openVerifiedState(CHECKPOINT, handle))
            .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("missing");
    }

    @Test
    void inMemoryAVerifiedFileIsCheckedAgainWhenOpened() throws IOException
    {
        final InMemoryCheckpointStorage storage = new InMemoryCheckpointStorage();
        final StateHandle handle = write(storage, "keyed-4", randomBytes(1_000, 7));
        final StateHandle wrong = new StateHandle(handle.name(), handle.length(), handle.crc32c() + 1,
            handle.shared());
        assertThatThrownBy(() -> storage.openVerifiedState(CHECKPOINT, wrong))
            .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("checksum mismatch");
    }

    @Test
    void inMemoryTheFileIsItsCheckedBytes() throws IOException
    {
        final InMemoryCheckpointStorage storage = new InMemoryCheckpointStorage();
        final byte[] bytes = randomBytes(10_000, 4);
        final StateHandle handle = write(storage, "keyed-2", bytes);
        try (StateFile file = storage.openState(CHECKPOINT, handle))
        {
            assertThat(file.bytesIfInMemory()).isEqualTo(bytes);
            final byte[] read = new byte[10];
            file.readFully(9_990, read, 0, 10);
            assertThat(read).containsExactly(java.util.Arrays.copyOfRange(bytes, 9_990, 10_000));
        }
        final StateHandle wrong = new StateHandle(handle.name(), handle.length(), handle.crc32c() + 1,
            handle.shared());
        assertThatThrownBy(() -> storage.openState(CHECKPOINT, wrong)).isInstanceOf(CorruptCheckpointException.class)
            .hasMessageContaining("checksum mismatch");
    }

    private static StateHandle write(final CheckpointStorage storage, final String name, final byte[] bytes)
        throws IOException
    {
        final StateOutput out = storage.createStateOutput(CHECKPOINT, name);
        out.write(bytes, 0, bytes.length);
        return out.closeAndGetHandle();
    }

    private static byte[] randomBytes(final int length, final long seed)
    {
        final byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }
}
