package io.ringflow.engine.runtime;

import io.ringflow.engine.api.source.SourceReader;
import io.ringflow.engine.channel.ChannelWriter;
import io.ringflow.engine.runtime.operators.SourceOperator;

/**
 * A task whose head is a source: each cycle injects a barrier if one was requested, then polls the reader for up to
 * one batch of records.
 */
final class SourceTask extends Task
{
    /** Barrier type code of a checkpoint; savepoints get their own code with the checkpointing layer. */
    static final int BARRIER_CHECKPOINT = 0;

    private final SourceOperator source;
    private final int batchSize;
    private long endPosition = -1;

    SourceTask(
        final JobExecution execution,
        final String name,
        final StreamOperator[] chain,
        final ChannelWriter[] writers,
        final Idler idler,
        final long maxParkNanos,
        final int cpu,
        final int batchSize)
    {
        super(execution, name, chain, writers, idler, maxParkNanos, cpu);
        this.source = (SourceOperator)chain[0];
        this.batchSize = batchSize;
    }

    @Override
    int doWork()
    {
        final long requested = execution.requestedBarrier();
        if (requested > lastForwardedBarrier())
        {
            final long start = System.nanoTime();
            forwardBarrier(requested, BARRIER_CHECKPOINT, System.currentTimeMillis());
            // the cut: the position after the last record emitted before the barrier
            acknowledgeSnapshot(requested, source.position(), start, System.nanoTime() - start, 0, false);
        }
        final int emitted;
        try
        {
            emitted = source.emitNext(batchSize);
        }
        catch (final Throwable ex)
        {
            throw OperatorException.wrap(source.runtime(), ex);
        }
        if (emitted == SourceReader.END_OF_INPUT)
        {
            endPosition = source.position();
            finish();
            return 1;
        }
        return emitted;
    }

    @Override
    long finishedPosition()
    {
        return endPosition;
    }

    @Override
    void idle(final int work)
    {
        idler.idle(work, () -> false);
    }
}
