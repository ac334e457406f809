package io.ringflow.engine.api;

/**
 * A subtask failed. Names the operator and subtask; the cause is the original exception, unwrapped.
 */
public final class TaskFailureException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final String operatorName;
    private final String operatorUid;
    private final int subtaskIndex;
    private final int parallelism;

    /**
     * @param operatorName the operator that threw, or the task's name when no single operator is to blame.
     * @param operatorUid  its uid.
     * @param subtaskIndex the subtask.
     * @param parallelism  the operator's parallelism.
     * @param cause        the original exception.
     */
    public TaskFailureException(
        final String operatorName,
        final String operatorUid,
        final int subtaskIndex,
        final int parallelism,
        final Throwable cause)
    {
        super("operator '" + operatorName + "' (uid " + operatorUid + ", subtask " + subtaskIndex + " of " +
            parallelism + ") threw " + cause, cause);
        this.operatorName = operatorName;
        this.operatorUid = operatorUid;
        this.subtaskIndex = subtaskIndex;
        this.parallelism = parallelism;
    }

    /** @return the operator's name. */
    public String operatorName()
    {
        return operatorName;
    }

    /** @return the operator's uid. */
    public String operatorUid()
    {
        return operatorUid;
    }

    /** @return the subtask index, from 0. */
    public int subtaskIndex()
    {
        return subtaskIndex;
    }

    /** @return the operator's parallelism. */
    public int parallelism()
    {
        return parallelism;
    }
}
