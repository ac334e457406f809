package io.ringflow.engine.api;

/**
 * A job stopped because a task failed. The cause is the {@link TaskFailureException}.
 */
public final class JobExecutionException extends Exception
{
    private static final long serialVersionUID = 1L;

    /**
     * @param jobName the job.
     * @param cause   the task failure.
     */
    public JobExecutionException(final String jobName, final Throwable cause)
    {
        super("job '" + jobName + "' failed: " + cause.getMessage(), cause);
    }
}
