package io.ringflow.engine.runtime.task;

import io.ringflow.engine.api.functions.Collector;

/**
 * Where an operator's records go: the next operator of the chain (a direct call), a set of ring channels (encoded
 * by the edge's codec), or several of those. Called on the task thread only; must not allocate per record.
 */
public interface Output extends Collector<Object>
{
    /**
     * @param record a non-null record.
     */
    @Override
    void collect(Object record);
}
