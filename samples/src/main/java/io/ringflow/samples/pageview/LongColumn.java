package io.ringflow.samples.pageview;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;

/**
 * A fixed number of longs indexed from 0, all 0 at first: the per-app tables of the page-view job. Up to
 * {@link #ON_HEAP_UP_TO} values live in a {@code long[]}; more live in a memory-mapped temporary file, deleted as soon
 * as it is mapped, so that tables of tens of millions of apps take page cache rather than heap (a run with 50 M apps
 * and a 512 MB heap). The mapping is released when the column becomes unreachable.
 *
 * <p>Not thread-safe: one thread writes; another may read after a happens-before edge (the sink hands its columns
 * over through a concurrent queue when its subtask closes).
 */
public sealed interface LongColumn permits LongColumn.OnHeap, LongColumn.Mapped
{
    /** The most values a column keeps on the heap; {@link #forLength} maps a file for more. */
    int ON_HEAP_UP_TO = 1 << 20;
    /** The most values of a mapped column: one mapping of at most 2 GiB. */
    int MAX_LENGTH = Integer.MAX_VALUE / Long.BYTES;

    /**
     * @param length    the number of values, in {@code [0, MAX_LENGTH]}.
     * @param directory where a mapped column's temporary file is created, or null for the JVM's temporary directory.
     * @return a column of {@code length} zeros: on the heap up to {@link #ON_HEAP_UP_TO}, else mapped.
     * @throws UncheckedIOException when the file cannot be created or mapped, naming it.
     */
    static LongColumn forLength(final int length, final Path directory)
    {
        return length <= ON_HEAP_UP_TO ? new OnHeap(new long[length]) : mapped(length, directory);
    }

    /**
     * @param values the values; the column reads and writes this array.
     * @return a column over {@code values}.
     */
    static LongColumn wrap(final long[] values)
    {
        return new OnHeap(Objects.requireNonNull(values, "values"));
    }

    /**
     * @param length    the number of values, in {@code [0, MAX_LENGTH]}.
     * @param directory where the temporary file is created, or null for the JVM's temporary directory.
     * @return a column of {@code length} zeros in a memory-mapped file, whatever its length.
     * @throws UncheckedIOException when the file cannot be created or mapped, naming it.
     */
    static LongColumn mapped(final int length, final Path directory)
    {
        if (length < 0 || length > MAX_LENGTH)
        {
            throw new IllegalArgumentException("a mapped column holds 0 to " + MAX_LENGTH + " values, not " + length);
        }
        Path file = null;
        try
        {
            final Path parent = directory != null ? directory : Path.of(System.getProperty("java.io.tmpdir"));
            file = Files.createTempFile(parent, "page-view-", ".longs");
            final MappedByteBuffer bytes;
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
            {
                // the file grows sparse to the mapped size: its pages read as zeros until written
                bytes = channel.map(FileChannel.MapMode.READ_WRITE, 0, (long)length * Long.BYTES);
            }
            finally
            {
                Files.deleteIfExists(file);
            }
            return new Mapped(bytes.order(ByteOrder.nativeOrder()).asLongBuffer(), length);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot map a table of " + length + " longs" +
                (file != null ? " in " + file : directory != null ? " in " + directory : ""), ex);
        }
    }

    /** @return the number of values. */
    int length();

    /**
     * @param index in {@code [0, length())}.
     * @return the value at {@code index}.
     * @throws IndexOutOfBoundsException outside the column.
     */
    long get(int index);

    /**
     * @param index in {@code [0, length())}.
     * @param value the new value at {@code index}.
     * @throws IndexOutOfBoundsException outside the column.
     */
    void set(int index, long value);

    /**
     * @param index in {@code [0, length())}.
     * @param delta added to the value at {@code index}.
     * @throws IndexOutOfBoundsException outside the column.
     */
    default void add(final int index, final long delta)
    {
        set(index, get(index) + delta);
    }

    /** @return the sum of the values. */
    default long sum()
    {
        long sum = 0;
        for (int i = 0, n = length(); i < n; i++)
        {
            sum += get(i);
        }
        return sum;
    }

    /** @return a new array holding the values. */
    default long[] toArray()
    {
        final long[] values = new long[length()];
        for (int i = 0; i < values.length; i++)
        {
            values[i] = get(i);
        }
        return values;
    }

    /** A column over an array. */
    record OnHeap(long[] values) implements LongColumn
    {
        @Override
        public int length()
        {
            return values.length;
        }

        @Override
        public long get(final int index)
        {
            return values[index];
        }

        @Override
        public void set(final int index, final long value)
        {
            values[index] = value;
        }

        @Override
        public long[] toArray()
        {
            return values.clone();
        }
    }

    /** A column over a mapped file, in native byte order. */
    record Mapped(LongBuffer values, int length) implements LongColumn
    {
        @Override
        public long get(final int index)
        {
            return values.get(index);
        }

        @Override
        public void set(final int index, final long value)
        {
            values.put(index, value);
        }
    }
}
