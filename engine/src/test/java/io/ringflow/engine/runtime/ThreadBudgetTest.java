package io.ringflow.engine.runtime;

import io.ringflow.engine.TestJobs;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A job starts exactly the threads docs/architecture.md's thread budget lists: one per task, the attempt's monitor,
 * the checkpoint timer with periodic checkpoints, the snapshot flusher only when a snapshot must be handed off (durable
 * storage, or a large one), the checkpoint I/O thread only for durable storage; and none is left once the job ended.
 */
class ThreadBudgetTest
{
    @TempDir
    Path dir;

    private static List<String> threadsOf(final String job)
    {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
            .filter(name -> name.contains(job)).sorted().toList();
    }

    @Test
    void durableCheckpointsAddTheTimerTheFlusherAndTheIoThread() throws Exception
    {
        final String job = "budget-durable";
        final AtomicLong seen = new AtomicLong();
        final JobConfig config = JobConfig.builder()
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).directory(dir).build())
            .build();
        final JobHandle handle = TestJobs.startFiveTaskKeyedJob(job, config, seen);
        await().atMost(Duration.ofSeconds(60)).until(() -> seen.get() > 100);
        handle.triggerCheckpoint().get(60, TimeUnit.SECONDS);

        final List<String> threads = threadsOf(job);
        // tasks: the source, and two subtasks of map, and of reduce chained with the sink
        assertThat(threads.stream().filter(name -> name.startsWith("ringflow-" + job + "-"))).hasSize(5);
        assertThat(threads.stream().filter(name -> !name.startsWith("ringflow-" + job + "-"))).containsExactly(
            "ringflow-checkpoint-io-" + job,
            "ringflow-checkpoint-timer-" + job,
            "ringflow-monitor-" + job,
            "ringflow-snapshot-flusher-" + job);

        handle.cancel();
        handle.termination().get(60, TimeUnit.SECONDS);
        handle.close();
        await().atMost(Duration.ofSeconds(60)).until(() -> threadsOf(job).isEmpty());
    }

    @Test
    void smallInMemorySnapshotsNeedNoHandOffAndOnDemandCheckpointsNoTimer() throws Exception
    {
        final String job = "budget-in-memory";
        final AtomicLong seen = new AtomicLong();
        final JobHandle handle = TestJobs.startFiveTaskKeyedJob(job, JobConfig.builder().build(), seen);
        await().atMost(Duration.ofSeconds(60)).until(() -> seen.get() > 100);
        for (int i = 0; i < 3; i++)
        {
            assertThat(handle.triggerCheckpoint().get(60, TimeUnit.SECONDS).stateSizeBytes()).isPositive();
        }

        final List<String> threads = threadsOf(job);
        assertThat(threads.stream().filter(name -> name.startsWith("ringflow-" + job + "-"))).hasSize(5);
        assertThat(threads.stream().filter(name -> !name.startsWith("ringflow-" + job + "-")))
            .as("the tasks wrote their small snapshots themselves; in-memory commits need no I/O thread")
            .containsExactly("ringflow-monitor-" + job);

        handle.cancel();
        handle.termination().get(60, TimeUnit.SECONDS);
        handle.close();
        await().atMost(Duration.ofSeconds(60)).until(() -> threadsOf(job).isEmpty());
    }
}
