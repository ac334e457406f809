package io.ringflow.engine.runtime.operators;

import io.ringflow.engine.api.sink.Sink;
import io.ringflow.engine.api.sink.SinkWriter;
import io.ringflow.engine.runtime.task.StreamOperator;

/**
 * Hands records to a {@link SinkWriter}; flushes it when a barrier passes and at end of input.
 */
public final class SinkOperator extends StreamOperator
{
    private final Sink<Object> sink;
    private SinkWriter<Object> writer;

    /** @param sink the user's sink, shared by all subtasks; each subtask creates its own writer. */
    @SuppressWarnings("unchecked")
    public SinkOperator(final Sink<?> sink)
    {
        this.sink = (Sink<Object>)sink;
    }

    @Override
    public void initializeState()
    {
        // the writer does not exist yet: open() initializes it
    }

    @Override
    public void open() throws Exception
    {
        writer = sink.createWriter(runtime);
        initializeListenerState();
    }

    @Override
    public void processElement(final Object record) throws Exception
    {
        writer.write(record);
    }

    @Override
    public void onBarrier(final long checkpointId) throws Exception
    {
        writer.flush();
        snapshotListener(checkpointId);
    }

    @Override
    public void endInput() throws Exception
    {
        writer.flush();
    }

    @Override
    public void close() throws Exception
    {
        if (writer != null)
        {
            writer.close();
        }
    }

    @Override
    protected Object listener()
    {
        return writer;
    }
}
