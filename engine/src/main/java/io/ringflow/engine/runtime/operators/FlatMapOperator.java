package io.ringflow.engine.runtime.operators;

import io.ringflow.engine.api.functions.FlatMapFunction;
import io.ringflow.engine.runtime.task.StreamOperator;

/** Applies a {@link FlatMapFunction}; the operator's output is the function's collector. */
public final class FlatMapOperator extends StreamOperator
{
    private final FlatMapFunction<Object, Object> function;

    /** @param function the user function, shared by all subtasks. */
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
    protected Object listener()
    {
        return function;
    }
}
