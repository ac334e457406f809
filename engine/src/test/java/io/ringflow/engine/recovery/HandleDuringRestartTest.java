package io.ringflow.engine.recovery;

import io.ringflow.engine.TestJobs;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CheckpointException;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.RestartStrategy;
import io.ringflow.state.checkpoint.DirectoryCheckpointStorage;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The job handle while a job restarts: every trigger completes or fails cleanly with its reason, whatever the moment;
 * and what a new run does with the incomplete checkpoints an earlier, killed run left in its directory.
 */
class HandleDuringRestartTest
{
    private static final long KEYS = 5;

    @Test
    void whileTheJobWaitsToRestartEveryTriggerFailsWithThatReasonAndCancelEndsIt() throws Exception
    {
        final CountingJob job = new CountingJob(KEYS);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).build())
            // the restart waits a day: the test acts while the run is between attempts
            .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ofDays(1)))
            .build());
        job.build(env, 1);
        final JobHandle handle = env.execute("handle-during-restart");
        job.source.openUpTo(100);
        Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> job.sinkTotal() == 100);
        job.armed.set(true);
        job.source.openUpTo(101);
        Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> handle.status() == JobStatus.RESTARTING);

        assertThat(reasonOf(handle.triggerCheckpoint())).isEqualTo(CheckpointException.Reason.JOB_RESTARTING);
        assertThat(reasonOf(handle.triggerSavepoint())).isEqualTo(CheckpointException.Reason.JOB_RESTARTING);
        assertThat(reasonOf(handle.stopWithSavepoint())).isEqualTo(CheckpointException.Reason.JOB_RESTARTING);
        assertThat(handle.triggerCheckpoint()).failsWithin(Duration.ZERO)
            .withThrowableOfType(java.util.concurrent.ExecutionException.class)
            .withMessageContaining("waiting to restart");

        handle.cancel();
        assertThat(handle.awaitTermination(TestJobs.HANG_GUARD)).isEqualTo(JobStatus.CANCELED);
        assertThat(reasonOf(handle.triggerCheckpoint())).isEqualTo(CheckpointException.Reason.JOB_NOT_RUNNING);
    }

    @Test
    void triggersAskedForInALoopAcrossRestartsAllEndCleanly() throws Exception
    {
        final CountingJob job = new CountingJob(KEYS);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .checkpointing(CheckpointConfig.every(Duration.ofMillis(2)).build())
            .restartStrategy(RestartStrategy.fixedDelay(100, Duration.ZERO))
            .build());
        job.build(env, 2);
        final List<CompletableFuture<CompletedCheckpoint>> futures = new CopyOnWriteArrayList<>();
        final List<Throwable> thrown = new CopyOnWriteArrayList<>();
        final AtomicBoolean done = new AtomicBoolean();
        try (JobHandle handle = env.execute("triggers-across-restarts"))
        {
            final Thread triggers = new Thread(() ->
            {
                int i = 0;
                while (!done.get())
                {
                    try
                    {
                        futures.add(i++ % 3 == 0 ? handle.triggerSavepoint() : handle.triggerCheckpoint());
                        // one at a time keeps the queue short; the call itself must never throw
                        futures.get(futures.size() - 1).handle((ok, failed) -> null).join();
                    }
                    catch (final RuntimeException ex)
                    {
                        thrown.add(ex);
                    }
                }
            }, "test-triggers");
            triggers.start();
            long limit = 0;
            for (int failure = 1; failure <= 5; failure++)
            {
                limit += 200;
                job.source.openUpTo(limit);
                final long reached = limit;
                Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> job.sinkTotal() >= reached);
                job.armed.set(true);
                job.source.openUpTo(++limit);
                final int restarts = failure;
                Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> handle.restartCount() >= restarts);
            }
            job.source.finishAt(limit);
            assertThat(handle.awaitTermination(TestJobs.HANG_GUARD)).isEqualTo(JobStatus.FINISHED);
            done.set(true);
            triggers.join();
            assertThat(job.sinkCountsAreExactFor(limit)).isTrue();
        }
        assertThat(thrown).as("a trigger call threw instead of returning a failed future").isEmpty();
        for (final CompletableFuture<CompletedCheckpoint> future : futures)
        {
            assertThat(future).isDone();
            if (future.isCompletedExceptionally())
            {
                assertThat(reasonOf(future)).isIn(CheckpointException.Reason.JOB_RESTARTING,
                    CheckpointException.Reason.JOB_STOPPED, CheckpointException.Reason.JOB_NOT_RUNNING,
                    CheckpointException.Reason.SUBSUMED);
            }
        }
    }

    @Test
    void aNewRunRemovesTheIncompleteCheckpointsAnEarlierRunLeftAndSaysSo(@TempDir final Path dir) throws Exception
    {
        final JobConfig config = JobConfig.builder()
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).storage(new DirectoryCheckpointStorage(dir))
                .retainOnCancel(true).build())
            .build();
        final CountingJob first = new CountingJob(KEYS);
        final JobEnvironment env = JobEnvironment.create(config);
        first.build(env, 1);
        final long committed;
        try (JobHandle handle = env.execute("incomplete-first"))
        {
            first.source.openUpTo(50);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> first.sinkTotal() == 50);
            committed = handle.triggerCheckpoint().get().checkpointId();
        }
        // what a JVM killed while writing checkpoints leaves: folders with state files and no metadata
        final Path torn = Files.createDirectories(dir.resolve("chk-" + (committed + 5)));
        Files.write(torn.resolve("keyed-0.inprogress"), new byte[] {1, 2, 3});
        Files.createDirectories(dir.resolve("chk-" + (committed + 6)));

        final List<LogRecord> logged = new CopyOnWriteArrayList<>();
        final Handler capture = new Handler()
        {
            @Override
            public void publish(final LogRecord record)
            {
                logged.add(record);
            }

            @Override
            public void flush()
            {
            }

            @Override
            public void close()
            {
            }
        };
        Logger.getLogger("io.ringflow").addHandler(capture);
        final CountingJob second = new CountingJob(KEYS);
        final JobEnvironment again = JobEnvironment.create(config);
        second.build(again, 1);
        try (JobHandle handle = again.execute("incomplete-second"))
        {
            assertThat(dir.resolve("chk-" + (committed + 5))).doesNotExist();
            assertThat(dir.resolve("chk-" + (committed + 6))).doesNotExist();
            assertThat(dir.resolve("chk-" + committed).resolve("_metadata")).exists();
            second.source.openUpTo(10);
            // ids keep rising past the removed folders: nothing is ever written into a folder of an earlier run
            assertThat(handle.triggerCheckpoint().get().checkpointId()).isGreaterThan(committed + 6);
        }
        finally
        {
            Logger.getLogger("io.ringflow").removeHandler(capture);
        }
        assertThat(logged).extracting(LogRecord::getMessage).anySatisfy(message -> assertThat(message)
            .contains("removed 2 incomplete checkpoint folder(s) [" + (committed + 5) + ", " + (committed + 6) + "]"));
    }

    private static CheckpointException.Reason reasonOf(final CompletableFuture<CompletedCheckpoint> future)
    {
        assertThat(future).isCompletedExceptionally();
        try
        {
            future.join();
        }
        catch (final CompletionException ex)
        {
            assertThat(ex.getCause()).isInstanceOf(CheckpointException.class);
            return ((CheckpointException)ex.getCause()).reason();
        }
        throw new AssertionError("not failed");
    }
}
