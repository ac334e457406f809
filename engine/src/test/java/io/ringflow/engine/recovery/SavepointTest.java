package io.ringflow.engine.recovery;

import io.ringflow.engine.TestJobs;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.state.checkpoint.DirectoryCheckpointStorage;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A savepoint taken from a job with unaligned checkpoints is aligned (no in-flight records), survives retention and
 * the job's cancellation, and restores into a job at another parallelism.
 */
class SavepointTest
{
    private static final long KEYS = 7;

    @Test
    void aSavepointIsAlignedKeptAndRestorableAtAnotherParallelism(@TempDir final Path dir) throws Exception
    {
        final CountingJob first = new CountingJob(KEYS);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).unaligned(true)
                .storage(new DirectoryCheckpointStorage(dir)).retained(1).retainOnCancel(false).build())
            .build());
        first.build(env, 2);
        final CompletedCheckpoint savepoint;
        try (JobHandle handle = env.execute("savepoint"))
        {
            first.source.openUpTo(3_000);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> first.sinkTotal() == 3_000);
            savepoint = handle.triggerSavepoint().get(2, TimeUnit.MINUTES);
            first.source.openUpTo(4_000);
            for (int i = 0; i < 3; i++)
            {
                handle.triggerCheckpoint().get(2, TimeUnit.MINUTES);
            }
        }
        assertThat(savepoint.savepoint()).isTrue();
        assertThat(savepoint.unaligned()).isFalse();
        assertThat(savepoint.inFlightBytes()).isZero();
        assertThat(savepoint.summary()).startsWith("savepoint " + savepoint.checkpointId());
        // retention kept one checkpoint, and cancelling deleted the checkpoints: only the savepoint is left
        final Path folder = dir.resolve("chk-" + savepoint.checkpointId());
        assertThat(folder.resolve("_metadata")).exists();
        assertThat(new DirectoryCheckpointStorage(dir).checkpointIds()).containsExactly(savepoint.checkpointId());

        final CountingJob second = new CountingJob(KEYS);
        final JobEnvironment restored = JobEnvironment.create(JobConfig.builder().restoreFrom(folder).build());
        second.build(restored, 3);
        try (JobHandle handle = restored.execute("savepoint-restored"))
        {
            second.source.finishAt(6_000);
            TestJobs.awaitFinished(handle);
        }
        assertThat(second.sinkCountsAreExactFor(6_000)).as("counts per key %s", second.sinkCounts).isTrue();
        assertThat(second.processedAtClose.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(6_000);
    }

    @Test
    void stopWithSavepointEmitsNothingAfterItsBarrierAndResumesExactlyThere(@TempDir final Path dir) throws Exception
    {
        final CountingJob first = new CountingJob(KEYS);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).storage(new DirectoryCheckpointStorage(dir))
                .build())
            .restartStrategy(io.ringflow.engine.api.RestartStrategy.fixedDelay(3, Duration.ZERO))
            .build());
        first.build(env, 1);
        final JobHandle handle = env.execute("stop-with-savepoint");
        first.source.openUpTo(2_000);
        Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> first.sinkTotal() == 2_000);
        final java.util.concurrent.CompletableFuture<CompletedCheckpoint> stopping = handle.stopWithSavepoint();
        // raised while the stop is under way: whatever the source emits before its barrier is in the savepoint,
        // nothing after it is emitted at all
        first.source.openUpTo(5_000);
        final CompletedCheckpoint savepoint = stopping.get(2, TimeUnit.MINUTES);
        assertThat(handle.awaitTermination(TestJobs.HANG_GUARD)).isEqualTo(io.ringflow.engine.api.JobStatus.CANCELED);
        assertThat(handle.restartCount()).isZero();
        final long position = savepoint.sourcePositions().get("numbers").get(0);
        assertThat(first.sinkTotal()).as("records processed = the savepoint's position").isEqualTo(position);

        final CountingJob second = new CountingJob(KEYS);
        final JobEnvironment restored = JobEnvironment.create(JobConfig.builder()
            .restoreFrom(dir.resolve("chk-" + savepoint.checkpointId())).build());
        second.build(restored, 2);
        try (JobHandle again = restored.execute("stop-with-savepoint-restored"))
        {
            second.source.finishAt(6_000);
            TestJobs.awaitFinished(again);
        }
        assertThat(second.sinkCountsAreExactFor(6_000)).isTrue();
    }
}
