package io.ringflow.engine.metrics;

import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.sink.DiscardSink;
import io.ringflow.engine.api.source.GeneratorSource;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Counts what a job's own threads allocate: a user function that allocates a known amount per record is counted at
 * least that much, the threads of other jobs and of the test are not, and the count ends with the job.
 */
class JobThreadAllocationTest
{
    private static final int BYTES_PER_RECORD = 4_096;

    /** Where the function's arrays escape to, so that the JIT cannot remove their allocation. */
    private static volatile byte[] escaped;

    private static JobHandle start(final String job, final AtomicLong seen, final boolean allocate)
    {
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().build());
        env.fromSource(GeneratorSource.unbounded(Long.class, (i, nanos) -> i).withRate(20_000), "numbers")
            .keyBy(n -> n % 7)
            .map(n ->
            {
                if (allocate)
                {
                    escaped = new byte[BYTES_PER_RECORD];
                }
                seen.incrementAndGet();
                return n;
            })
            .returns(Long.class)
            .sinkTo(new DiscardSink<>());
        return env.execute(job);
    }

    @Test
    void countsWhatTheJobsFunctionsAllocateAndNotOtherJobs() throws Exception
    {
        final AtomicLong allocatingSeen = new AtomicLong();
        final AtomicLong quietSeen = new AtomicLong();
        try (JobHandle allocating = start("alloc-allocating", allocatingSeen, true);
             JobHandle quiet = start("alloc-quiet", quietSeen, false))
        {
            await().atMost(Duration.ofSeconds(60)).until(() -> allocatingSeen.get() > 100 && quietSeen.get() > 100);
            final JobThreadAllocation counted = JobThreadAllocation.start("alloc-allocating");
            final JobThreadAllocation other = JobThreadAllocation.start("alloc-quiet");
            assertThat(counted).isNotNull();
            // the source's task, the map's task (chained with the sink) and the attempt's monitor
            assertThat(counted.threadCount()).isEqualTo(3);
            final long from = allocatingSeen.get();

            await().atMost(Duration.ofSeconds(60)).until(() -> allocatingSeen.get() > from + 2_000);
            // the map may have run one record past the reading of its counter, never fewer
            final long records = allocatingSeen.get() - from - 1;
            final long quietBytes = other.allocatedSinceStart();
            final long bytes = counted.allocatedSinceStart();

            assertThat(bytes).isGreaterThanOrEqualTo(records * BYTES_PER_RECORD);
            assertThat(quietBytes).as("the other job's functions allocate nothing per record")
                .isBetween(0L, records * BYTES_PER_RECORD / 4);

            allocating.cancel();
            allocating.termination().get(60, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(60)).until(() -> counted.allocatedSinceStart() == -1);
        }
    }

    @Test
    void aJobWithNoThreadAliveHasNoCount()
    {
        assertThat(JobThreadAllocation.start("no-such-job")).isNull();
    }
}
