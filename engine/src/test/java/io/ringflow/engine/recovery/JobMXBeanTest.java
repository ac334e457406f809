package io.ringflow.engine.recovery;

import io.ringflow.engine.TestJobs;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobMXBean;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.state.checkpoint.DirectoryCheckpointStorage;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A running job is visible and controllable through JMX, as an operator of the application would see it in JConsole:
 * its status and checkpoint statistics, and the handle's operations; the MBean goes when the job has terminated.
 */
class JobMXBeanTest
{
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    @Test
    void aRunningJobShowsItsStateAndTakesCheckpointsAndSavepointsThroughJmx(@TempDir final Path dir)
        throws Exception
    {
        final CountingJob job = new CountingJob(5);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).storage(new DirectoryCheckpointStorage(dir))
                .build())
            .build());
        job.build(env, 1);
        final JobHandle handle = env.execute("jmx \"quoted\", job");
        try
        {
            final ObjectName name = only(handle.jobName());
            final JobMXBean bean = JMX.newMXBeanProxy(SERVER, name, JobMXBean.class);
            assertThat(bean.getJobName()).isEqualTo("jmx \"quoted\", job");
            assertThat(bean.getStatus()).isEqualTo("RUNNING");
            assertThat(bean.getCompletedCheckpoints()).isZero();
            assertThat(bean.getLastCheckpointSummary()).isEmpty();
            assertThat(bean.getMaxRingFill()).isBetween(0.0, 1.0);
            assertThat(bean.getRingBacklogs()).isNotEmpty()
                .allSatisfy(line -> assertThat(line).matches(".+: \\d+/\\d+"));

            job.source.openUpTo(1_000);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> job.sinkTotal() == 1_000);
            assertThat(bean.triggerCheckpoint()).startsWith("checkpoint ");
            assertThat(bean.getCompletedCheckpoints()).isEqualTo(1);
            final long first = bean.getLastCheckpointId();
            assertThat(first).isPositive();
            assertThat(bean.getLastCheckpointStateBytes()).isPositive();
            assertThat(bean.getLastCheckpointDurationMillis()).isPositive();

            assertThat(bean.getRingTraffic()).isNotEmpty().allSatisfy(line ->
                assertThat(line).matches(".+: published \\d+, consumed \\d+"));
            // every record the sink counted crossed a ring: at least 1,000 slots were consumed in all
            assertThat(java.util.Arrays.stream(bean.getRingTraffic())
                .mapToLong(line -> Long.parseLong(line.replaceAll(".*consumed ", ""))).sum())
                .isGreaterThanOrEqualTo(1_000);

            assertThat(bean.triggerSavepoint()).startsWith("savepoint " + (first + 1));
            assertThat(bean.getCompletedCheckpoints()).isEqualTo(2);
            final String[] history = bean.getCheckpointHistory();
            assertThat(history).isNotEmpty();
            assertThat(history[history.length - 1]).startsWith("savepoint " + (first + 1));
            assertThat(bean.getLastCheckpointId()).isEqualTo(first + 1);

            assertThat(bean.stopWithSavepoint()).startsWith("savepoint ");
            // a job stopped with a savepoint ends CANCELED, as JobHandle.stopWithSavepoint says
            assertThat(handle.awaitTermination(TestJobs.HANG_GUARD)).isEqualTo(JobStatus.CANCELED);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> !SERVER.isRegistered(name));
        }
        finally
        {
            handle.close();
        }
    }

    @Test
    void cancelThroughJmxEndsTheJobAndItsMBeanGoesAway() throws Exception
    {
        final CountingJob job = new CountingJob(3);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().build());
        job.build(env, 1);
        try (JobHandle handle = env.execute("jmx-cancel"))
        {
            final ObjectName name = only(handle.jobName());
            final JobMXBean bean = JMX.newMXBeanProxy(SERVER, name, JobMXBean.class);
            bean.cancel();
            assertThat(handle.awaitTermination(TestJobs.HANG_GUARD)).isEqualTo(JobStatus.CANCELED);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> !SERVER.isRegistered(name));
            // the proxy now names an MBean that is gone
            assertThatThrownBy(bean::triggerCheckpoint).hasMessageContaining("jmx-cancel");
            assertThat(SERVER.queryNames(new ObjectName("io.ringflow:type=Job,name=" +
                ObjectName.quote("jmx-cancel") + ",*"), null)).isEmpty();
        }
    }

    private static ObjectName only(final String jobName) throws Exception
    {
        final Set<ObjectName> names = SERVER.queryNames(new ObjectName("io.ringflow:type=Job,name=" +
            ObjectName.quote(jobName) + ",*"), null);
        assertThat(names).hasSize(1);
        return names.iterator().next();
    }
}
