package io.ringflow.samples.pageview;

import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.source.Source;
import io.ringflow.engine.api.source.SourceReader;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Wraps a source so that it can be ended gracefully from any thread: after {@link #requestStop()} every reader ends
 * its split at its next poll, so END_OF_INPUT flows downstream behind the records already emitted and the job
 * finishes instead of being cancelled. Each reader also reports the position at which its split ended, which for a
 * {@link io.ringflow.engine.api.source.GeneratorSource} is the number of records the subtask emitted.
 *
 * @param <T> the record type.
 */
final class StoppableSource<T> implements Source<T>
{
    private final Source<T> delegate;
    private final ConcurrentHashMap<Integer, Long> endPositions = new ConcurrentHashMap<>();
    private volatile boolean stopRequested;
    private volatile int parallelism;

    /**
     * @param delegate the source that makes the records.
     */
    StoppableSource(final Source<T> delegate)
    {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** Makes every reader end its split at its next poll. Idempotent; callable from any thread. */
    void requestStop()
    {
        stopRequested = true;
    }

    /** @return whether {@link #requestStop()} was called. */
    boolean stopRequested()
    {
        return stopRequested;
    }

    /**
     * @return the position at which each subtask's split ended, by subtask index, or null while any subtask has not
     *     ended (or never started).
     */
    long[] endPositions()
    {
        final int subtasks = parallelism;
        if (subtasks == 0 || endPositions.size() != subtasks)
        {
            return null;
        }
        final long[] positions = new long[subtasks];
        for (int i = 0; i < subtasks; i++)
        {
            positions[i] = endPositions.get(i);
        }
        return positions;
    }

    @Override
    public Class<T> producedType()
    {
        return delegate.producedType();
    }

    @Override
    public boolean isBounded()
    {
        return delegate.isBounded();
    }

    @Override
    public int maxParallelism()
    {
        return delegate.maxParallelism();
    }

    @Override
    public SourceReader<T> createReader(final SubtaskInfo subtask) throws Exception
    {
        parallelism = subtask.parallelism();
        return new Reader(delegate.createReader(subtask), subtask.subtaskIndex());
    }

    /** Closes the delegate, whose {@code close()} may throw anything, InterruptedException included. */
    @SuppressWarnings("try")
    private final class Reader implements SourceReader<T>
    {
        private final SourceReader<T> reader;
        private final int subtask;

        Reader(final SourceReader<T> reader, final int subtask)
        {
            this.reader = reader;
            this.subtask = subtask;
        }

        @Override
        public int pollNext(final Collector<T> output, final int maxRecords) throws Exception
        {
            final int emitted = stopRequested ? END_OF_INPUT : reader.pollNext(output, maxRecords);
            if (emitted == END_OF_INPUT)
            {
                endPositions.put(subtask, reader.position());
            }
            return emitted;
        }

        @Override
        public long position()
        {
            return reader.position();
        }

        @Override
        public void seek(final long position) throws Exception
        {
            reader.seek(position);
        }

        @Override
        public void close() throws Exception
        {
            reader.close();
        }
    }
}
