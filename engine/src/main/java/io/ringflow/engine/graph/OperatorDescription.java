package io.ringflow.engine.graph;

/**
 * What a logical operator does, as plain data: its kind and the user's objects (function or factory, key selector,
 * source, sink). The API builds these; a runner turns each into whatever it runs (Ringflow's deployer into a runtime
 * operator; a Flink runner into a Flink operator). A runner that does not know a description refuses the job when it
 * is submitted, naming the operator and the description.
 *
 * <p>Implementations are immutable records; new kinds (windows, watermark generators) are new records.
 */
public interface OperatorDescription
{
    /** @return the operator's shape: inputs and output. */
    NodeKind shape();

    /** @return the name an operator gets when the user names none. */
    String defaultName();

    /** @return whether the operator keeps keyed state: its inputs are keyed. */
    default boolean keyedState()
    {
        return false;
    }

    /** @return the user object whose fields every subtask shares, to check, or null when each subtask has its own. */
    default Object sharedUserObject()
    {
        return null;
    }

    /**
     * @return whether final fields of {@link #sharedUserObject()} are safe to share (plain functions: map, filter,
     *     flatMap, whose per-subtask data would live in non-final fields).
     */
    default boolean finalFieldsMayBeShared()
    {
        return false;
    }
}
