package io.ringflow.engine.runtime;

import io.ringflow.engine.api.JobExecutionException;
import io.ringflow.engine.api.JobStatus;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/** Waiting on a job run's termination future ({@link JobRun}). */
final class Terminations
{
    private Terminations()
    {
    }

    /**
     * @param jobName     for the exception.
     * @param termination completes with the final status, never exceptionally.
     * @param failure     the cause, read once the status is FAILED.
     * @param timeout     the longest wait.
     * @return FINISHED or CANCELED.
     * @throws JobExecutionException when the job FAILED, with its cause.
     * @throws TimeoutException      when it has not terminated in time.
     * @throws InterruptedException  when the waiting thread is interrupted.
     */
    static JobStatus await(final String jobName, final CompletableFuture<JobStatus> termination,
        final Supplier<Throwable> failure, final Duration timeout)
        throws JobExecutionException, TimeoutException, InterruptedException
    {
        final JobStatus finalStatus;
        try
        {
            finalStatus = termination.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }
        catch (final ExecutionException ex)
        {
            throw new IllegalStateException("termination never completes exceptionally", ex);
        }
        if (finalStatus == JobStatus.FAILED)
        {
            throw new JobExecutionException(jobName, failure.get());
        }
        return finalStatus;
    }

    /**
     * Waits, without giving up on interrupts, until the future completes; restores the interrupt flag afterwards.
     *
     * @param termination the future.
     */
    static void awaitUninterruptibly(final CompletableFuture<JobStatus> termination)
    {
        boolean interrupted = false;
        while (true)
        {
            try
            {
                termination.get();
                break;
            }
            catch (final InterruptedException ex)
            {
                interrupted = true;
            }
            catch (final ExecutionException ex)
            {
                break;
            }
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }
}
