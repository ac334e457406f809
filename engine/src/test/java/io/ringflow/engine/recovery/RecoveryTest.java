package io.ringflow.engine.recovery;

import io.ringflow.engine.TestJobs;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CheckpointingMode;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.InvalidJobException;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobExecutionException;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.RestartStrategy;
import io.ringflow.state.checkpoint.CheckpointMetadata;
import io.ringflow.state.checkpoint.DirectoryCheckpointStorage;
import io.ringflow.state.checkpoint.InMemoryCheckpointStorage;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Fault tolerance end to end: a job fails, restarts from its latest checkpoint, and its keyed and operator state
 * come out exactly as in a run without failure. The source is gated by the test, so each checkpoint's cut is a known
 * position and no step depends on timing.
 */
class RecoveryTest
{
    private static final long KEYS = 7;

    @ParameterizedTest(name = "{0}, counting parallelism {1}")
    @CsvSource({"EXACTLY_ONCE, 1", "EXACTLY_ONCE, 2", "AT_LEAST_ONCE, 1", "AT_LEAST_ONCE, 3"})
    void aFailedAttemptRestartsFromTheLatestCheckpointAndItsStateIsExact(final CheckpointingMode mode,
        final int parallelism) throws Exception
    {
        final InMemoryCheckpointStorage storage = new InMemoryCheckpointStorage();
        final CountingJob job = new CountingJob(KEYS);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .checkpointingMode(mode)
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).storage(storage).build())
            .restartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO))
            .build());
        job.build(env, parallelism);
        try (JobHandle handle = env.execute("recovery-" + mode + "-" + parallelism))
        {
            job.source.openUpTo(10_000);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> job.sinkTotal() == 10_000);
            final CompletedCheckpoint checkpoint = handle.triggerCheckpoint().get(2, TimeUnit.MINUTES);
            assertThat(checkpoint.sourcePositions().get("numbers")).containsExactly(10_000L);
            assertThat(checkpoint.stateSizeBytes()).isPositive();

            job.armed.set(true);
            job.source.openUpTo(20_000);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> handle.restartCount() == 1 &&
                handle.status() == JobStatus.RUNNING);
            job.source.finishAt(30_000);
            TestJobs.awaitFinished(handle);

            assertThat(job.armed).isFalse();
            assertThat(handle.restartCount()).isEqualTo(1);
            assertThat(job.sinkCountsAreExactFor(30_000)).as("counts per key %s", job.sinkCounts).isTrue();
            assertThat(job.processedAtClose.values().stream().mapToLong(Long::longValue).sum())
                .as("records processed, from operator state").isEqualTo(30_000);
        }
    }

    @Test
    void withoutACheckpointARestartReplaysFromScratch() throws Exception
    {
        final CountingJob job = new CountingJob(KEYS);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO))
            .build());
        job.build(env, 1);
        try (JobHandle handle = env.execute("recovery-scratch"))
        {
            job.armed.set(true);
            job.source.openUpTo(5_000);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> handle.restartCount() == 1);
            job.source.finishAt(5_000);
            TestJobs.awaitFinished(handle);
            assertThat(job.sinkCountsAreExactFor(5_000)).isTrue();
            assertThat(job.processedAtClose.get(0)).isEqualTo(5_000);
        }
    }

    @Test
    void whenTheRestartStrategyGivesUpTheJobFailsWithTheFunctionsException() throws Exception
    {
        final CountingJob job = new CountingJob(KEYS);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO))
            .build());
        job.build(env, 1);
        final JobHandle handle = env.execute("recovery-give-up");
        job.armed.set(true);
        job.source.openUpTo(100);
        Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> handle.restartCount() == 1);
        job.armed.set(true);
        job.source.openUpTo(200);
        assertThatThrownBy(() -> handle.awaitTermination(TestJobs.HANG_GUARD))
            .isInstanceOf(JobExecutionException.class)
            .hasStackTraceContaining("injected failure")
            .hasStackTraceContaining("the restart strategy gave up after 1 restarts");
        assertThat(handle.status()).isEqualTo(JobStatus.FAILED);
        assertThat(TestJobs.liveThreadsOf("recovery-give-up")).isEmpty();
    }

    @Test
    void aCheckpointFolderLeftWithoutMetadataByAFailedAttemptDoesNotBlockARestartFromScratch(
        @TempDir final Path dir) throws Exception
    {
        final CountingJob job = new CountingJob(KEYS);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).storage(new DirectoryCheckpointStorage(dir))
                .build())
            .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO))
            .build());
        job.build(env, 1);
        try (JobHandle handle = env.execute("recovery-uncommitted-folder"))
        {
            // what an attempt that failed while writing its first checkpoint leaves behind: state, no _metadata
            Files.createDirectories(dir.resolve("chk-1"));
            Files.writeString(dir.resolve("chk-1").resolve("count-0.keyed"), "half written");
            job.armed.set(true);
            job.source.openUpTo(500);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> handle.restartCount() == 1 &&
                handle.status() == JobStatus.RUNNING);
            job.source.finishAt(1_000);
            TestJobs.awaitFinished(handle);
        }
        assertThat(job.sinkCountsAreExactFor(1_000)).isTrue();
    }

    @Test
    void aJobCancelledWhileItWaitsToRestartEndsCanceledWithNoThreadLeft() throws Exception
    {
        final CountingJob job = new CountingJob(KEYS);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ofDays(1)))
            .build());
        job.build(env, 1);
        final JobHandle handle = env.execute("recovery-cancel-restarting");
        job.armed.set(true);
        job.source.openUpTo(10);
        Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> handle.status() == JobStatus.RESTARTING);
        handle.cancel();
        assertThat(handle.awaitTermination(TestJobs.HANG_GUARD)).isEqualTo(JobStatus.CANCELED);
        assertThat(handle.restartCount()).isZero();
        assertThat(TestJobs.liveThreadsOf("recovery-cancel-restarting")).isEmpty();
    }

    @Test
    void aSecondRunInTheSameDirectoryNeverReusesACheckpointId(@TempDir final Path dir) throws Exception
    {
        final long firstId;
        final CountingJob first = new CountingJob(KEYS);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).storage(new DirectoryCheckpointStorage(dir))
                .retained(5).build())
            .build());
        first.build(env, 1);
        try (JobHandle handle = env.execute("recovery-first-run"))
        {
            first.source.openUpTo(100);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> first.sinkTotal() == 100);
            firstId = handle.triggerCheckpoint().get(2, TimeUnit.MINUTES).checkpointId();
        }
        final byte[] firstMetadata = Files.readAllBytes(dir.resolve("chk-" + firstId).resolve("_metadata"));

        final CountingJob second = new CountingJob(KEYS);
        final JobEnvironment again = JobEnvironment.create(JobConfig.builder()
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).storage(new DirectoryCheckpointStorage(dir))
                .retained(5).build())
            .build());
        second.build(again, 1);
        try (JobHandle handle = again.execute("recovery-second-run"))
        {
            second.source.openUpTo(50);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> second.sinkTotal() == 50);
            assertThat(handle.triggerCheckpoint().get(2, TimeUnit.MINUTES).checkpointId()).isGreaterThan(firstId);
        }
        assertThat(Files.readAllBytes(dir.resolve("chk-" + firstId).resolve("_metadata"))).isEqualTo(firstMetadata);
    }

    @Test
    void aCorruptStateFileIsNeverRestoredFromAndAnOlderCheckpointIsUsed() throws Exception
    {
        final InMemoryCheckpointStorage storage = new InMemoryCheckpointStorage();
        final CountingJob job = new CountingJob(KEYS);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).storage(storage).retained(2).build())
            .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO))
            .build());
        job.build(env, 1);
        try (JobHandle handle = env.execute("recovery-corrupt"))
        {
            job.source.openUpTo(1_000);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> job.sinkTotal() == 1_000);
            final CompletedCheckpoint older = handle.triggerCheckpoint().get(2, TimeUnit.MINUTES);
            job.source.openUpTo(2_000);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> job.sinkTotal() == 2_000);
            final CompletedCheckpoint newer = handle.triggerCheckpoint().get(2, TimeUnit.MINUTES);
            final CheckpointMetadata metadata = storage.load(newer.checkpointId());
            storage.corrupt(newer.checkpointId(), metadata.stateHandles().get(0).name(), 10);

            job.armed.set(true);
            job.source.openUpTo(2_500);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> handle.restartCount() == 1 &&
                handle.status() == JobStatus.RUNNING);
            job.source.finishAt(3_000);
            TestJobs.awaitFinished(handle);
            assertThat(older.checkpointId()).isLessThan(newer.checkpointId());
            assertThat(job.sinkCountsAreExactFor(3_000)).isTrue();
            assertThat(job.processedAtClose.get(0)).isEqualTo(3_000);
        }
    }

    @Test
    void aRestartReadsEachKeyedStateFileThroughItsChecksumOnce(@TempDir final Path dir) throws Exception
    {
        final CountingStorage storage = new CountingStorage(new DirectoryCheckpointStorage(dir));
        final CountingJob job = new CountingJob(KEYS);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).storage(storage).build())
            .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO))
            .build());
        job.build(env, 2);
        try (JobHandle handle = env.execute("recovery-checked-once"))
        {
            job.source.openUpTo(4_000);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> job.sinkTotal() == 4_000);
            final CompletedCheckpoint checkpoint = handle.triggerCheckpoint().get(2, TimeUnit.MINUTES);
            final CheckpointMetadata metadata = storage.load(checkpoint.checkpointId());
            final java.util.List<String> keyed = metadata.operators().values().stream()
                .flatMap(state -> state.subtasks().stream()).flatMap(subtask -> subtask.keyedChain().stream())
                .map(io.ringflow.state.checkpoint.StateHandle::name).toList();
            assertThat(keyed).as("the counting subtasks' keyed snapshots").hasSize(2);

            job.armed.set(true);
            job.source.openUpTo(6_000);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> handle.restartCount() == 1 &&
                handle.status() == JobStatus.RUNNING);
            job.source.finishAt(8_000);
            TestJobs.awaitFinished(handle);

            assertThat(job.sinkCountsAreExactFor(8_000)).as("counts per key %s", job.sinkCounts).isTrue();
            for (final String name : keyed)
            {
                assertThat(storage.verified.get(name)).as("%s checked when chosen to restart from", name)
                    .isEqualTo(1);
                assertThat(storage.openedVerified.get(name)).as("%s opened for the restore", name).isEqualTo(1);
                assertThat(storage.openedAndChecked.get(name)).as("%s not checked a second time", name).isNull();
            }
        }
    }

    @Test
    void aRestartFromTheCheckpointTheJobStartedFromChecksItsFilesAgain(@TempDir final Path dir) throws Exception
    {
        final long checkpointId = checkpointedRun(dir, "recovery-start-point", 1, 4_000);
        final Path folder = dir.resolve("chk-" + checkpointId);
        final CountingJob second = new CountingJob(KEYS);
        final JobEnvironment restored = JobEnvironment.create(JobConfig.builder().restoreFrom(folder)
            .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO)).build());
        second.build(restored, 1);
        try (JobHandle handle = restored.execute("recovery-start-point-again"))
        {
            second.source.openUpTo(5_000);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> second.sinkCountsAreExactFor(5_000));
            // checked when the job started; the disk flips a byte of its keyed snapshot before the job fails
            final CheckpointMetadata metadata = new DirectoryCheckpointStorage(dir).load(checkpointId);
            final String keyed = metadata.operators().get("count").subtasks().get(0).keyedChain().get(0).name();
            final Path file = folder.resolve(keyed);
            final byte[] bytes = Files.readAllBytes(file);
            bytes[bytes.length / 2] ^= 0x20;
            Files.write(file, bytes);

            second.armed.set(true);
            second.source.openUpTo(6_000);
            assertThatThrownBy(() -> handle.awaitTermination(TestJobs.HANG_GUARD))
                .hasStackTraceContaining("checksum mismatch").hasStackTraceContaining(keyed);
            assertThat(handle.status()).isEqualTo(JobStatus.FAILED);
        }
    }

    @Test
    void aDeployThatFailsWhileRestoringClosesTheStoresItMade(@TempDir final Path dir) throws Exception
    {
        final Path checkpoints = dir.resolve("checkpoints");
        final long checkpointId = checkpointedRun(checkpoints, "recovery-closed-stores", 2, 1_000);
        // stores on files: each has its own folder under the state directory, deleted when the store is closed
        final Path stateDirectory = dir.resolve("state");
        final CountingJob second = new CountingJob(KEYS);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .stateBackend(new io.ringflow.state.chronicle.ChronicleStateBackend(
                io.ringflow.state.chronicle.ChronicleStateConfig.defaults().withDirectory(stateDirectory)))
            .maxParallelism(64)
            .restoreFrom(checkpoints.resolve("chk-" + checkpointId))
            .build());
        second.build(env, 2);
        assertThatThrownBy(() -> env.execute("recovery-closed-stores-second"))
            .isInstanceOf(InvalidJobException.class).hasMessageContaining("max parallelism");
        try (java.util.stream.Stream<Path> left = Files.list(stateDirectory))
        {
            assertThat(left.toList()).as("folders of stores the failed deploy left open").isEmpty();
        }
    }

    @Test
    void aNewJobStartsFromACheckpointFolderAtAnotherParallelism(@TempDir final Path dir) throws Exception
    {
        final long checkpointId = checkpointedRun(dir, "recovery-first", 2, 4_000);
        final Path folder = dir.resolve("chk-" + checkpointId);
        assertThat(folder.resolve("_metadata")).exists();

        final CountingJob second = new CountingJob(KEYS);
        final JobEnvironment restored = JobEnvironment.create(JobConfig.builder().restoreFrom(folder).build());
        second.build(restored, 3);
        try (JobHandle handle = restored.execute("recovery-second"))
        {
            second.source.finishAt(9_000);
            TestJobs.awaitFinished(handle);
        }
        // the second job's sink only saw counts from 4,000 on, and they continue the first job's exactly
        assertThat(second.sinkCountsAreExactFor(9_000)).as("counts per key %s", second.sinkCounts).isTrue();
        assertThat(second.processedAtClose.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(9_000);
    }

    @Test
    void theChronicleBackendRestoresAHeapCheckpointAndRecoversFromItsOwn(@TempDir final Path dir) throws Exception
    {
        final long checkpointId = checkpointedRun(dir, "recovery-heap", 2, 4_000);

        final CountingJob second = new CountingJob(KEYS);
        final JobEnvironment chronicle = JobEnvironment.create(JobConfig.builder()
            .stateBackend(new io.ringflow.state.chronicle.ChronicleStateBackend())
            .restoreFrom(dir.resolve("chk-" + checkpointId))
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).build())
            .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO))
            .build());
        second.build(chronicle, 2);
        try (JobHandle handle = chronicle.execute("recovery-chronicle"))
        {
            second.source.openUpTo(6_000);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> second.sinkCountsAreExactFor(6_000));
            final CompletedCheckpoint own = handle.triggerCheckpoint().get(2, TimeUnit.MINUTES);
            assertThat(own.sourcePositions().get("numbers")).containsExactly(6_000L);
            second.armed.set(true);
            second.source.openUpTo(8_000);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> handle.restartCount() == 1 &&
                handle.status() == JobStatus.RUNNING);
            second.source.finishAt(10_000);
            TestJobs.awaitFinished(handle);
        }
        assertThat(second.sinkCountsAreExactFor(10_000)).as("counts per key %s", second.sinkCounts).isTrue();
        assertThat(second.processedAtClose.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(10_000);
    }

    @Test
    void stateOfAnOperatorTheJobNoLongerHasRefusesTheRestoreUnlessAllowed(@TempDir final Path dir) throws Exception
    {
        final long checkpointId = checkpointedRun(dir, "recovery-uids", 1, 100);
        final Path folder = dir.resolve("chk-" + checkpointId);

        final GatedSource source = new GatedSource();
        final JobEnvironment strict = JobEnvironment.create(JobConfig.builder().restoreFrom(folder).build());
        strict.fromSource(source, "numbers").uid("numbers").sinkTo(new io.ringflow.engine.api.sink.DiscardSink<>());
        assertThatThrownBy(() -> strict.execute("recovery-strict"))
            .isInstanceOf(InvalidJobException.class)
            .hasMessageContaining("uids [count]")
            .hasMessageContaining("allowNonRestoredState");

        final JobEnvironment lenient = JobEnvironment.create(JobConfig.builder().restoreFrom(folder)
            .allowNonRestoredState(true).build());
        final GatedSource resumed = new GatedSource();
        final io.ringflow.engine.api.sink.CollectingSink<Long> sink = new io.ringflow.engine.api.sink.CollectingSink<>();
        lenient.fromSource(resumed, "numbers").uid("numbers").sinkTo(sink);
        try (JobHandle handle = lenient.execute("recovery-lenient"))
        {
            resumed.finishAt(105);
            TestJobs.awaitFinished(handle);
        }
        assertThat(sink.results()).containsExactly(100L, 101L, 102L, 103L, 104L);
    }

    @Test
    void aDamagedCheckpointFolderFailsTheSubmissionNamingTheFile(@TempDir final Path dir) throws Exception
    {
        final CheckpointMetadata metadata =
            new DirectoryCheckpointStorage(dir).load(checkpointedRun(dir, "recovery-damaged", 1, 100));
        final Path folder = dir.resolve("chk-" + metadata.checkpointId());
        final Path keyedFile = folder.resolve(metadata.stateHandles().get(0).name());
        final byte[] bytes = Files.readAllBytes(keyedFile);
        Files.write(keyedFile, java.util.Arrays.copyOf(bytes, bytes.length - 3));

        final JobEnvironment restored = JobEnvironment.create(JobConfig.builder().restoreFrom(folder).build());
        new CountingJob(KEYS).build(restored, 1);
        assertThatThrownBy(() -> restored.execute("recovery-damaged-2"))
            .isInstanceOf(InvalidJobException.class)
            .hasMessageContaining(keyedFile.toString())
            .hasMessageContaining("truncated");
    }

    /**
     * Runs the counting job with checkpoints in {@code dir} until {@code records} numbers went through, takes one
     * checkpoint and cancels the job, keeping its checkpoints.
     *
     * @return the checkpoint's id: restore it from {@code dir/chk-<id>}.
     */
    private static long checkpointedRun(final Path dir, final String jobName, final int parallelism,
        final long records) throws Exception
    {
        final CountingJob job = new CountingJob(KEYS);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            // the heap backend writes it, so the restores (default backend: Chronicle) also cross backends
            .stateBackend(new io.ringflow.state.heap.HeapStateBackend())
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).storage(new DirectoryCheckpointStorage(dir))
                .retainOnCancel(true).build())
            .build());
        job.build(env, parallelism);
        try (JobHandle handle = env.execute(jobName))
        {
            job.source.openUpTo(records);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> job.sinkTotal() == records);
            return handle.triggerCheckpoint().get(2, TimeUnit.MINUTES).checkpointId();
        }
    }
}
