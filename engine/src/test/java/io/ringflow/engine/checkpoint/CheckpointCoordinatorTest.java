package io.ringflow.engine.checkpoint;

import io.ringflow.engine.TestJobs;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CheckpointException;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.channel.BarrierKind;
import io.ringflow.engine.checkpoint.barrier.AbortReason;
import io.ringflow.state.checkpoint.DirectoryCheckpointStorage;
import io.ringflow.state.checkpoint.InMemoryCheckpointStorage;
import io.ringflow.state.checkpoint.StateOutput;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The coordinator's protocol driven by hand: two participants that are not tasks, whose acknowledgements, aborts and
 * finishes the test delivers in a chosen order, and a job that only records what it is asked; triggers asked for by hand and the rules that hold them back (a pending
 * savepoint, maxConcurrent, the minimum pause, the waiting limit); and clean-up that waits for the writer.
 */
class CheckpointCoordinatorTest
{
    private final InMemoryCheckpointStorage storage = new InMemoryCheckpointStorage();
    private final RecordingJob execution = new RecordingJob();
    private final CheckpointParticipant first = new Participant(0, "first");
    private final CheckpointParticipant second = new Participant(1, "second");
    private CheckpointCoordinator coordinator;

    /** A task as the coordinator sees it. */
    private record Participant(int index, String name) implements CheckpointParticipant
    {
        @Override
        public SourceSubtask source()
        {
            return null;
        }
    }

    /** Keeps the newest barrier requested and whether the job was failed. */
    private static final class RecordingJob implements CheckpointedJob
    {
        private final java.util.concurrent.atomic.AtomicLong requested = new java.util.concurrent.atomic.AtomicLong();
        private volatile boolean failed;

        @Override
        public String jobName()
        {
            return "coordinator-test";
        }

        @Override
        public void requestBarrier(final long checkpointId, final BarrierKind kind)
        {
            requested.accumulateAndGet(checkpointId << 1 | (kind == BarrierKind.SAVEPOINT ? 1 : 0), Math::max);
        }

        @Override
        public void notifyCheckpointComplete(final long checkpointId)
        {
        }

        @Override
        public void notifyCheckpointAborted(final long checkpointId)
        {
        }

        @Override
        public void fail(final Throwable cause)
        {
            failed = true;
        }

        long requestedBarrier()
        {
            return requested.get();
        }

        boolean isStopping()
        {
            return failed;
        }
    }

    @BeforeEach
    void setUp()
    {
        coordinator = started(CheckpointConfig.every(Duration.ofDays(1)).maxConcurrent(3).storage(storage).build());
    }

    @AfterEach
    void tearDown()
    {
        coordinator.stop();
    }

    @Test
    void aNewerCheckpointThatCompletesSubsumesTheOlderPendingOnes() throws Exception
    {
        final TriggerRequest older = coordinator.submit(TriggerRequest.checkpoint());
        final TriggerRequest newer = coordinator.submit(TriggerRequest.checkpoint());
        coordinator.acknowledge(first, ack(older.id()));
        coordinator.acknowledge(first, ack(newer.id()));
        coordinator.acknowledge(second, ack(newer.id()));

        assertThat(newer.future.get(1, TimeUnit.MINUTES).checkpointId()).isEqualTo(newer.id());
        assertThat(failureOf(older)).isEqualTo(CheckpointException.Reason.SUBSUMED);
        assertThatThrownBy(() -> older.future.get(1, TimeUnit.MINUTES))
            .hasMessageContaining("checkpoint " + older.id() + " subsumed by " + newer.id());
        assertThat(storage.checkpointIds()).containsExactly(newer.id());
        // a late acknowledgement of the subsumed checkpoint changes nothing
        coordinator.acknowledge(second, ack(older.id()));
        assertThat(coordinator.completedCheckpoints()).extracting(CompletedCheckpoint::checkpointId)
            .containsExactly(newer.id());
    }

    @Test
    void aFinishedTaskStandsInOnlyForCheckpointsItDidNotAbort() throws Exception
    {
        final TriggerRequest dropped = coordinator.submit(TriggerRequest.checkpoint());
        final TriggerRequest kept = coordinator.submit(TriggerRequest.checkpoint());
        coordinator.acknowledge(first, ack(dropped.id()));
        // the second task saw a newer barrier first and gave the older checkpoint up, then ended its input
        coordinator.abortedByTask(second, dropped.id(), AbortReason.SUBSUMED);
        coordinator.acknowledge(second, ack(kept.id()));
        coordinator.taskFinished(second, -1);

        assertThatThrownBy(() -> dropped.future.get(1, TimeUnit.MINUTES))
            .hasMessageContaining("aborted by task second: SUBSUMED");
        coordinator.acknowledge(first, ack(kept.id()));
        assertThat(kept.future.get(1, TimeUnit.MINUTES).checkpointId()).isEqualTo(kept.id());
        assertThat(storage.checkpointIds()).containsExactly(kept.id());
    }

    @Test
    void aSavepointNeverLetsRetentionDropTheLatestCheckpointARestartFallsBackTo() throws Exception
    {
        // one checkpoint retained (the default) and no incremental snapshots: the savepoint is the newest, yet the
        // checkpoint before it stays until a newer checkpoint completes
        final TriggerRequest checkpoint = coordinator.submit(TriggerRequest.checkpoint());
        coordinator.acknowledge(first, ack(checkpoint.id()));
        coordinator.acknowledge(second, ack(checkpoint.id()));
        checkpoint.future.get(1, TimeUnit.MINUTES);
        final TriggerRequest savepoint = coordinator.submit(TriggerRequest.savepoint(null));
        coordinator.acknowledge(first, ack(savepoint.id()));
        coordinator.acknowledge(second, ack(savepoint.id()));
        savepoint.future.get(1, TimeUnit.MINUTES);
        assertThat(storage.checkpointIds()).containsExactly(checkpoint.id(), savepoint.id());

        final TriggerRequest next = coordinator.submit(TriggerRequest.checkpoint());
        coordinator.acknowledge(first, ack(next.id()));
        coordinator.acknowledge(second, ack(next.id()));
        next.future.get(1, TimeUnit.MINUTES);
        assertThat(storage.checkpointIds()).containsExactly(savepoint.id(), next.id());
    }

    @Test
    void aCheckpointAskedForWhileASavepointIsPendingWaitsForItAndNeverOvertakesIt() throws Exception
    {
        final TriggerRequest savepoint = coordinator.submit(TriggerRequest.savepoint(null));
        final TriggerRequest checkpoint = coordinator.submit(TriggerRequest.checkpoint());
        // the sources have been asked for the savepoint's barrier only: nothing newer may overtake it
        assertThat(checkpoint.id()).as("waits behind the savepoint").isEqualTo(-1);
        assertThat(execution.requestedBarrier() >>> 1).isEqualTo(savepoint.id());

        coordinator.acknowledge(first, ack(savepoint.id()));
        coordinator.acknowledge(second, ack(savepoint.id()));
        assertThat(savepoint.future.get(1, TimeUnit.MINUTES).savepoint()).isTrue();
        assertThat(checkpoint.id()).as("started once the savepoint completed").isGreaterThan(savepoint.id());
        assertThat(execution.requestedBarrier() >>> 1).isEqualTo(checkpoint.id());
    }

    @Test
    void aSavepointStartsWhileCheckpointsArePendingButASecondSavepointWaitsForTheFirst() throws Exception
    {
        final CheckpointCoordinator one = started(CheckpointConfig.every(Duration.ofDays(1)).storage(storage).build());
        try
        {
            final TriggerRequest checkpoint = one.submit(TriggerRequest.checkpoint());
            final TriggerRequest savepoint = one.submit(TriggerRequest.savepoint(null));
            final TriggerRequest nextSavepoint = one.submit(TriggerRequest.savepoint(null));
            assertThat(savepoint.id()).as("a savepoint is not held back by maxConcurrent").isPositive();
            assertThat(nextSavepoint.id()).as("one savepoint at a time").isEqualTo(-1);

            one.abortedByTask(first, checkpoint.id(), AbortReason.SUBSUMED);
            assertThat(failureOf(checkpoint)).isEqualTo(CheckpointException.Reason.SUBSUMED);
            one.decline(second, savepoint.id(), new IOException("disk full"));
            assertThat(failureOf(savepoint)).isEqualTo(CheckpointException.Reason.DECLINED);
            assertThat(nextSavepoint.id()).as("started once the first savepoint failed").isPositive();
        }
        finally
        {
            one.stop();
        }
    }

    @Test
    void checkpointsAskedForByHandHonourMaxConcurrentAndStartInOrder() throws Exception
    {
        final CheckpointCoordinator one = started(CheckpointConfig.every(Duration.ofDays(1)).storage(storage).build());
        try
        {
            final List<TriggerRequest> requests = new ArrayList<>();
            for (int i = 0; i < 5; i++)
            {
                requests.add(one.submit(TriggerRequest.checkpoint()));
            }
            for (int i = 0; i < requests.size(); i++)
            {
                final TriggerRequest request = requests.get(i);
                assertThat(request.id()).as("request %d started", i).isPositive();
                assertThat(requests.subList(i + 1, requests.size())).as("the requests behind %d wait", i)
                    .allMatch(waiting -> waiting.id() == -1);
                one.acknowledge(first, ack(request.id()));
                one.acknowledge(second, ack(request.id()));
                assertThat(request.future.get(1, TimeUnit.MINUTES).checkpointId()).isEqualTo(request.id());
            }
        }
        finally
        {
            one.stop();
        }
    }

    @Test
    void beyondTheWaitingLimitATriggerIsRefusedWithItsReason()
    {
        final CheckpointCoordinator one = started(CheckpointConfig.every(Duration.ofDays(1)).storage(storage).build());
        try
        {
            one.submit(TriggerRequest.checkpoint());
            for (int i = 0; i < CheckpointCoordinator.MAX_WAITING_TRIGGERS; i++)
            {
                assertThat(one.submit(TriggerRequest.checkpoint()).future).isNotDone();
            }
            final TriggerRequest refused = one.submit(TriggerRequest.checkpoint());
            assertThat(failureOf(refused)).isEqualTo(CheckpointException.Reason.TOO_MANY_WAITING_TRIGGERS);
        }
        finally
        {
            one.stop();
        }
    }

    @Test
    void aCheckpointAskedForWithinTheMinimumPauseStartsOnceItHasPassed() throws Exception
    {
        final CheckpointCoordinator paused = started(CheckpointConfig.every(Duration.ofDays(1))
            .minPause(Duration.ofMillis(20)).storage(storage).build());
        try
        {
            final TriggerRequest firstCheckpoint = paused.submit(TriggerRequest.checkpoint());
            // read before the completion: the pause counts from a later instant, so this bound can only fail if the
            // coordinator started the next checkpoint early, never because the machine is slow
            final long beforeCompletion = System.nanoTime();
            paused.acknowledge(first, ack(firstCheckpoint.id()));
            paused.acknowledge(second, ack(firstCheckpoint.id()));
            firstCheckpoint.future.get(1, TimeUnit.MINUTES);

            final TriggerRequest next = paused.submit(TriggerRequest.checkpoint());
            // no tick comes for a day: the coordinator wakes itself when the pause has passed
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> next.id() >= 0);
            assertThat(System.nanoTime() - beforeCompletion).as("started after the minimum pause")
                .isGreaterThanOrEqualTo(Duration.ofMillis(20).toNanos());
        }
        finally
        {
            paused.stop();
        }
    }

    @Test
    void aSavepointIsNeverCountedAgainstTheTolerableFailures() throws Exception
    {
        final CheckpointCoordinator strict = started(CheckpointConfig.every(Duration.ofDays(1)).tolerableFailures(0)
            .storage(storage).build());
        try
        {
            final TriggerRequest savepoint = strict.submit(TriggerRequest.savepoint(null));
            strict.decline(first, savepoint.id(), new IOException("disk full"));
            assertThatThrownBy(() -> savepoint.future.get(1, TimeUnit.MINUTES)).hasMessageContaining("disk full");
            assertThat(execution.isStopping()).as("a failed savepoint does not fail the job").isFalse();
        }
        finally
        {
            strict.stop();
        }
    }

    @Test
    void triggersAskedForBeforeTheTasksAreKnownStartWithTheAttempt()
    {
        final CheckpointCoordinator notYet = new CheckpointCoordinator(execution, null, 7, storage);
        final TriggerRequest early = notYet.submit(TriggerRequest.checkpoint());
        assertThat(early.id()).isEqualTo(-1);
        notYet.start(List.of(first, second));
        try
        {
            assertThat(early.id()).isEqualTo(7);
        }
        finally
        {
            notYet.stop();
        }
    }

    @Test
    void checkpointIdsStartWhereTheAttemptWasToldAndKeepRising() throws Exception
    {
        final CheckpointCoordinator later = new CheckpointCoordinator(execution, null, 42, storage);
        later.start(List.of(first));
        try
        {
            final TriggerRequest one = later.submit(TriggerRequest.checkpoint());
            final TriggerRequest two = later.submit(TriggerRequest.checkpoint());
            assertThat(one.id()).isEqualTo(42);
            later.acknowledge(first, ack(42));
            one.future.get(1, TimeUnit.MINUTES);
            assertThat(two.id()).isEqualTo(43);
            assertThat(later.nextCheckpointId()).isEqualTo(44);
        }
        finally
        {
            later.stop();
        }
    }

    @Test
    void aStoppedCoordinatorRefusesTriggersAndAbortsWhatIsPendingOrWaiting()
    {
        final TriggerRequest pending = coordinator.submit(TriggerRequest.savepoint(null));
        final TriggerRequest waiting = coordinator.submit(TriggerRequest.checkpoint());
        coordinator.stop();
        assertThat(failureOf(pending)).isEqualTo(CheckpointException.Reason.JOB_STOPPED);
        assertThatThrownBy(() -> pending.future.get(1, TimeUnit.MINUTES)).hasMessageContaining("the job stopped");
        assertThat(failureOf(waiting)).isEqualTo(CheckpointException.Reason.JOB_STOPPED);
        final TriggerRequest refused = coordinator.submit(TriggerRequest.checkpoint());
        assertThat(failureOf(refused)).isEqualTo(CheckpointException.Reason.JOB_NOT_RUNNING);
        assertThatThrownBy(() -> refused.future.get(1, TimeUnit.MINUTES)).hasMessageContaining("is not running");
    }

    @Test
    void theFilesOfACheckpointAbortedWhileATaskWritesThemGoOnlyOnceTheWriteHasEnded(@TempDir final Path dir)
        throws Exception
    {
        final DirectoryCheckpointStorage directory = new DirectoryCheckpointStorage(dir);
        final CheckpointCoordinator onDisk = new CheckpointCoordinator(execution,
            CheckpointConfig.every(Duration.ofDays(1)).storage(directory).build(), 1, directory);
        onDisk.start(List.of(first, second));
        try
        {
            final TriggerRequest request = onDisk.submit(TriggerRequest.checkpoint());
            final long id = request.id();
            assertThat(onDisk.beginWrite(id)).isTrue();
            final StateOutput output = directory.createStateOutput(id, "written-while-aborted");
            // the other task declines while this one still writes: the folder must outlive the write
            onDisk.decline(second, id, new IOException("disk full"));
            assertThat(failureOf(request)).isEqualTo(CheckpointException.Reason.DECLINED);
            assertThat(onDisk.beginWrite(id)).as("nothing new is written for an ended checkpoint").isFalse();
            output.write(new byte[] {1, 2, 3}, 0, 3);
            output.closeAndGetHandle();
            assertThat(dir.resolve("chk-" + id).resolve("written-while-aborted")).exists();

            onDisk.endWrite(id);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> Files.notExists(dir.resolve("chk-" + id)));
        }
        finally
        {
            onDisk.stop();
        }
    }

    private CheckpointCoordinator started(final CheckpointConfig config)
    {
        final CheckpointCoordinator started = new CheckpointCoordinator(execution, config, 1, storage);
        started.start(List.of(first, second));
        return started;
    }

    /** @return the reason a request's future failed with; fails the test if it did not fail. */
    private static CheckpointException.Reason failureOf(final TriggerRequest request)
    {
        assertThat(request.future).isCompletedExceptionally();
        try
        {
            request.future.join();
        }
        catch (final java.util.concurrent.CompletionException ex)
        {
            assertThat(ex.getCause()).isInstanceOf(CheckpointException.class);
            return ((CheckpointException)ex.getCause()).reason();
        }
        throw new AssertionError("not failed");
    }

    private static TaskAcknowledgement ack(final long checkpointId)
    {
        return new TaskAcknowledgement(checkpointId, -1, System.nanoTime(), 0, 0, 0, 0, 0, 0, false, List.of());
    }
}
