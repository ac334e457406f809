package io.ringflow.engine.runtime.operators;

import io.ringflow.engine.api.source.Source;
import io.ringflow.engine.api.source.SourceReader;
import io.ringflow.engine.runtime.StreamOperator;

/**
 * The head of a source task: owns the subtask's {@link SourceReader}; the task polls it for batches.
 */
public final class SourceOperator extends StreamOperator
{
    private final Source<Object> source;
    private SourceReader<Object> reader;

    /** @param source the user's source, shared by all subtasks; each subtask creates its own reader. */
    @SuppressWarnings("unchecked")
    public SourceOperator(final Source<?> source)
    {
        this.source = (Source<Object>)source;
    }

    @Override
    public void open() throws Exception
    {
        reader = source.createReader(runtime);
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
