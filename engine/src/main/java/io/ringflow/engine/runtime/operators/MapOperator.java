package io.ringflow.engine.runtime.operators;

import io.ringflow.engine.api.functions.MapFunction;
import io.ringflow.engine.api.functions.RichFunction;
import io.ringflow.engine.runtime.task.StreamOperator;

/** Applies a {@link MapFunction}; one record out per record in. */
public final class MapOperator extends StreamOperator
{
    private final MapFunction<Object, Object> function;

    /** @param function this subtask's function: its own instance from a factory, or one all subtasks share. */
    @SuppressWarnings("unchecked")
    public MapOperator(final MapFunction<?, ?> function)
    {
        this.function = (MapFunction<Object, Object>)function;
    }

    @Override
    public void processElement(final Object record) throws Exception
    {
        output.collect(function.map(record));
    }

    @Override
    public void open() throws Exception
    {
        if (function instanceof RichFunction rich)
        {
            rich.open(runtime);
        }
    }

    @Override
    public void close() throws Exception
    {
        if (function instanceof RichFunction rich)
        {
            rich.close();
        }
    }

    @Override
    protected Object listener()
    {
        return function;
    }
}
