package io.ringflow.engine.recovery;

import io.ringflow.engine.TestBackends;
import io.ringflow.engine.TestJobs;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.RestartStrategy;
import io.ringflow.state.checkpoint.CheckpointMetadata;
import io.ringflow.state.checkpoint.DirectoryCheckpointStorage;
import io.ringflow.state.checkpoint.StateHandle;
import io.ringflow.state.checkpoint.SubtaskState;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Incremental checkpoints end to end: the Chronicle backend writes deltas of the keys changed since the last
 * completed checkpoint into {@code shared/}, each rewriting a slice of the state so that chains drop their files
 * older than a round of {@code fullSnapshotEvery} deltas (or, without slices, are cut by a full snapshot every
 * {@code fullSnapshotEvery} files), retention never deletes a file a retained checkpoint needs, and restores (after a failure, from a folder at
 * another parallelism) give exact counts. The source is gated by the test, so each cut is a known position.
 */
class IncrementalCheckpointTest
{
    /** Many keys, few changed between two checkpoints: a delta is a small part of the state. */
    private static final long KEYS = 2_000;

    @Test
    void deltasHoldOnlyTheChangedKeysChainsAreCutAndARestartRestoresTheChainExactly(@TempDir final Path dir)
        throws Exception
    {
        final DirectoryCheckpointStorage storage = new DirectoryCheckpointStorage(dir);
        final CountingJob job = new CountingJob(KEYS);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .stateBackend(TestBackends.CHRONICLE.create())
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).storage(storage).retained(2)
                .incremental(true).fullSnapshotEvery(3).slices(CheckpointConfig.Slices.NEVER).build())
            .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO))
            .build());
        job.build(env, 2);
        try (JobHandle handle = env.execute("incremental"))
        {
            final CompletedCheckpoint first = checkpointAt(handle, job, 10_000);
            assertThat(chainLengths(storage, first)).containsExactly(1, 1);
            final StateHandle firstFull = storage.load(first.checkpointId()).operators().get("count").subtasks()
                .get(0).keyed();
            final CompletedCheckpoint second = checkpointAt(handle, job, 10_050);
            assertThat(chainLengths(storage, second)).as("a delta on the first").containsExactly(2, 2);
            assertThat(storage.load(second.checkpointId()).operators().get("count").subtasks().get(0).keyed())
                .as("the second's chain starts with the first's full snapshot").isEqualTo(firstFull);
            final CompletedCheckpoint third = checkpointAt(handle, job, 10_100);
            assertThat(chainLengths(storage, third)).containsExactly(3, 3);
            final CompletedCheckpoint fourth = checkpointAt(handle, job, 10_150);
            assertThat(chainLengths(storage, fourth)).as("cut by fullSnapshotEvery(3)").containsExactly(1, 1);

            assertThat(second.stateSizeBytes()).as("50 changed keys of 2,000")
                .isLessThan(first.stateSizeBytes() / 10);
            assertThat(third.stateSizeBytes()).isLessThan(first.stateSizeBytes() / 10);
            assertThat(fourth.stateSizeBytes()).isGreaterThan(first.stateSizeBytes() / 2);

            // retained(2): the third and fourth (retention runs after a checkpoint is announced complete); shared/
            // holds exactly the files of their chains
            Awaitility.await().atMost(TestJobs.HANG_GUARD).ignoreExceptions().untilAsserted(() ->
            {
                assertThat(storage.checkpointIds()).containsExactly(third.checkpointId(), fourth.checkpointId());
                assertThat(sharedFiles(dir)).isEqualTo(referencedSharedFiles(storage));
            });

            // a delta on the fourth, then a failure: the restart restores the fourth's full snapshot and the delta
            final CompletedCheckpoint fifth = checkpointAt(handle, job, 10_200);
            assertThat(chainLengths(storage, fifth)).containsExactly(2, 2);
            job.armed.set(true);
            job.source.openUpTo(11_000);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> handle.restartCount() == 1 &&
                handle.status() == JobStatus.RUNNING);
            // the restored stores hold exactly the fifth's state: the first checkpoint after the restart extends its
            // chains with deltas, and the next one is cut by fullSnapshotEvery(3)
            final CompletedCheckpoint afterRestart = checkpointAt(handle, job, 11_000);
            assertThat(chainLengths(storage, afterRestart)).containsExactly(3, 3);
            assertThat(storage.load(afterRestart.checkpointId()).operators().get("count").subtasks().get(0)
                .keyedChain().subList(0, 2)).as("the fifth's chain, extended")
                .isEqualTo(storage.load(fifth.checkpointId()).operators().get("count").subtasks().get(0).keyedChain());
            assertThat(afterRestart.stateSizeBytes()).as("a delta of the keys changed since the fifth")
                .isLessThan(first.stateSizeBytes() / 2);
            final CompletedCheckpoint fullAfterRestart = checkpointAt(handle, job, 11_010);
            assertThat(chainLengths(storage, fullAfterRestart)).containsExactly(1, 1);
            final CompletedCheckpoint deltaAfterRestart = checkpointAt(handle, job, 11_020);
            assertThat(chainLengths(storage, deltaAfterRestart)).containsExactly(2, 2);
            job.source.finishAt(12_000);
            TestJobs.awaitFinished(handle);
        }
        assertThat(job.sinkCountsAreExactFor(12_000)).as("counts per key").isTrue();
        assertThat(job.processedAtClose.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(12_000);
        assertThat(sharedFiles(dir)).isEqualTo(referencedSharedFiles(storage));
    }

    @Test
    void deltasRewriteSlicesChainsDropTheirFilesBeforeARoundAndARestartRestoresADeltasOnlyChainExactly(
        @TempDir final Path dir) throws Exception
    {
        final DirectoryCheckpointStorage storage = new DirectoryCheckpointStorage(dir);
        final CountingJob job = new CountingJob(KEYS);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .stateBackend(TestBackends.CHRONICLE.create())
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).storage(storage).retained(2)
                .incremental(true).fullSnapshotEvery(3).slices(CheckpointConfig.Slices.ALWAYS).build())
            .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO))
            .build());
        job.build(env, 2);
        try (JobHandle handle = env.execute("incremental-slices"))
        {
            final CompletedCheckpoint first = checkpointAt(handle, job, 10_000);
            assertThat(chainLengths(storage, first)).containsExactly(1, 1);
            final StateHandle firstFull = keyedChain(storage, first).get(0);
            // each chain read while its checkpoint is the newest: retained(2) prunes the older ones after the next
            final CompletedCheckpoint second = checkpointAt(handle, job, 10_050);
            final List<StateHandle> secondChain = keyedChain(storage, second);
            final CompletedCheckpoint third = checkpointAt(handle, job, 10_100);
            assertThat(chainLengths(storage, third)).containsExactly(3, 3);
            final List<StateHandle> thirdChain = keyedChain(storage, third);
            final CompletedCheckpoint fourth = checkpointAt(handle, job, 10_150);
            assertThat(chainLengths(storage, fourth)).as("a round of 3 complete: the full snapshot dropped")
                .containsExactly(3, 3);
            final List<StateHandle> fourthChain = keyedChain(storage, fourth);
            assertThat(fourthChain).as("the round: the second's, third's and fourth's deltas")
                .isEqualTo(List.of(secondChain.get(1), thirdChain.get(2), fourthChain.get(2)))
                .doesNotContain(firstFull);
            assertThat(second.stateSizeBytes() + third.stateSizeBytes() + fourth.stateSizeBytes())
                .as("a round rewrites the whole state").isGreaterThanOrEqualTo(first.stateSizeBytes());
            assertThat(fourth.stateSizeBytes()).as("no delta writes it all").isLessThan(first.stateSizeBytes());

            final CompletedCheckpoint fifth = checkpointAt(handle, job, 10_200);
            assertThat(chainLengths(storage, fifth)).containsExactly(3, 3);
            final List<StateHandle> fifthChain = keyedChain(storage, fifth);
            // retained(2): the fourth and fifth, whose chains no longer need the first's full snapshot
            Awaitility.await().atMost(TestJobs.HANG_GUARD).ignoreExceptions().untilAsserted(() ->
            {
                assertThat(storage.checkpointIds()).containsExactly(fourth.checkpointId(), fifth.checkpointId());
                assertThat(sharedFiles(dir)).isEqualTo(referencedSharedFiles(storage))
                    .doesNotContain(firstFull.name());
            });

            // a failure: the restart restores the fifth's chain of deltas only; the store restored starts a round of
            // its own, so its chain grows from the fifth's until that round is complete
            job.armed.set(true);
            job.source.openUpTo(11_000);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> handle.restartCount() == 1 &&
                handle.status() == JobStatus.RUNNING);
            final CompletedCheckpoint afterRestart = checkpointAt(handle, job, 11_000);
            assertThat(chainLengths(storage, afterRestart)).containsExactly(4, 4);
            assertThat(keyedChain(storage, afterRestart).subList(0, 3)).as("the fifth's chain, extended")
                .isEqualTo(fifthChain);
            checkpointAt(handle, job, 11_010);
            final CompletedCheckpoint roundAfterRestart = checkpointAt(handle, job, 11_020);
            assertThat(chainLengths(storage, roundAfterRestart)).as("the restored store's own round")
                .containsExactly(3, 3);
            job.source.finishAt(12_000);
            TestJobs.awaitFinished(handle);
        }
        assertThat(job.sinkCountsAreExactFor(12_000)).as("counts per key").isTrue();
        assertThat(sharedFiles(dir)).isEqualTo(referencedSharedFiles(storage));
    }

    private static List<StateHandle> keyedChain(final DirectoryCheckpointStorage storage,
        final CompletedCheckpoint checkpoint) throws IOException
    {
        return storage.load(checkpoint.checkpointId()).operators().get("count").subtasks().get(0).keyedChain();
    }

    @Test
    void aNewJobRestoresAnIncrementalChainAtAnotherParallelismAndIntoTheHeapBackend(@TempDir final Path dir)
        throws Exception
    {
        final DirectoryCheckpointStorage storage = new DirectoryCheckpointStorage(dir);
        final CountingJob first = new CountingJob(KEYS);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .stateBackend(TestBackends.CHRONICLE.create())
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).storage(storage).incremental(true).build())
            .build());
        first.build(env, 2);
        final long last;
        try (JobHandle handle = env.execute("incremental-first"))
        {
            checkpointAt(handle, first, 6_000);
            checkpointAt(handle, first, 6_500);
            last = checkpointAt(handle, first, 7_000).checkpointId();
        }
        assertThat(chainLengths(storage, last)).containsExactly(3, 3);

        for (final TestBackends backend : TestBackends.values())
        {
            final CountingJob second = new CountingJob(KEYS);
            final JobEnvironment restored = JobEnvironment.create(JobConfig.builder().stateBackend(backend.create())
                .restoreFrom(dir.resolve("chk-" + last)).build());
            second.build(restored, 3);
            try (JobHandle handle = restored.execute("incremental-second-" + backend))
            {
                second.source.finishAt(9_000);
                TestJobs.awaitFinished(handle);
            }
            assertThat(second.sinkCountsAreExactFor(9_000)).as("counts per key, restored into %s", backend).isTrue();
        }
    }

    @Test
    void aNewJobRestoredInTheSameDirectoryExtendsTheChainsElsewhereOrRescaledItStartsNewOnes(@TempDir final Path dir)
        throws Exception
    {
        final Path own = dir.resolve("own");
        final CountingJob first = new CountingJob(KEYS);
        final long last;
        try (JobHandle handle = incrementalEnv(own, null, first, 2).execute("incremental-first"))
        {
            checkpointAt(handle, first, 6_000);
            last = checkpointAt(handle, first, 6_500).checkpointId();
        }
        final DirectoryCheckpointStorage storage = new DirectoryCheckpointStorage(own);
        assertThat(chainLengths(storage, last)).containsExactly(2, 2);

        // the same directory and parallelism: the restored chains go on
        final CountingJob same = new CountingJob(KEYS);
        final long extended;
        final long extendedAt;
        try (JobHandle handle = incrementalEnv(own, own.resolve("chk-" + last), same, 2).execute("incremental-same"))
        {
            // however many records are in when it is taken (a restored job's sink sees only what follows the restore)
            same.source.openUpTo(7_000);
            final CompletedCheckpoint checkpoint = handle.triggerCheckpoint().get(2, TimeUnit.MINUTES);
            extended = checkpoint.checkpointId();
            extendedAt = checkpoint.sourcePositions().get("numbers").get(0);
            assertThat(chainLengths(storage, extended)).containsExactly(3, 3);
            // every key counted at least once after the restore, so the sink's last counts are the totals
            same.source.finishAt(6_500 + 2 * KEYS);
            TestJobs.awaitFinished(handle);
        }
        assertThat(same.sinkCountsAreExactFor(6_500 + 2 * KEYS)).isTrue();

        // another directory: its checkpoints cannot refer to this one's files
        final Path other = dir.resolve("other");
        final CountingJob elsewhere = new CountingJob(KEYS);
        try (JobHandle handle = incrementalEnv(other, own.resolve("chk-" + extended), elsewhere, 2)
            .execute("incremental-elsewhere"))
        {
            elsewhere.source.openUpTo(7_500);
            final CompletedCheckpoint checkpoint = handle.triggerCheckpoint().get(2, TimeUnit.MINUTES);
            assertThat(chainLengths(new DirectoryCheckpointStorage(other), checkpoint.checkpointId()))
                .containsExactly(1, 1);
        }

        // rescaled: each new subtask holds parts of several old chains
        final CountingJob rescaled = new CountingJob(KEYS);
        try (JobHandle handle = incrementalEnv(own, own.resolve("chk-" + extended), rescaled, 3)
            .execute("incremental-rescaled"))
        {
            rescaled.source.openUpTo(7_500);
            final CompletedCheckpoint checkpoint = handle.triggerCheckpoint().get(2, TimeUnit.MINUTES);
            assertThat(chainLengths(storage, checkpoint.checkpointId())).containsExactly(1, 1, 1);
            rescaled.source.finishAt(extendedAt + 2 * KEYS);
            TestJobs.awaitFinished(handle);
        }
        assertThat(rescaled.sinkCountsAreExactFor(extendedAt + 2 * KEYS)).isTrue();
        assertThat(sharedFiles(own)).isEqualTo(referencedSharedFiles(storage));
    }

    private static JobEnvironment incrementalEnv(final Path checkpoints, final Path restoreFrom, final CountingJob job,
        final int parallelism) throws IOException
    {
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .stateBackend(TestBackends.CHRONICLE.create())
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1))
                .storage(new DirectoryCheckpointStorage(checkpoints)).retained(3).incremental(true).build())
            .restoreFrom(restoreFrom)
            .build());
        job.build(env, parallelism);
        return env;
    }

    @Test
    void theHeapBackendAndSavepointsWriteFullSelfContainedSnapshots(@TempDir final Path dir) throws Exception
    {
        final DirectoryCheckpointStorage storage = new DirectoryCheckpointStorage(dir);
        final CountingJob job = new CountingJob(KEYS);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .stateBackend(TestBackends.HEAP.create())
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).storage(storage).retained(3)
                .incremental(true).build())
            .build());
        job.build(env, 2);
        final long savepointId;
        try (JobHandle handle = env.execute("incremental-heap"))
        {
            final CompletedCheckpoint first = checkpointAt(handle, job, 3_000);
            final CompletedCheckpoint second = checkpointAt(handle, job, 3_010);
            assertThat(chainLengths(storage, first)).containsExactly(1, 1);
            assertThat(chainLengths(storage, second)).as("the heap backend tracks no changes").containsExactly(1, 1);
            assertThat(storage.load(second.checkpointId()).sharedFiles()).hasSize(2);
            savepointId = handle.triggerSavepoint().get(2, TimeUnit.MINUTES).checkpointId();
        }
        final CheckpointMetadata savepoint = storage.load(savepointId);
        assertThat(savepoint.savepoint()).isTrue();
        assertThat(savepoint.sharedFiles()).as("a savepoint is self-contained").isEmpty();
        assertThat(chainLengths(storage, savepointId)).containsExactly(1, 1);
    }

    @Test
    void fullSnapshotEveryMustBePositive()
    {
        assertThatThrownBy(() -> CheckpointConfig.every(Duration.ofSeconds(1)).incremental(true)
            .fullSnapshotEvery(0).build())
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fullSnapshotEvery");
    }

    // ------------------------------------------------------------------------------------------------ support

    /** Lets the source reach {@code records}, waits for the sink to see them, and takes a checkpoint there. */
    private static CompletedCheckpoint checkpointAt(final JobHandle handle, final CountingJob job, final long records)
        throws Exception
    {
        job.source.openUpTo(records);
        Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> job.sinkTotal() >= records &&
            job.sinkCountsAreExactFor(records));
        final CompletedCheckpoint checkpoint = handle.triggerCheckpoint().get(2, TimeUnit.MINUTES);
        assertThat(checkpoint.sourcePositions().get("numbers")).containsExactly(records);
        return checkpoint;
    }

    private static List<Integer> chainLengths(final DirectoryCheckpointStorage storage,
        final CompletedCheckpoint checkpoint) throws IOException
    {
        return chainLengths(storage, checkpoint.checkpointId());
    }

    /** @return the length of each counting subtask's keyed chain. */
    private static List<Integer> chainLengths(final DirectoryCheckpointStorage storage, final long checkpointId)
        throws IOException
    {
        return storage.load(checkpointId).operators().get("count").subtasks().stream()
            .map(SubtaskState::keyedChain).map(List::size).collect(Collectors.toList());
    }

    private static Set<String> sharedFiles(final Path dir) throws IOException
    {
        try (Stream<Path> files = Files.list(dir.resolve(DirectoryCheckpointStorage.SHARED)))
        {
            return files.map(path -> path.getFileName().toString()).collect(Collectors.toSet());
        }
    }

    private static Set<String> referencedSharedFiles(final DirectoryCheckpointStorage storage) throws IOException
    {
        final Set<String> referenced = new HashSet<>();
        for (final long id : storage.checkpointIds())
        {
            for (final StateHandle handle : storage.load(id).stateHandles())
            {
                if (handle.shared())
                {
                    referenced.add(handle.name());
                }
            }
        }
        return referenced;
    }
}
