package io.ringflow.engine.api;

import io.ringflow.engine.TestJobs;
import io.ringflow.engine.api.sink.DiscardSink;
import io.ringflow.engine.api.sink.Sink;
import io.ringflow.engine.api.source.GeneratorSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FailureTest
{
    static final class Boom extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        Boom(final String message)
        {
            super(message);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(IdleStrategyKind.class)
    void aThrowingUserFunctionFailsTheJobNamingOperatorAndSubtaskAndStopsEveryThread(final IdleStrategyKind idle)
        throws Exception
    {
        final String jobName = "fails-" + idle;
        final JobEnvironment env = JobEnvironment.create(
            JobConfig.builder().defaultParallelism(2).idleStrategy(idle).build());
        env.fromSource(GeneratorSource.unbounded(Long.class, (i, t) -> i), "numbers")
            .keyBy(n -> n % 16)
            .map(n ->
            {
                if (n == 50_001)
                {
                    throw new Boom("bad record " + n);
                }
                return n;
            }).name("picky")
            .sinkTo(new DiscardSink<>());

        final JobHandle job = env.execute(jobName);
        assertThatThrownBy(() -> job.awaitTermination(TestJobs.HANG_GUARD))
            .isInstanceOf(JobExecutionException.class)
            .hasMessageContaining("picky")
            .cause()
            .isInstanceOf(TaskFailureException.class)
            .satisfies(failure ->
            {
                final TaskFailureException taskFailure = (TaskFailureException)failure;
                assertThat(taskFailure.operatorName()).isEqualTo("picky");
                assertThat(taskFailure.parallelism()).isEqualTo(2);
                assertThat(taskFailure.subtaskIndex()).isBetween(0, 1);
                assertThat(taskFailure.getCause()).isInstanceOf(Boom.class).hasMessage("bad record 50001");
            });
        assertThat(job.status()).isEqualTo(JobStatus.FAILED);
        assertThat(job.failureCause()).containsInstanceOf(TaskFailureException.class);
        Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> TestJobs.liveThreadsOf(jobName).isEmpty());
    }

    @Test
    void aFailureStopsTasksThatAreWaitingOnAFullRing() throws Exception
    {
        // One branch: a sink that blocks on its first record, so its small ring fills and its source waits for
        // capacity. Another branch fails a little later. Every thread must stop, the waiting source included.
        final CountDownLatch never = new CountDownLatch(1);
        final Sink<Long> stuck = subtask -> record -> never.await();
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().ringSize(16).build());
        env.fromSource(GeneratorSource.unbounded(Long.class, (i, t) -> i), "feeds-stuck-sink")
            .rebalance()
            .sinkTo(stuck).name("stuck");
        env.fromSource(GeneratorSource.unbounded(Long.class, (i, t) -> i), "feeds-failing-map")
            .rebalance()
            .map(n ->
            {
                if (n == 100_000)
                {
                    throw new Boom("gives up");
                }
                return n;
            }).name("failing")
            .sinkTo(new DiscardSink<>());
        final JobHandle job = env.execute("stuck");
        assertThatThrownBy(() -> job.awaitTermination(TestJobs.HANG_GUARD))
            .isInstanceOf(JobExecutionException.class)
            .hasMessageContaining("'failing'")
            .hasRootCauseInstanceOf(Boom.class);
        Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> TestJobs.liveThreadsOf("stuck").isEmpty());
    }

    @Test
    void aFailingSourceIsReportedWithItsOperatorName() throws Exception
    {
        final JobEnvironment env = JobEnvironment.create();
        env.fromSource(GeneratorSource.bounded(1000, Long.class, (i, t) ->
        {
            if (i == 500)
            {
                throw new Boom("generator broke");
            }
            return i;
        }), "broken-source").sinkTo(new DiscardSink<>());
        final JobHandle job = env.execute("source-fails");
        assertThatThrownBy(() -> job.awaitTermination(TestJobs.HANG_GUARD))
            .cause()
            .isInstanceOf(TaskFailureException.class)
            .hasMessageContaining("broken-source")
            .hasRootCauseMessage("generator broke");
    }

    @Test
    void cancelStopsAnUnboundedJobAndLeavesNoThreadBehind() throws Exception
    {
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().defaultParallelism(2).build());
        final DiscardSink<Long> sink = new DiscardSink<>();
        env.fromSource(GeneratorSource.unbounded(Long.class, (i, t) -> i), "numbers")
            .keyBy(n -> n).map(n -> n * 2).sinkTo(sink);
        final JobHandle job = env.execute("cancelled");
        assertThat(TestJobs.liveThreadsOf("cancelled")).hasSize(4);
        job.cancel();
        assertThat(job.termination().get()).isEqualTo(JobStatus.CANCELED);
        assertThat(job.awaitTermination(TestJobs.HANG_GUARD)).isEqualTo(JobStatus.CANCELED);
        assertThat(job.failureCause()).isEmpty();
        assertThat(TestJobs.liveThreadsOf("cancelled")).isEmpty();
    }

    @Test
    void moreTaskThreadsThanCoresFinishWithTheDefaultIdleStrategy() throws Exception
    {
        // 3 sources x p + p keyed + p more = 5p task threads on p cores
        final int cores = Math.max(2, Runtime.getRuntime().availableProcessors());
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().defaultParallelism(cores).build());
        final DiscardSink<Long> sink = new DiscardSink<>();
        final DataStream<Long> a = env.fromSource(GeneratorSource.bounded(300_000, Long.class, (i, t) -> i), "a");
        final DataStream<Long> b = env.fromSource(GeneratorSource.bounded(300_000, Long.class, (i, t) -> i), "b");
        final DataStream<Long> c = env.fromSource(GeneratorSource.bounded(300_000, Long.class, (i, t) -> i), "c");
        a.union(b, c).keyBy(n -> n % 1000).map(n -> n).name("keyed").rebalance().map(n -> n).name("spread")
            .sinkTo(sink);
        final JobHandle job = env.execute("crowded");
        assertThat(((io.ringflow.engine.runtime.JobRun)job).currentAttempt().threadNames())
            .hasSize(5 * cores).hasSizeGreaterThan(Runtime.getRuntime().availableProcessors());
        TestJobs.awaitFinished(job);
        assertThat(sink.count()).isEqualTo(900_000);
    }
}
