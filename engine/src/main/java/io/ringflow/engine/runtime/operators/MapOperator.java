package io.ringflow.engine.runtime.operators;

import io.ringflow.engine.api.functions.MapFunction;
import io.ringflow.engine.runtime.task.StreamOperator;

/** Applies a {@link MapFunction}; one record out per record in. */
public final class MapOperator extends StreamOperator
{
    private final MapFunction<Object, Object> function;

    /** @param function the user function, shared by all subtasks (it has no lifecycle). */
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
    protected Object listener()
    {
        return function;
    }
}
