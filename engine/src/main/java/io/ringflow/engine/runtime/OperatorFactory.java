package io.ringflow.engine.runtime;

/**
 * Creates the runtime operator of one subtask; called once per subtask when the job is deployed, on the submitting
 * thread.
 */
@FunctionalInterface
public interface OperatorFactory
{
    /**
     * @param subtaskIndex the subtask the operator will run in.
     * @return a new operator.
     */
    StreamOperator create(int subtaskIndex);
}
