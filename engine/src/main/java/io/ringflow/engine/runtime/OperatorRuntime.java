package io.ringflow.engine.runtime;

import io.ringflow.engine.api.functions.RuntimeContext;
import io.ringflow.state.keyed.KeyedStateStore;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;

/**
 * What one operator subtask knows about itself: names, subtask, parallelism, and its keyed state store (null when
 * its input is not keyed). Confined to the task thread once the task has started.
 */
public final class OperatorRuntime implements RuntimeContext
{
    private final String jobName;
    private final String operatorName;
    private final String uid;
    private final int subtaskIndex;
    private final int parallelism;
    private final int maxParallelism;
    private final KeyedStateStore keyedState;
    private final OperatorStateStore operatorState;

    OperatorRuntime(
        final String jobName,
        final String operatorName,
        final String uid,
        final int subtaskIndex,
        final int parallelism,
        final int maxParallelism,
        final KeyedStateStore keyedState,
        final OperatorStateStore operatorState)
    {
        this.operatorState = operatorState;
        this.jobName = jobName;
        this.operatorName = operatorName;
        this.uid = uid;
        this.subtaskIndex = subtaskIndex;
        this.parallelism = parallelism;
        this.maxParallelism = maxParallelism;
        this.keyedState = keyedState;
    }

    @Override
    public String jobName()
    {
        return jobName;
    }

    @Override
    public String operatorName()
    {
        return operatorName;
    }

    /** @return the operator's stable uid. */
    public String uid()
    {
        return uid;
    }

    @Override
    public int subtaskIndex()
    {
        return subtaskIndex;
    }

    @Override
    public int parallelism()
    {
        return parallelism;
    }

    /** @return the job's number of key groups. */
    public int maxParallelism()
    {
        return maxParallelism;
    }

    /** @return the keyed state store, or null when the operator is not keyed. */
    public KeyedStateStore keyedStateStore()
    {
        return keyedState;
    }

    /** @return the operator state its checkpointed function declares. */
    OperatorStateStore operatorStateStore()
    {
        return operatorState;
    }

    @Override
    public <T> ValueState<T> getState(final ValueStateDescriptor<T> descriptor)
    {
        if (keyedState == null)
        {
            throw new IllegalStateException("operator '" + operatorName + "' asked for keyed state '" +
                descriptor.name() + "' but its input is not keyed: apply keyBy(...) before it");
        }
        return keyedState.getValueState(descriptor);
    }

    /** @return "operator 'name' (uid u, subtask i of p)". */
    public String describe()
    {
        return "operator '" + operatorName + "' (uid " + uid + ", subtask " + subtaskIndex + " of " + parallelism + ")";
    }
}
