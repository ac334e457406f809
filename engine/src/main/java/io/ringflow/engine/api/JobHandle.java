package io.ringflow.engine.api;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A running job. Thread-safe: any thread may query, await or cancel.
 */
public interface JobHandle extends AutoCloseable
{
    /** @return the job's name. */
    String jobName();

    /** @return the current status. */
    JobStatus status();

    /**
     * @return completes with the final status once every task thread has stopped; never completes exceptionally
     *     (see {@link #failureCause()}).
     */
    CompletableFuture<JobStatus> termination();

    /**
     * Waits until the job stops.
     *
     * @param timeout the longest wait.
     * @return the final status.
     * @throws JobExecutionException when the job failed, with the task's failure as cause.
     * @throws java.util.concurrent.TimeoutException when the job is still running after {@code timeout}.
     * @throws InterruptedException when the waiting thread is interrupted.
     */
    JobStatus awaitTermination(Duration timeout)
        throws JobExecutionException, java.util.concurrent.TimeoutException, InterruptedException;

    /**
     * @return why the job failed: a {@link TaskFailureException} naming the operator and subtask, whose cause is the
     *     original exception, or the checkpoint failure that exceeded the tolerable failures; empty unless
     *     {@link #status()} is FAILED.
     */
    Optional<Throwable> failureCause();

    /**
     * Asks for a checkpoint, whether or not periodic checkpoints are configured. It obeys the rules periodic ones do:
     * it starts at once unless a savepoint is pending, {@code maxConcurrent} checkpoints are pending (1 without a
     * {@code CheckpointConfig}) or the minimum pause since the last one has not passed; then it waits its turn.
     *
     * @return completes when every task acknowledged it; completes exceptionally with a {@link CheckpointException}
     *     whose {@link CheckpointException#reason() reason} says why: refused (the job is not running, is waiting to
     *     restart, or too many triggers wait) or aborted (subsumed, expired, declined, the job stopped, ...).
     */
    CompletableFuture<CompletedCheckpoint> triggerCheckpoint();

    /** @return the retained completed checkpoints, oldest first. */
    java.util.List<CompletedCheckpoint> completedCheckpoints();

    /**
     * Registers a listener told of every checkpoint and savepoint the job completes from now on (over restarts too),
     * with its statistics: how an application keeps a distribution of checkpoint durations. Called on the thread
     * that completed the checkpoint (a task thread or the checkpoint I/O thread), after its commit: keep it short and
     * never block. An exception it throws is logged and ignored.
     *
     * @param listener the listener.
     */
    void onCheckpointCompleted(java.util.function.Consumer<CompletedCheckpoint> listener);

    /**
     * Takes a savepoint: a checkpoint that is always aligned (it holds no in-flight records, so it can be restored into
     * a changed job or at another parallelism), marked as a savepoint in its metadata, never pruned by retention and
     * never deleted when the job is cancelled. Restore it with {@code JobConfig.restoreFrom}.
     *
     * Every barrier mode takes it aligned, at-least-once included, so restoring it is exact. One savepoint is
     * pending at a time (a second waits), and while it is pending no checkpoint starts, so nothing overtakes it.
     *
     * @return completes with the savepoint once durable, or exceptionally with a {@link CheckpointException} when it
     *     is refused or aborted.
     */
    CompletableFuture<CompletedCheckpoint> triggerSavepoint();

    /**
     * Stops the job with a savepoint: every source emits nothing after the savepoint's barrier, and once the savepoint
     * is durable the job is cancelled (it ends CANCELED, never restarted). Restoring the savepoint resumes exactly
     * where the job stopped, so no record is processed twice. If the savepoint fails, the sources resume and the job
     * keeps running.
     *
     * @return completes with the savepoint, or exceptionally with a {@link CheckpointException} when it failed or was
     *     refused (for example while the job waits to restart: ask again once it runs).
     */
    CompletableFuture<CompletedCheckpoint> stopWithSavepoint();

    /**
     * Stops the job: every thread stops soon after; {@link #termination()} completes with CANCELED unless the job
     * had already stopped.
     */
    void cancel();

    /**
     * @return the job's statistics and operations as JMX shows them (the same object the platform MBean server holds
     *     while the job runs), for code that reports them elsewhere, for example through Micrometer
     *     ({@code io.ringflow.engine.metrics.JobMeterBinder}).
     */
    JobMXBean mxBean();

    /** @return how many times the job was restarted after a failure (see {@link RestartStrategy}). */
    default int restartCount()
    {
        return 0;
    }

    /**
     * Cancels the job if it is running and waits for its threads to stop.
     */
    @Override
    void close();
}
