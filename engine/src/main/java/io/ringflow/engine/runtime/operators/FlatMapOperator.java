package io.ringflow.engine.runtime.operators;

import io.ringflow.engine.api.functions.FlatMapFunction;
import io.ringflow.engine.api.functions.RichFunction;
import io.ringflow.engine.runtime.task.StreamOperator;

/** Applies a {@link FlatMapFunction}; the operator's output is the function's collector. */
public final class FlatMapOperator extends StreamOperator
{
    private final FlatMapFunction<Object, Object> function;

    /** @param function this subtask's function: its own instance from a factory, or one all subtasks share. */
    @SuppressWarnings("unchecked")
    public FlatMapOperator(final FlatMapFunction<?, ?> function)
    {
        this.function = (FlatMapFunction<Object, Object>)function;
    }

    @Override
    public void processElement(final Object record) throws Exception
    {
        function.flatMap(record, output);
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
