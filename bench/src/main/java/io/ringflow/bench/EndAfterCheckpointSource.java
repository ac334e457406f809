package io.ringflow.bench;

import io.ringflow.engine.api.functions.CheckpointListener;
import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.source.Source;
import io.ringflow.engine.api.source.SourceReader;

/**
 * A source whose subtasks end only once at least {@code checkpoints} checkpoints have completed since the subtask
 * started and the harness lets them ({@code mayEnd}): when the wrapped reader runs out earlier, the subtask emits
 * nothing and waits. A benchmark that must measure a run with checkpoints then never depends on how many complete
 * while a short run lasts; a long run, whose checkpoints complete while records flow, never waits.
 *
 * @param <T> the record type.
 */
final class EndAfterCheckpointSource<T> implements Source<T>
{
    private final Source<T> source;
    private final int checkpoints;
    private final java.util.function.BooleanSupplier mayEnd;

    /**
     * @param source      the source to wrap.
     * @param checkpoints how many checkpoints each subtask must see completed before it ends, at least 1.
     */
    EndAfterCheckpointSource(final Source<T> source, final int checkpoints)
    {
        this(source, checkpoints, () -> true);
    }

    /**
     * @param source      the source to wrap.
     * @param checkpoints how many checkpoints each subtask must see completed before it ends, at least 1.
     * @param mayEnd      also asked before a subtask ends; any thread may make it true.
     */
    EndAfterCheckpointSource(final Source<T> source, final int checkpoints,
        final java.util.function.BooleanSupplier mayEnd)
    {
        this.mayEnd = mayEnd;
        if (checkpoints < 1)
        {
            throw new IllegalArgumentException("checkpoints must be at least 1, was " + checkpoints);
        }
        this.source = source;
        this.checkpoints = checkpoints;
    }

    @Override
    public Class<T> producedType()
    {
        return source.producedType();
    }

    @Override
    public boolean isBounded()
    {
        return source.isBounded();
    }

    @Override
    public int maxParallelism()
    {
        return source.maxParallelism();
    }

    @Override
    public SourceReader<T> createReader(final SubtaskInfo subtask) throws Exception
    {
        return new Reader<>(source.createReader(subtask), checkpoints, mayEnd);
    }

    /** Task thread only: the notifications come through the task's mailbox. */
    private static final class Reader<T> implements SourceReader<T>, CheckpointListener
    {
        private final SourceReader<T> reader;
        private final int checkpoints;
        private final java.util.function.BooleanSupplier mayEnd;
        private int completed;

        Reader(final SourceReader<T> reader, final int checkpoints, final java.util.function.BooleanSupplier mayEnd)
        {
            this.reader = reader;
            this.checkpoints = checkpoints;
            this.mayEnd = mayEnd;
        }

        @Override
        public int pollNext(final Collector<T> output, final int maxRecords) throws Exception
        {
            final int emitted = reader.pollNext(output, maxRecords);
            return emitted == END_OF_INPUT && (completed < checkpoints || !mayEnd.getAsBoolean()) ? 0 : emitted;
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
        public void notifyCheckpointComplete(final long checkpointId)
        {
            completed++;
        }

        @Override
        public void close() throws Exception
        {
            reader.close();
        }
    }
}
