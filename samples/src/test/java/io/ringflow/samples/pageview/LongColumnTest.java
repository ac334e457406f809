package io.ringflow.samples.pageview;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LongColumnTest
{
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void aMappedColumnReadsAndWritesAsAnArrayAndLeavesNoFile(final long seed, @TempDir final Path dir)
        throws Exception
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final int length = 1 + random.nextInt(100_000);
        final long[] model = new long[length];
        final LongColumn mapped = LongColumn.mapped(length, dir);

        for (int op = 0; op < 200_000; op++)
        {
            final int index = random.nextInt(length);
            if (random.nextBoolean())
            {
                final long value = random.nextLong();
                mapped.set(index, value);
                model[index] = value;
            }
            else
            {
                final long delta = random.nextInt(1_000) - 500;
                mapped.add(index, delta);
                model[index] += delta;
            }
        }

        assertThat(mapped.length()).isEqualTo(length);
        assertThat(mapped.toArray()).containsExactly(model);
        assertThat(mapped.sum()).isEqualTo(java.util.Arrays.stream(model).sum());
        try (Stream<Path> files = Files.list(dir))
        {
            assertThat(files).as("the mapped file is deleted once mapped").isEmpty();
        }
    }

    @ParameterizedTest(name = "length {0}")
    @ValueSource(ints = {0, 1, LongColumn.ON_HEAP_UP_TO, LongColumn.ON_HEAP_UP_TO + 1})
    void aNewColumnHoldsZerosOnTheHeapUpToItsBoundAndMappedBeyond(final int length, @TempDir final Path dir)
    {
        final LongColumn column = LongColumn.forLength(length, dir);

        assertThat(column.length()).isEqualTo(length);
        assertThat(column.sum()).isZero();
        assertThat(column).isInstanceOf(length <= LongColumn.ON_HEAP_UP_TO ? LongColumn.OnHeap.class :
            LongColumn.Mapped.class);
        assertThatThrownBy(() -> column.get(length)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> column.set(-1, 1)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @org.junit.jupiter.api.Test
    void aColumnThatCannotBeMappedIsRefusedNamingWhere(@TempDir final Path dir)
    {
        final Path missing = dir.resolve("no-such-directory");

        assertThatThrownBy(() -> LongColumn.mapped(10, missing))
            .isInstanceOf(java.io.UncheckedIOException.class)
            .hasMessageContaining("cannot map a table of 10 longs in " + missing);
        assertThatThrownBy(() -> LongColumn.mapped(-1, dir))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("holds 0 to " + LongColumn.MAX_LENGTH + " values, not -1");
    }
}
