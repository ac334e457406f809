package io.ringflow.engine;

import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.sink.DiscardSink;
import io.ringflow.engine.api.source.GeneratorSource;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
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

    /**
     * Starts an unbounded keyed job of five tasks: a source at 50,000 numbers a second, two subtasks of a map, two of a
     * reduce chained with a discarding sink.
     *
     * @param job    the job's name.
     * @param config its configuration.
     * @param seen   counts the numbers the map has seen.
     * @return the running job.
     */
    public static JobHandle startFiveTaskKeyedJob(final String job, final JobConfig config, final AtomicLong seen)
    {
        final JobEnvironment env = JobEnvironment.create(config);
        env.fromSource(GeneratorSource.unbounded(Long.class, (i, nanos) -> i).withRate(50_000), "numbers")
            .keyBy(n -> n % 11)
            .map(n ->
            {
                seen.incrementAndGet();
                return n;
            })
            .returns(Long.class)
            .setParallelism(2)
            .keyBy(n -> n % 11)
            .reduce(Long::sum)
            .setParallelism(2)
            .sinkTo(new DiscardSink<>())
            .setParallelism(2);
        return env.execute(job);
    }
}
