package io.ringflow.engine.runtime.task;

import io.ringflow.engine.api.functions.RuntimeContext;
import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.keyed.AggregatingState;
import io.ringflow.state.keyed.AggregatingStateDescriptor;
import io.ringflow.state.keyed.ListState;
import io.ringflow.state.keyed.ListStateDescriptor;
import io.ringflow.state.keyed.LongValueState;
import io.ringflow.state.keyed.MapState;
import io.ringflow.state.keyed.MapStateDescriptor;
import io.ringflow.state.keyed.ReducingState;
import io.ringflow.state.keyed.ReducingStateDescriptor;
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
    private final String attemptId;
    private final TaskTime time;
    /** Side outputs by tag id; set while the task is built, read-only once it runs. */
    private final java.util.Map<String, Output> sideOutputs = new java.util.HashMap<>();
    /** Records sent to a side output nothing reads. */
    private long droppedSideOutputRecords;
    /**
     * The names of this operator subtask's state files by part ({@link TaskSnapshot#KEYED}, {@link
     * TaskSnapshot#OPERATOR}, {@link TaskSnapshot#CHANNELS}), built at the first checkpoint: they never change. The
     * task thread or the flusher; a racy single check (a {@code String} is safely published, and two threads building
     * one build equal names).
     */
    private final String[] stateFileNames = new String[3];

    /**
     * @param part {@link TaskSnapshot#KEYED}, {@link TaskSnapshot#OPERATOR} or {@link TaskSnapshot#CHANNELS}.
     * @return this operator subtask's state file name for the part ({@link TaskSnapshot#fileName}), built once.
     */
    String stateFileName(final int part)
    {
        String name = stateFileNames[part];
        if (name == null)
        {
            name = TaskSnapshot.fileName(this, part);
            stateFileNames[part] = name;
        }
        return name;
    }

    public OperatorRuntime(
        final String jobName,
        final String operatorName,
        final String uid,
        final int subtaskIndex,
        final int parallelism,
        final int maxParallelism,
        final KeyedStateStore keyedState,
        final OperatorStateStore operatorState,
        final String attemptId)
    {
        this(jobName, operatorName, uid, subtaskIndex, parallelism, maxParallelism, keyedState, operatorState,
            attemptId, TaskTime.systemDefault());
    }

    /**
     * @param time the time of the task the operator runs in, shared by every operator of its chain; the other
     *             arguments as their names say.
     */
    public OperatorRuntime(
        final String jobName,
        final String operatorName,
        final String uid,
        final int subtaskIndex,
        final int parallelism,
        final int maxParallelism,
        final KeyedStateStore keyedState,
        final OperatorStateStore operatorState,
        final String attemptId,
        final TaskTime time)
    {
        this.time = time;
        this.operatorState = operatorState;
        this.attemptId = attemptId;
        this.jobName = jobName;
        this.operatorName = operatorName;
        this.uid = uid;
        this.subtaskIndex = subtaskIndex;
        this.parallelism = parallelism;
        this.maxParallelism = maxParallelism;
        this.keyedState = keyedState;
    }

    @Override
    public String attemptId()
    {
        return attemptId;
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
    public String operatorUid()
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

    /**
     * @param tagId  a side output's id.
     * @param output where its records go. Called while the task is built.
     */
    public void sideOutput(final String tagId, final Output output)
    {
        sideOutputs.put(tagId, output);
    }

    /**
     * @param tag a side output.
     * @return where its records go, or null when nothing reads it (the caller drops and counts them).
     */
    public Output sideOutput(final io.ringflow.engine.api.functions.OutputTag<?> tag)
    {
        return sideOutputs.get(tag.id());
    }

    /** Counts a record sent to a side output that nothing reads. */
    public void sideOutputRecordDropped()
    {
        droppedSideOutputRecords++;
    }

    /** @return how many records were sent to side outputs nothing reads. */
    public long droppedSideOutputRecords()
    {
        return droppedSideOutputRecords;
    }

    /** @return the time of the task this operator runs in. */
    public TaskTime time()
    {
        return time;
    }

    /** @return the keyed state store, or null when the operator is not keyed. */
    public KeyedStateStore keyedStateStore()
    {
        return keyedState;
    }

    /** @return the operator state its checkpointed function declares. */
    public OperatorStateStore operatorStateStore()
    {
        return operatorState;
    }

    @Override
    public <T> ValueState<T> getState(final ValueStateDescriptor<T> descriptor)
    {
        return keyed(descriptor.name()).getValueState(descriptor);
    }

    @Override
    public LongValueState getLongState(final ValueStateDescriptor<Long> descriptor)
    {
        return keyed(descriptor.name()).getLongValueState(descriptor);
    }

    @Override
    public <UK, UV> MapState<UK, UV> getMapState(final MapStateDescriptor<UK, UV> descriptor)
    {
        return keyed(descriptor.name()).getMapState(descriptor);
    }

    @Override
    public <T> ListState<T> getListState(final ListStateDescriptor<T> descriptor)
    {
        return keyed(descriptor.name()).getListState(descriptor);
    }

    @Override
    public <T> ReducingState<T> getReducingState(final ReducingStateDescriptor<T> descriptor)
    {
        return keyed(descriptor.name()).getReducingState(descriptor);
    }

    @Override
    public <IN, ACC, OUT> AggregatingState<IN, OUT> getAggregatingState(
        final AggregatingStateDescriptor<IN, ACC, OUT> descriptor)
    {
        return keyed(descriptor.name()).getAggregatingState(descriptor);
    }

    private KeyedStateStore keyed(final String stateName)
    {
        if (keyedState == null)
        {
            throw new IllegalStateException("operator '" + operatorName + "' asked for keyed state '" + stateName +
                "' but its input is not keyed: apply keyBy(...) before it");
        }
        return keyedState;
    }

    /** @return "operator 'name' (uid u, subtask i of p)". */
    public String describe()
    {
        return "operator '" + operatorName + "' (uid " + uid + ", subtask " + subtaskIndex + " of " + parallelism + ")";
    }
}
