package io.ringflow.engine.runtime.operators;

import io.ringflow.engine.api.functions.FilterFunction;
import io.ringflow.engine.api.functions.RichFunction;
import io.ringflow.engine.runtime.task.StreamOperator;

/** Applies a {@link FilterFunction}; forwards the records it accepts. */
public final class FilterOperator extends StreamOperator
{
    private final FilterFunction<Object> function;

    /** @param function this subtask's function: its own instance from a factory, or one all subtasks share. */
    @SuppressWarnings("unchecked")
    public FilterOperator(final FilterFunction<?> function)
    {
        this.function = (FilterFunction<Object>)function;
    }

    @Override
    public void processElement(final Object record) throws Exception
    {
        if (function.filter(record))
        {
            output.collect(record);
        }
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
