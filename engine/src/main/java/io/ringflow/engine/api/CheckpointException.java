package io.ringflow.engine.api;

/**
 * Why a checkpoint or savepoint future completed exceptionally: the trigger was refused, or the checkpoint was
 * aborted after it started. {@link #reason()} tells which; the message says it in words, naming the checkpoint.
 *
 * <p>An {@link IllegalStateException}, so code written against earlier versions that caught that type still does.
 */
public final class CheckpointException extends IllegalStateException
{
    private static final long serialVersionUID = 1L;

    /** Why a checkpoint did not complete. */
    public enum Reason
    {
        /** Refused: the job is not running (it finished, failed or was cancelled, or this attempt stopped). */
        JOB_NOT_RUNNING,
        /** Refused: the job is waiting to restart after a failure; try again once it runs. */
        JOB_RESTARTING,
        /** Refused: too many triggers were already waiting for their turn. */
        TOO_MANY_WAITING_TRIGGERS,
        /** Aborted: a newer checkpoint completed first, or a task took the newer one's barrier first. */
        SUBSUMED,
        /** Aborted: it took longer than the configured timeout. */
        EXPIRED,
        /** Aborted: a task could not write its state. */
        DECLINED,
        /** Aborted: a task gave it up (its alignment was cancelled, or the task stopped). */
        ABORTED_BY_TASK,
        /** Aborted: every task acknowledged, but its metadata could not be stored. */
        NOT_STORED,
        /** Aborted: the job stopped (cancelled, failed or finished) before it completed. */
        JOB_STOPPED
    }

    private final Reason reason;

    /**
     * @param reason  why.
     * @param message what happened, naming the checkpoint when it had an id.
     */
    public CheckpointException(final Reason reason, final String message)
    {
        super(message);
        this.reason = reason;
    }

    /** @return why the checkpoint did not complete. */
    public Reason reason()
    {
        return reason;
    }
}
