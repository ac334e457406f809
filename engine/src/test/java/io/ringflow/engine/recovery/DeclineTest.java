package io.ringflow.engine.recovery;

import io.ringflow.engine.ForwardingCheckpointStorage;
import io.ringflow.engine.TestJobs;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.state.checkpoint.InMemoryCheckpointStorage;
import io.ringflow.state.checkpoint.StateOutput;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A task that cannot write its state declines the checkpoint, naming itself and the cause; the job keeps running
 * while the failures stay within the tolerated number, completes checkpoints again once writing works, and fails when
 * more checkpoints in a row fail than tolerated.
 */
class DeclineTest
{
    @Test
    void aStateFileThatCannotBeWrittenDeclinesTheCheckpointUntilTheToleranceIsUsedUp() throws Exception
    {
        final FlakyStorage storage = new FlakyStorage();
        final CountingJob job = new CountingJob(5);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).storage(storage).tolerableFailures(1).build())
            .build());
        job.build(env, 1);
        final JobHandle handle = env.execute("decline");
        job.source.openUpTo(1_000);
        Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> job.sinkTotal() == 1_000);

        storage.failing.set(true);
        assertThatThrownBy(() -> handle.triggerCheckpoint().get(2, TimeUnit.MINUTES))
            .isInstanceOf(ExecutionException.class)
            .hasMessageContaining("declined by task CountPerKey")
            .hasMessageContaining("no space left on the test device");
        assertThat(handle.status()).isEqualTo(JobStatus.RUNNING);

        storage.failing.set(false);
        assertThat(handle.triggerCheckpoint().get(2, TimeUnit.MINUTES).stateSizeBytes()).isPositive();

        storage.failing.set(true);
        assertThatThrownBy(() -> handle.triggerCheckpoint().get(2, TimeUnit.MINUTES))
            .hasMessageContaining("declined");
        assertThat(handle.status()).as("one failure in a row is tolerated").isEqualTo(JobStatus.RUNNING);
        assertThatThrownBy(() -> handle.triggerCheckpoint().get(2, TimeUnit.MINUTES))
            .hasMessageContaining("declined");
        assertThatThrownBy(() -> handle.awaitTermination(TestJobs.HANG_GUARD))
            .hasMessageContaining("exceeded its tolerable checkpoint failures (1)")
            .hasMessageContaining("no space left on the test device");
        assertThat(TestJobs.liveThreadsOf("decline")).isEmpty();
    }

    @Test
    void aCheckpointDirectoryThatBecomesUnusableDeclinesCheckpointsNamingThePath(
        @org.junit.jupiter.api.io.TempDir final java.nio.file.Path dir) throws Exception
    {
        final java.nio.file.Path checkpoints = dir.resolve("checkpoints");
        final CountingJob job = new CountingJob(5);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1))
                .storage(new io.ringflow.state.checkpoint.DirectoryCheckpointStorage(checkpoints))
                .tolerableFailures(1).build())
            .build());
        job.build(env, 1);
        final JobHandle handle = env.execute("unusable-directory");
        job.source.openUpTo(1_000);
        Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> job.sinkTotal() == 1_000);
        assertThat(handle.triggerCheckpoint().get(2, TimeUnit.MINUTES).stateSizeBytes()).isPositive();

        // the directory disappears and a plain file takes its place (a full or remounted disk acts alike)
        try (java.util.stream.Stream<java.nio.file.Path> paths = java.nio.file.Files.walk(checkpoints))
        {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
        java.nio.file.Files.writeString(checkpoints, "not a directory");

        assertThatThrownBy(() -> handle.triggerCheckpoint().get(2, TimeUnit.MINUTES))
            .hasMessageContaining("declined by task CountPerKey")
            .hasMessageContaining(checkpoints.toString());
        assertThat(handle.status()).isEqualTo(JobStatus.RUNNING);
        assertThatThrownBy(() -> handle.triggerCheckpoint().get(2, TimeUnit.MINUTES)).hasMessageContaining("declined");
        assertThatThrownBy(() -> handle.awaitTermination(TestJobs.HANG_GUARD))
            .hasMessageContaining("exceeded its tolerable checkpoint failures (1)")
            .hasMessageContaining(checkpoints.toString());
    }

    /** In-memory storage whose state files fail to be created while {@link #failing} is set. */
    static final class FlakyStorage extends ForwardingCheckpointStorage
    {
        final AtomicBoolean failing = new AtomicBoolean();

        FlakyStorage()
        {
            super(new InMemoryCheckpointStorage());
        }

        @Override
        public StateOutput createStateOutput(final long checkpointId, final String name) throws IOException
        {
            if (failing.get())
            {
                throw new IOException("no space left on the test device");
            }
            return super.createStateOutput(checkpointId, name);
        }

        @Override
        public StateOutput createSharedStateOutput(final long checkpointId, final String name) throws IOException
        {
            if (failing.get())
            {
                throw new IOException("no space left on the test device");
            }
            return super.createSharedStateOutput(checkpointId, name);
        }

        @Override
        public String describe()
        {
            return "flaky test storage";
        }
    }
}
