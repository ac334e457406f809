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

    /**
     * @return the operator's uid: stable across runs and code changes when set with {@code uid(...)}, otherwise
     *     derived from the graph. What names a subtask's external resources (transactional ids) for good.
     */
    default String operatorUid()
    {
        return operatorName();
    }

    /** @return this subtask's index, from 0. */
    int subtaskIndex();

    /** @return the operator's parallelism. */
    int parallelism();

    /**
     * @return an id unique to this run of the job's operators (an attempt: the first run, or a restart), the same for
     *     every subtask of the attempt and different across attempts and JVMs. Transactional sinks put it in the names
     *     of what they open, so that a restarted job tells its own transactions from a failed attempt's leftovers.
     */
    default String attemptId()
    {
        return "0";
    }
}
