package io.ringflow.engine.api.functions;

/**
 * Which subtask of which operator is running: given to sources, sinks and functions.
 */
public interface SubtaskInfo
{
    /** @return the job's name. */
    String jobName();

    /** @return the operator's name. */
    String operatorName();

    /** @return this subtask's index, from 0. */
    int subtaskIndex();

    /** @return the operator's parallelism. */
    int parallelism();
}
