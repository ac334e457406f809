package io.ringflow.engine;

import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** Helpers shared by the job-level tests. */
public final class TestJobs
{
    /** Generous bound for jobs that should finish in well under a second; only guards against hangs. */
    public static final Duration HANG_GUARD = Duration.ofMinutes(2);

    private TestJobs()
    {
    }

    /**
     * @param job a job expected to finish.
     * @throws Exception when it fails or hangs.
     */
    public static void awaitFinished(final JobHandle job) throws Exception
    {
        assertThat(job.awaitTermination(HANG_GUARD)).isEqualTo(JobStatus.FINISHED);
    }

    /**
     * @param jobName a job's name.
     * @return live threads of that job.
     */
    public static List<String> liveThreadsOf(final String jobName)
    {
        final String prefix = "ringflow-" + jobName + "-";
        return Thread.getAllStackTraces().keySet().stream()
            .filter(Thread::isAlive)
            .map(Thread::getName)
            .filter(name -> name.startsWith(prefix))
            .collect(Collectors.toList());
    }
}
