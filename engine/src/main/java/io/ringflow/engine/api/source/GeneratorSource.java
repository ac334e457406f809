package io.ringflow.engine.api.source;

import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.SubtaskInfo;

import java.util.Objects;

/**
 * A deterministic source: record {@code i} is {@code generator.generate(i, creationNanos)}. Bounded (a count) or
 * unbounded, as fast as possible or at a fixed rate.
 *
 * <p>With parallelism {@code p}, subtask {@code s} produces the indices {@code s, s + p, s + 2p, ...}; its position
 * is the number of records it has emitted. At a fixed rate each subtask runs at {@code rate / p} and stamps every
 * record with the time it was due, not the time it was made.
 *
 * @param <T> the record type.
 */
public final class GeneratorSource<T> implements Source<T>
{
    private final long count;
    private final RecordGenerator<T> generator;
    private final long recordsPerSecond;
    private final Class<T> type;

    private GeneratorSource(
        final long count, final RecordGenerator<T> generator, final long recordsPerSecond, final Class<T> type)
    {
        if (count < 0)
        {
            throw new IllegalArgumentException("count must be >= 0 (or unbounded), was " + count);
        }
        if (recordsPerSecond < 0)
        {
            throw new IllegalArgumentException("recordsPerSecond must be > 0, or 0 for as fast as possible, was " +
                recordsPerSecond);
        }
        this.count = count;
        this.generator = Objects.requireNonNull(generator, "generator");
        this.recordsPerSecond = recordsPerSecond;
        this.type = type;
    }

    /**
     * @param count     how many records in all subtasks together.
     * @param generator makes record {@code i}.
     * @param type      the record type.
     * @param <T>       the record type.
     * @return a bounded generator running as fast as possible.
     */
    public static <T> GeneratorSource<T> bounded(final long count, final Class<T> type, final RecordGenerator<T> generator)
    {
        return new GeneratorSource<>(count, generator, 0, type);
    }

    /**
     * @param generator makes record {@code i}.
     * @param type      the record type.
     * @param <T>       the record type.
     * @return an unbounded generator running as fast as possible; it stops only when the job is cancelled.
     */
    public static <T> GeneratorSource<T> unbounded(final Class<T> type, final RecordGenerator<T> generator)
    {
        return new GeneratorSource<>(Long.MAX_VALUE, generator, 0, type);
    }

    /**
     * @param recordsPerSecond the offered rate of all subtasks together.
     * @return a copy of this source that emits at a fixed rate.
     */
    public GeneratorSource<T> withRate(final long recordsPerSecond)
    {
        if (recordsPerSecond <= 0)
        {
            throw new IllegalArgumentException("recordsPerSecond must be > 0, was " + recordsPerSecond);
        }
        return new GeneratorSource<>(count, generator, recordsPerSecond, type);
    }

    /** @return how many records in all, {@link Long#MAX_VALUE} when unbounded. */
    public long count()
    {
        return count;
    }

    @Override
    public Class<T> producedType()
    {
        return type;
    }

    @Override
    public boolean isBounded()
    {
        return count != Long.MAX_VALUE;
    }

    @Override
    public SourceReader<T> createReader(final SubtaskInfo subtask)
    {
        return new Reader<>(this, subtask.subtaskIndex(), subtask.parallelism());
    }

    private static final class Reader<T> implements SourceReader<T>
    {
        private final RecordGenerator<T> generator;
        private final long limit;
        private final int subtask;
        private final int parallelism;
        private final long periodNanos;
        private long emitted;
        private long startNanos = Long.MIN_VALUE;

        Reader(final GeneratorSource<T> source, final int subtask, final int parallelism)
        {
            this.generator = source.generator;
            this.subtask = subtask;
            this.parallelism = parallelism;
            // Records of this subtask: indices subtask, subtask + p, ... below count.
            this.limit = source.count == Long.MAX_VALUE ? Long.MAX_VALUE :
                (source.count - subtask + parallelism - 1) / parallelism;
            this.periodNanos = source.recordsPerSecond == 0 ? 0 :
                Math.max(1, 1_000_000_000L * parallelism / source.recordsPerSecond);
        }

        @Override
        public int pollNext(final Collector<T> output, final int maxRecords)
        {
            if (emitted >= limit)
            {
                return END_OF_INPUT;
            }
            long n = Math.min(maxRecords, limit - emitted);
            final long now = System.nanoTime();
            if (periodNanos != 0)
            {
                if (startNanos == Long.MIN_VALUE)
                {
                    startNanos = now - emitted * periodNanos;
                }
                final long due = (now - startNanos) / periodNanos + 1 - emitted;
                n = Math.min(n, due);
                for (int i = 0; i < n; i++)
                {
                    final long local = emitted++;
                    output.collect(generator.generate(subtask + local * parallelism, startNanos + local * periodNanos));
                }
            }
            else
            {
                for (int i = 0; i < n; i++)
                {
                    output.collect(generator.generate(subtask + (emitted++) * parallelism, now));
                }
            }
            return (int)Math.max(0, n);
        }

        @Override
        public long position()
        {
            return emitted;
        }

        @Override
        public void seek(final long position)
        {
            if (position < 0 || position > limit)
            {
                throw new IllegalArgumentException("position " + position + " is outside [0, " + limit + "]");
            }
            emitted = position;
            startNanos = Long.MIN_VALUE;
        }
    }
}
