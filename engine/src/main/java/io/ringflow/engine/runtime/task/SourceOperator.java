package io.ringflow.engine.runtime.task;

import io.ringflow.engine.api.source.Source;
import io.ringflow.engine.api.source.SourceReader;

/**
 * The head of a source task: owns the subtask's {@link SourceReader}; the task polls it for batches.
 */
public final class SourceOperator extends StreamOperator
{
    private final Source<Object> source;
    private SourceReader<Object> reader;
    /** Where a restored subtask resumes, or -1 to start from the beginning. */
    private long restoredPosition = -1;
    /** For a source that keeps its position in state: every former subtask's position at the checkpoint, or null. */
    private java.util.List<Long> formerPositions;

    /** @param source the user's source, shared by all subtasks; each subtask creates its own reader. */
    @SuppressWarnings("unchecked")
    public SourceOperator(final Source<?> source)
    {
        this.source = (Source<Object>)source;
    }

    /**
     * Called before the task starts when the job is restored from a checkpoint.
     *
     * @param position the position the checkpoint recorded for this subtask.
     */
    public void restorePosition(final long position)
    {
        this.restoredPosition = position;
    }

    /**
     * Called before the task starts when the job is restored and the source keeps its position in state.
     *
     * @param positions every former subtask's position at the checkpoint (its end position if it had finished).
     */
    public void restoreFormerPositions(final java.util.List<Long> positions)
    {
        this.formerPositions = java.util.List.copyOf(positions);
    }

    /** @return whether the source restores from its own operator state rather than from one position. */
    public boolean keepsPositionInState()
    {
        return source.keepsPositionInState();
    }

    @Override
    public void initializeState()
    {
        // the reader does not exist yet: open() initializes it
    }

    @Override
    public void open() throws Exception
    {
        reader = source.createReader(runtime);
        if (formerPositions != null)
        {
            reader.restoreFormerPositions(formerPositions);
        }
        initializeListenerState();
        if (restoredPosition >= 0)
        {
            reader.seek(restoredPosition);
        }
    }

    /**
     * Emits up to {@code max} records into the chain.
     *
     * @param max the most records.
     * @return records emitted, or {@link SourceReader#END_OF_INPUT}.
     * @throws Exception from the reader.
     */
    public int emitNext(final int max) throws Exception
    {
        return reader.pollNext(output, max);
    }

    /** @return the reader's position after the last emitted record. */
    public long position()
    {
        return reader.position();
    }

    @Override
    public void close() throws Exception
    {
        if (reader != null)
        {
            reader.close();
        }
    }

    @Override
    protected Object listener()
    {
        return reader;
    }
}
