package io.ringflow.engine.api.functions;

import io.ringflow.engine.api.SubtaskInfo;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;

/**
 * What a function may learn about the subtask running it, and where it gets its keyed state.
 */
public interface RuntimeContext extends SubtaskInfo
{
    /**
     * Keyed state, scoped to the key of the record being processed. Only functions applied to a keyed stream have
     * keyed state.
     *
     * @param descriptor the state's declaration.
     * @param <T>        the value type.
     * @return the state handle; keep it in a field, it is valid for the life of the subtask.
     * @throws IllegalStateException when the operator's input is not keyed.
     */
    <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor);
}
