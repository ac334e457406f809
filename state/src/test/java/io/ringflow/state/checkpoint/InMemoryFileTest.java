package io.ringflow.state.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.util.Random;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The chunks of an in-memory state file read back as exactly the bytes written, whatever the sizes of the writes
 * (seeded), across chunk boundaries, and a corruption lands on the byte named.
 */
class InMemoryFileTest
{
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void aFileReadsBackExactlyWhatWasWrittenAndACorruptionFlipsTheByteNamed(final long seed)
    {
        final Random random = new Random(seed);
        final InMemoryFile file = new InMemoryFile(new ChunkPool());
        final ByteArrayOutputStream model = new ByteArrayOutputStream();
        // small files, files of a few chunks, and one past the largest chunk size
        final int target = seed <= 3 ? random.nextInt(10_000) : (int)(seed * 1_500_000);
        while (model.size() < target)
        {
            final byte[] bytes = new byte[1 + random.nextInt(random.nextBoolean() ? 100 : 300_000)];
            random.nextBytes(bytes);
            final int offset = random.nextInt(bytes.length);
            final int count = random.nextInt(bytes.length - offset + 1);
            file.write(bytes, offset, count);
            model.write(bytes, offset, count);
        }
        file.finish();

        final byte[] expected = model.toByteArray();
        assertThat(file.length()).isEqualTo(expected.length);
        assertThat(file.bytes()).isEqualTo(expected);
        if (expected.length > 0)
        {
            final int index = random.nextInt(expected.length);
            file.corrupt(index);
            expected[index] ^= 0x5A;
            assertThat(file.bytes()).isEqualTo(expected);
        }
        assertThatThrownBy(() -> file.corrupt(expected.length)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {1, 4_096, 4_097, 34_567, 4 * 1024 * 1024, 4 * 1024 * 1024 + 1})
    void aFileWrittenInOneCallIsOneChunkOfThePowerOfTwoThatHoldsItUpToTheLargestAndEveryReadIsACopy(final int size)
    {
        final byte[] bytes = new byte[size];
        new Random(size).nextBytes(bytes);
        final InMemoryFile file = new InMemoryFile(new ChunkPool());
        file.write(bytes, 0, size);
        file.finish();

        final byte[] read = file.bytes();
        assertThat(read).isEqualTo(bytes);
        // one chunk of the power of two that holds it, up to 4 MiB; past that a second, for what is left
        assertThat(file.chunkCount()).isEqualTo(size <= 4 * 1024 * 1024 ? 1 : 2);
        assertThat(file.heldBytes()).isEqualTo(size <= 4 * 1024 * 1024 ? ChunkPool.lengthFor(size) :
            4 * 1024 * 1024 + ChunkPool.lengthFor(size - 4 * 1024 * 1024));
        // the chunks go back to the pool when the file is dropped, so a reader never holds one
        assertThat(read).isNotSameAs(file.bytes());
        read[0] ^= 1;
        assertThat(file.bytes()[0]).isEqualTo(bytes[0]);
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {1, 34_567, 4 * 1024 * 1024 + 1})
    void aRecycledFileGivesItsChunksToThePoolAndReadsAsNothing(final int size)
    {
        final ChunkPool pool = new ChunkPool();
        pool.limitTo(Long.MAX_VALUE);
        final InMemoryFile file = new InMemoryFile(pool);
        file.write(new byte[size], 0, size);
        file.finish();
        final long held = file.heldBytes();
        assertThat(held).isGreaterThanOrEqualTo(size);

        file.recycle();
        file.recycle();
        assertThat(file.bytes()).isNull();
        assertThat(file.heldBytes()).isZero();
        assertThat(pool.freeBytes()).as("given back once").isEqualTo(held);

        final InMemoryFile next = new InMemoryFile(pool);
        next.write(new byte[size], 0, size);
        assertThat(pool.allocated()).as("the second file of the same size is written in the first one's arrays")
            .isEqualTo(file.chunkCount());
    }
}
