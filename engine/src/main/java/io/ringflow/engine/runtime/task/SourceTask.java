package io.ringflow.engine.runtime.task;

import io.ringflow.engine.api.source.SourceReader;
import io.ringflow.engine.channel.BarrierKind;
import io.ringflow.engine.channel.ChannelWriter;
import io.ringflow.engine.checkpoint.CheckpointParticipant;

/**
 * A task whose head is a source: each cycle injects a barrier if one was requested, then polls the reader for up to
 * one batch of records.
 */
public final class SourceTask extends Task
{
    private final SourceOperator source;
    private final int batchSize;
    private long endPosition = -1;
    /** {@link #source()}, once built; immutable, so a plain field is safe to publish to any thread. */
    private CheckpointParticipant.SourceSubtask sourceSubtask;

    public SourceTask(
        final TaskHost host,
        final String name,
        final StreamOperator[] chain,
        final ChannelWriter[] writers,
        final Idler idler,
        final long maxParkNanos,
        final int cpu,
        final int batchSize)
    {
        super(host, name, chain, writers, idler, maxParkNanos, cpu);
        this.source = (SourceOperator)chain[0];
        this.batchSize = batchSize;
    }

    @Override
    int doWork()
    {
        // With unaligned barriers, a requested barrier is looked for between chunks of the batch: emitting may wait
        // for room in a full ring, and the barrier should not wait behind a whole batch of such waits.
        final int chunk = announcesBarriers() ? Math.min(batchSize, InputTask.ANNOUNCEMENT_CHUNK) : batchSize;
        int total = 0;
        while (total < batchSize)
        {
            injectRequestedBarrier();
            if (lastForwardedBarrier() >= host.stopSourcesAfter())
            {
                // stopped with a savepoint: nothing after its barrier
                return total;
            }
            final int emitted;
            try
            {
                emitted = source.emitNext(Math.min(chunk, batchSize - total));
            }
            catch (final Throwable ex)
            {
                throw OperatorException.wrap(source.runtime(), ex);
            }
            if (emitted == SourceReader.END_OF_INPUT)
            {
                endPosition = source.position();
                finish();
                return total + 1;
            }
            total += emitted;
            if (emitted < chunk)
            {
                break;
            }
        }
        return total;
    }

    private void injectRequestedBarrier()
    {
        final long packed = host.requestedBarrier();
        final long requested = packed >>> 1;
        if (requested > lastForwardedBarrier())
        {
            final long start = System.nanoTime();
            // the synchronous part is the snapshot alone: emitting the barrier may wait for room in the ring
            final long syncNanos = forwardBarrier(requested, (packed & 1) != 0 ? BarrierKind.SAVEPOINT :
                BarrierKind.CHECKPOINT, System.currentTimeMillis());
            // the cut: the position after the last record emitted before the barrier
            acknowledgeSnapshot(requested, source.position(), start, syncNanos, 0, false);
        }
    }

    @Override
    public long finishedPosition()
    {
        return endPosition;
    }

    @Override
    public CheckpointParticipant.SourceSubtask source()
    {
        // asked at every checkpoint's commit, on whichever thread commits: built once (a race builds an equal one)
        CheckpointParticipant.SourceSubtask subtask = sourceSubtask;
        if (subtask == null)
        {
            final OperatorRuntime runtime = source.runtime();
            subtask = new CheckpointParticipant.SourceSubtask(runtime.uid(), runtime.subtaskIndex(),
                runtime.parallelism());
            sourceSubtask = subtask;
        }
        return subtask;
    }

    @Override
    void idle(final int work)
    {
        idler.idle(work, () -> false);
    }
}
