package io.ringflow.bench;

import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import org.openjdk.jmh.infra.BenchmarkParams;

import java.time.Duration;

/**
 * What the benchmarks share: running a bounded job to its end, and the guard that keeps JMH's records/s honest.
 */
final class BenchSupport
{
    /** The longest a bounded benchmark job may run before the invocation fails. */
    static final Duration JOB_TIMEOUT = Duration.ofMinutes(10);

    private BenchSupport()
    {
    }

    /**
     * A benchmark whose invocation processes {@code records} records declares
     * {@code @OperationsPerInvocation(DEFAULT_RECORDS)}, so that JMH reports records per second. Overriding the
     * record count ({@code -p records=N}) without overriding the operations per invocation ({@code -opi N}) would make
     * that figure wrong; this refuses to run instead.
     *
     * @param params  the benchmark's parameters, injected by JMH into a setup method.
     * @param records records processed per invocation.
     * @throws IllegalStateException when the two disagree.
     */
    static void checkOperationsPerInvocation(final BenchmarkParams params, final long records)
    {
        if (params.getOpsPerInvocation() != records)
        {
            throw new IllegalStateException("each invocation of " + params.getBenchmark() + " processes " + records +
                " records, but JMH counts " + params.getOpsPerInvocation() + " operations per invocation: pass -opi " +
                records + " together with -p records=" + records + " so the score is records/s");
        }
    }

    /**
     * Starts the job described in {@code env} and waits until it has finished.
     *
     * @param env     a described job with bounded sources.
     * @param jobName its name.
     * @throws Exception when the job failed (with its cause), was cancelled, or did not finish within
     *                   {@link #JOB_TIMEOUT}.
     */
    static void runToCompletion(final JobEnvironment env, final String jobName) throws Exception
    {
        runToCompletionCountingCheckpoints(env, jobName);
    }

    /**
     * Runs the job to FINISHED.
     *
     * @return how many checkpoints completed (as retained by the job's checkpoint configuration).
     */
    static int runToCompletionCountingCheckpoints(final JobEnvironment env, final String jobName) throws Exception
    {
        try (JobHandle job = env.execute(jobName))
        {
            final JobStatus status = job.awaitTermination(JOB_TIMEOUT);
            if (status != JobStatus.FINISHED)
            {
                throw new IllegalStateException("job " + jobName + " ended " + status + ", not FINISHED");
            }
            return job.completedCheckpoints().size();
        }
    }
}
