package io.ringflow.engine.api;

/**
 * The life of a job attempt.
 */
public enum JobStatus
{
    /** Threads are starting or running. */
    RUNNING,
    /** Every sink saw END_OF_INPUT on every input; every thread has stopped. */
    FINISHED,
    /** A task failed; every thread has stopped. */
    FAILED,
    /** Cancelled through the handle; every thread has stopped. */
    CANCELED,
    /** An attempt failed and the restart strategy is waiting to start the next one from the latest checkpoint. */
    RESTARTING;

    /** @return whether the job has stopped for good. */
    public boolean isTerminal()
    {
        return this != RUNNING && this != RESTARTING;
    }
}
