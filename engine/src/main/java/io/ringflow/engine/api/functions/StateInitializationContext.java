package io.ringflow.engine.api.functions;

/**
 * Given to {@link CheckpointedFunction#initializeState}: where a function declares its operator state.
 *
 * <p>Thread contract: the function's task thread, during {@code initializeState}; the states it returns may be used on
 * that thread for the life of the function.
 */
public interface StateInitializationContext
{
    /** @return whether the job attempt was restored from a checkpoint or savepoint (the states may hold data). */
    boolean isRestored();

    /**
     * Declares (or gets again) an operator list state. On restore at the same parallelism each subtask gets back
     * exactly its own list; at another parallelism the elements of all former subtasks are dealt out round-robin.
     *
     * @param name the state's name, unique within the operator.
     * @param type the element type; its codec writes the elements.
     * @param <T>  the element type.
     * @return the state.
     * @throws IllegalStateException when the name is declared with another type, or the restored state was written
     *                               with another type or codec version.
     */
    <T> OperatorListState<T> getListState(String name, Class<T> type);

    /**
     * Declares (or gets again) a union list state: each subtask snapshots its own elements, and on restore (at any
     * parallelism) every subtask gets the elements of all former subtasks and keeps what it needs. For state whose
     * owner is decided by the function, not by Ringflow: a Kafka source's partition offsets, where each partition's
     * owner follows from the new parallelism.
     *
     * @param name the state's name, unique within the operator.
     * @param type the element type; its codec writes the elements.
     * @param <T>  the element type.
     * @return the state.
     * @throws IllegalStateException when the name is declared with another type or kind, or the restored state was
     *                               written with another type or codec version.
     */
    <T> OperatorListState<T> getUnionListState(String name, Class<T> type);
}
