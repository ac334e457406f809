package io.ringflow.state.checkpoint;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A directory's state file: written through the thread's spare buffer, whatever the sizes of the writes (seeded),
 * byte-exact and checksummed, moved into place whole; two files open at once on one thread each keep their own bytes;
 * an abandoned file is deleted; a thread writing file after file allocates no buffer per file.
 */
class FileStateOutputTest
{
    @TempDir
    Path dir;

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 77, 20_261_206})
    void filesOfMixedWriteSizesAreWrittenExactly(final long seed) throws IOException
    {
        final Random random = new Random(seed);
        for (int file = 0; file < 12; file++)
        {
            final ByteArrayOutputStream expected = new ByteArrayOutputStream();
            final String name = "state-" + file;
            final FileStateOutput output = new FileStateOutput(name, false, dir.resolve(name + ".inprogress"),
                dir.resolve(name));
            final int writes = random.nextInt(40);
            for (int i = 0; i < writes; i++)
            {
                // single bytes, small pieces, pieces that cross the 64 KiB buffer, and writes larger than it
                final int size = switch (random.nextInt(4))
                {
                    case 0 -> 1;
                    case 1 -> random.nextInt(100);
                    case 2 -> random.nextInt(70_000);
                    default -> 64 * 1024 + random.nextInt(100_000);
                };
                final byte[] bytes = new byte[size + 3];
                random.nextBytes(bytes);
                output.write(bytes, 3, size);
                expected.write(bytes, 3, size);
            }
            final StateHandle handle = output.closeAndGetHandle();

            final byte[] written = Files.readAllBytes(dir.resolve(name));
            assertThat(written).as("seed %d file %d", seed, file).isEqualTo(expected.toByteArray());
            assertThat(handle.length()).isEqualTo(written.length);
            final CRC32C crc = new CRC32C();
            crc.update(written);
            assertThat(handle.crc32c()).isEqualTo((int)crc.getValue());
            assertThat(dir.resolve(name + ".inprogress")).doesNotExist();
        }
    }

    @Test
    void twoFilesOpenAtOnceOnOneThreadKeepTheirOwnBytes() throws IOException
    {
        final FileStateOutput first = new FileStateOutput("a", false, dir.resolve("a.tmp"), dir.resolve("a"));
        final FileStateOutput second = new FileStateOutput("b", false, dir.resolve("b.tmp"), dir.resolve("b"));
        for (int i = 0; i < 1_000; i++)
        {
            first.write(new byte[] {1, 1, 1}, 0, 3);
            second.write(new byte[] {2, 2}, 0, 2);
        }
        first.closeAndGetHandle();
        second.closeAndGetHandle();

        assertThat(Files.readAllBytes(dir.resolve("a"))).hasSize(3_000).containsOnly((byte)1);
        assertThat(Files.readAllBytes(dir.resolve("b"))).hasSize(2_000).containsOnly((byte)2);
    }

    @Test
    void anAbandonedFileIsDeletedAndNeverMovedIntoPlace() throws IOException
    {
        final FileStateOutput output = new FileStateOutput("c", false, dir.resolve("c.tmp"), dir.resolve("c"));
        output.write(new byte[100_000], 0, 100_000);
        output.close();
        output.close();

        assertThat(dir.resolve("c.tmp")).doesNotExist();
        assertThat(dir.resolve("c")).doesNotExist();
    }

    @Test
    void aThreadWritingFileAfterFileReusesOneBuffer() throws IOException
    {
        assumeTrue(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean);
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
        final byte[] chunk = new byte[1_000];
        writeFile("warm", chunk);

        long least = Long.MAX_VALUE;
        for (int round = 0; round < 5; round++)
        {
            final long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
            writeFile("f" + round, chunk);
            least = Math.min(least, threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before);
        }
        // paths, a channel and the handle: a few kilobytes; a buffer per file would be 64 KiB more
        assertThat(least).as("bytes allocated to write one more file").isLessThan(32 * 1024);
    }

    private void writeFile(final String name, final byte[] chunk) throws IOException
    {
        final FileStateOutput output = new FileStateOutput(name, false, dir.resolve(name + ".tmp"),
            dir.resolve(name));
        for (int i = 0; i < 100; i++)
        {
            output.write(chunk, 0, chunk.length);
        }
        output.closeAndGetHandle();
    }
}
