package io.ringflow.engine.checkpointing;

import io.ringflow.engine.TestJobs;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CheckpointingMode;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.DataStream;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.functions.CheckpointListener;
import io.ringflow.engine.api.functions.CheckpointedFunction;
import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.KeyedProcessFunction;
import io.ringflow.engine.api.sink.DiscardSink;
import io.ringflow.engine.api.source.GeneratorSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checkpoints triggered on demand and periodically complete, record a consistent cut, and are announced to the
 * functions.
 */
class CheckpointCoordinationTest
{
    /**
     * Counts the records of each subtask and remembers the count at every snapshot, and which checkpoints were
     * announced complete. One shared registry, written by each subtask for its own index only.
     */
    static final class CountAtSnapshot extends KeyedProcessFunction<Long, Long, Long>
        implements CheckpointedFunction, CheckpointListener
    {
        static final Map<String, Map<Long, Long>> SNAPSHOTS = new ConcurrentHashMap<>();
        static final Map<String, List<Long>> COMPLETED = new ConcurrentHashMap<>();

        private final String job;
        private long seen;

        CountAtSnapshot(final String job)
        {
            this.job = job;
        }

        @Override
        public void processElement(final Long value, final Context<Long> ctx, final Collector<Long> out)
        {
            seen++;
            out.collect(value);
        }

        @Override
        public void snapshotState(final long checkpointId)
        {
            SNAPSHOTS.computeIfAbsent(job, j -> new ConcurrentHashMap<>()).merge(checkpointId, seen, Long::sum);
        }

        @Override
        public void notifyCheckpointComplete(final long checkpointId)
        {
            COMPLETED.computeIfAbsent(job, j -> java.util.Collections.synchronizedList(new ArrayList<>()))
                .add(checkpointId);
        }
    }

    @ParameterizedTest(name = "parallelism {0}")
    @ValueSource(ints = {1, 2})
    void alignedCheckpointsCutTheStreamExactlyAtTheRecordedSourcePositions(final int parallelism) throws Exception
    {
        // A generator feeding, through a key-hash shuffle, a function that counts records: in an exactly-once
        // checkpoint the counts snapshotted by all subtasks add up to exactly the records before the sources'
        // recorded positions.
        final String job = "cut-" + parallelism;
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().defaultParallelism(parallelism)
            .checkpointingMode(CheckpointingMode.EXACTLY_ONCE)
            .checkpointing(CheckpointConfig.every(Duration.ofMillis(5)).retained(100).build()).build());
        env.fromSource(GeneratorSource.unbounded(Long.class, (i, t) -> i), "numbers").uid("numbers")
            .keyBy(n -> n % 13)
            .process(() -> new CountAtSnapshot(job)).name("count")
            .sinkTo(new DiscardSink<>());
        try (JobHandle handle = env.execute(job))
        {
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> handle.completedCheckpoints().size() >= 5);
            final CompletedCheckpoint onDemand = handle.triggerCheckpoint().get(2, TimeUnit.MINUTES);
            assertThat(onDemand.checkpointId()).isPositive();
            final List<CompletedCheckpoint> completed = handle.completedCheckpoints();
            long previousTotal = -1;
            for (final CompletedCheckpoint checkpoint : completed)
            {
                final List<Long> positions = checkpoint.sourcePositions().get("numbers");
                assertThat(positions).hasSize(parallelism).allMatch(p -> p >= 0);
                final long recordsBeforeCut = positions.stream().mapToLong(Long::longValue).sum();
                assertThat(CountAtSnapshot.SNAPSHOTS.get(job).get(checkpoint.checkpointId()))
                    .as("checkpoint %d", checkpoint.checkpointId())
                    .isEqualTo(recordsBeforeCut);
                assertThat(recordsBeforeCut).isGreaterThanOrEqualTo(previousTotal);
                previousTotal = recordsBeforeCut;
                // one source and one count->sink task per subtask, each with its own statistics
                assertThat(checkpoint.subtasks()).hasSize(2 * parallelism).allSatisfy(stats ->
                {
                    assertThat(stats.syncDurationNanos()).isNotNegative();
                    assertThat(stats.alignmentDurationNanos()).isNotNegative();
                    assertThat(stats.acknowledgedAfterNanos()).isNotNegative()
                        .isLessThanOrEqualTo(checkpoint.durationNanos());
                });
                assertThat(checkpoint.summary()).startsWith("checkpoint " + checkpoint.checkpointId() + " aligned:");
            }
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() ->
                CountAtSnapshot.COMPLETED.getOrDefault(job, List.of()).contains(onDemand.checkpointId()));
        }
    }

    @Test
    void aBoundedJobStillCompletesCheckpointsAfterSomeSourcesFinished() throws Exception
    {
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().defaultParallelism(2).build());
        final DataStream<Long> shortOne = env.fromSource(GeneratorSource.bounded(10, Long.class, (i, t) -> i), "short")
            .uid("short");
        final DataStream<Long> endless = env.fromSource(GeneratorSource.unbounded(Long.class, (i, t) -> i), "endless")
            .uid("endless");
        shortOne.union(endless).keyBy(n -> n % 5).map(n -> n).sinkTo(new DiscardSink<>());
        try (JobHandle handle = env.execute("partly-finished"))
        {
            // the short source ends at once; its END_OF_INPUT stands for its barriers from then on
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() ->
            {
                final CompletedCheckpoint checkpoint = handle.triggerCheckpoint().get(2, TimeUnit.MINUTES);
                return checkpoint.sourcePositions().get("short").stream().mapToLong(Long::longValue).sum() == 10;
            });
        }
    }

    @Test
    void invalidCheckpointOptionsNameTheOption()
    {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> CheckpointConfig.every(Duration.ZERO).build())
            .hasMessageContaining("interval");
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> CheckpointConfig.every(Duration.ofSeconds(1)).maxConcurrent(0).build())
            .hasMessageContaining("maxConcurrent");
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> CheckpointConfig.every(Duration.ofSeconds(1)).timeout(Duration.ofMillis(-1)).build())
            .hasMessageContaining("timeout");
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> CheckpointConfig.every(Duration.ofSeconds(1)).retained(0).build())
            .hasMessageContaining("retained");
    }

    @Test
    void checkpointsThatExpireBeyondTheTolerableFailuresFailTheJob()
    {
        // The sink blocks on its first record, so no barrier ever reaches it: every checkpoint expires.
        final java.util.concurrent.CountDownLatch never = new java.util.concurrent.CountDownLatch(1);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .checkpointing(CheckpointConfig.every(Duration.ofMillis(10)).timeout(Duration.ofMillis(30))
                .tolerableFailures(2).build())
            .build());
        env.fromSource(GeneratorSource.unbounded(Long.class, (i, t) -> i), "numbers")
            .rebalance()
            .sinkTo(subtask -> record -> never.await()).name("stuck");
        final JobHandle handle = env.execute("expiring");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> handle.awaitTermination(TestJobs.HANG_GUARD))
            .hasMessageContaining("tolerable checkpoint failures (2)");
        // a barrier injected before the first record may still pass the sink; none after it can
        assertThat(handle.completedCheckpoints())
            .allSatisfy(checkpoint -> assertThat(checkpoint.sourcePositions().get("numbers")).containsExactly(0L));
    }

    @Test
    void checkpointsAreCommittedToADirectoryWithRetention(@org.junit.jupiter.api.io.TempDir final java.nio.file.Path dir)
        throws Exception
    {
        final io.ringflow.state.checkpoint.DirectoryCheckpointStorage storage =
            new io.ringflow.state.checkpoint.DirectoryCheckpointStorage(dir.resolve("checkpoints"));
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .checkpointing(CheckpointConfig.every(Duration.ofMillis(5)).retained(2).storage(storage).build())
            .build());
        env.fromSource(GeneratorSource.unbounded(Long.class, (i, t) -> i), "numbers").uid("numbers")
            .keyBy(n -> n % 3).map(n -> n).sinkTo(new DiscardSink<>());
        try (JobHandle handle = env.execute("durable"))
        {
            final CompletedCheckpoint first = handle.triggerCheckpoint().get(2, TimeUnit.MINUTES);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() ->
                handle.completedCheckpoints().get(handle.completedCheckpoints().size() - 1).checkpointId() >
                    first.checkpointId() + 3);
        }
        final List<Long> ids = storage.checkpointIds();
        assertThat(ids).hasSize(2);
        final io.ringflow.state.checkpoint.CheckpointMetadata latest = storage.latestIntact().orElseThrow();
        assertThat(latest.checkpointId()).isEqualTo(ids.get(1));
        assertThat(latest.sourcePositions().get("numbers")).hasSize(1).allMatch(position -> position > 0);
    }

    /**
     * Deleting older checkpoints is not part of a checkpoint's duration: the checkpoint is announced complete once its
     * metadata is durable, and retention runs after. Fails if the prune runs before the completion (the first
     * checkpoint would never complete while the prune is held).
     */
    @Test
    void aCheckpointIsAnnouncedCompleteBeforeOlderCheckpointsArePruned(
        @org.junit.jupiter.api.io.TempDir final java.nio.file.Path dir) throws Exception
    {
        final java.util.concurrent.CountDownLatch pruneMayRun = new java.util.concurrent.CountDownLatch(1);
        final List<Long> prunesStarted = new java.util.concurrent.CopyOnWriteArrayList<>();
        final PruneGate storage = new PruneGate(
            new io.ringflow.state.checkpoint.DirectoryCheckpointStorage(dir.resolve("checkpoints")), pruneMayRun,
            prunesStarted);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .checkpointing(CheckpointConfig.every(Duration.ofHours(1)).retained(1).storage(storage).build())
            .build());
        env.fromSource(GeneratorSource.unbounded(Long.class, (i, t) -> i), "numbers").uid("numbers")
            .keyBy(n -> n % 3).map(n -> n).sinkTo(new DiscardSink<>());
        try (JobHandle handle = env.execute("prune-after-completion"))
        {
            try
            {
                final CompletedCheckpoint first = handle.triggerCheckpoint().get(TestJobs.HANG_GUARD.toSeconds(),
                    TimeUnit.SECONDS);
                Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() ->
                    prunesStarted.contains(first.checkpointId()));
                assertThat(storage.checkpointIds()).containsExactly(first.checkpointId());

                final java.util.concurrent.CompletableFuture<CompletedCheckpoint> second = handle.triggerCheckpoint();
                pruneMayRun.countDown();
                final long secondId = second.get(TestJobs.HANG_GUARD.toSeconds(), TimeUnit.SECONDS).checkpointId();
                Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> storage.checkpointIds().equals(
                    List.of(secondId)));
            }
            finally
            {
                // a failed assertion must not leave the I/O thread waiting: the job could not stop
                pruneMayRun.countDown();
            }
        }
    }

    /** Directory storage whose prunes wait until a latch opens, each noting its checkpoint when it starts. */
    static final class PruneGate implements io.ringflow.state.checkpoint.CheckpointStorage
    {
        private final io.ringflow.state.checkpoint.DirectoryCheckpointStorage delegate;
        private final java.util.concurrent.CountDownLatch pruneMayRun;
        private final List<Long> prunesStarted;

        PruneGate(final io.ringflow.state.checkpoint.DirectoryCheckpointStorage delegate,
            final java.util.concurrent.CountDownLatch pruneMayRun, final List<Long> prunesStarted)
        {
            this.delegate = delegate;
            this.pruneMayRun = pruneMayRun;
            this.prunesStarted = prunesStarted;
        }

        @Override
        public void prune(final long newest, final int retained, final java.util.Set<Long> pinned)
        {
            prunesStarted.add(newest);
            try
            {
                pruneMayRun.await();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return;
            }
            delegate.prune(newest, retained, pinned);
        }

        @Override
        public void commit(final io.ringflow.state.checkpoint.CheckpointMetadata metadata) throws java.io.IOException
        {
            delegate.commit(metadata);
        }

        @Override
        public io.ringflow.state.checkpoint.StateOutput createStateOutput(final long checkpointId, final String name)
            throws java.io.IOException
        {
            return delegate.createStateOutput(checkpointId, name);
        }

        @Override
        public io.ringflow.state.checkpoint.StateOutput createSharedStateOutput(final long checkpointId,
            final String name) throws java.io.IOException
        {
            return delegate.createSharedStateOutput(checkpointId, name);
        }

        @Override
        public byte[] readState(final long checkpointId, final io.ringflow.state.checkpoint.StateHandle handle)
            throws java.io.IOException
        {
            return delegate.readState(checkpointId, handle);
        }

        @Override
        public void discardPending(final long checkpointId) throws java.io.IOException
        {
            delegate.discardPending(checkpointId);
        }

        @Override
        public List<Long> checkpointIds() throws java.io.IOException
        {
            return delegate.checkpointIds();
        }

        @Override
        public io.ringflow.state.checkpoint.CheckpointMetadata load(final long checkpointId)
            throws java.io.IOException
        {
            return delegate.load(checkpointId);
        }

        @Override
        public void discardAll() throws java.io.IOException
        {
            delegate.discardAll();
        }

        @Override
        public String describe()
        {
            return delegate.describe();
        }
    }

    @Test
    void aStorageThatCannotWriteDeclinesCheckpointsUntilTheTolerableFailuresAreUsedUp()
    {
        final java.util.concurrent.atomic.AtomicInteger attempts = new java.util.concurrent.atomic.AtomicInteger();
        final io.ringflow.state.checkpoint.CheckpointStorage broken = new io.ringflow.state.checkpoint.CheckpointStorage()
        {
            @Override
            public void commit(final io.ringflow.state.checkpoint.CheckpointMetadata metadata)
                throws java.io.IOException
            {
                attempts.incrementAndGet();
                throw new java.io.IOException("disk full");
            }

            @Override
            public void prune(final long newest, final int retained, final java.util.Set<Long> pinned)
            {
                throw new AssertionError("nothing was committed, so nothing is pruned");
            }

            @Override
            public List<Long> checkpointIds()
            {
                return List.of();
            }

            @Override
            public void discardAll()
            {
            }

            @Override
            public io.ringflow.state.checkpoint.CheckpointMetadata load(final long checkpointId)
            {
                throw new UnsupportedOperationException();
            }

            @Override
            public io.ringflow.state.checkpoint.StateOutput createStateOutput(final long checkpointId,
                final String name) throws java.io.IOException
            {
                throw new java.io.IOException("disk full");
            }

            @Override
            public io.ringflow.state.checkpoint.StateOutput createSharedStateOutput(final long checkpointId,
                final String name) throws java.io.IOException
            {
                throw new java.io.IOException("disk full");
            }

            @Override
            public byte[] readState(final long checkpointId, final io.ringflow.state.checkpoint.StateHandle handle)
            {
                throw new UnsupportedOperationException();
            }

            @Override
            public void discardPending(final long checkpointId)
            {
            }

            @Override
            public String describe()
            {
                return "a full disk";
            }
        };
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .checkpointing(CheckpointConfig.every(Duration.ofMillis(5)).tolerableFailures(3).storage(broken).build())
            .build());
        env.fromSource(GeneratorSource.unbounded(Long.class, (i, t) -> i), "numbers").sinkTo(new DiscardSink<>());
        final JobHandle handle = env.execute("disk-full");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> handle.awaitTermination(TestJobs.HANG_GUARD))
            .hasMessageContaining("tolerable checkpoint failures (3)")
            .hasMessageContaining("disk full");
        assertThat(attempts.get()).isEqualTo(4);
        assertThat(handle.completedCheckpoints()).isEmpty();
    }

    @ParameterizedTest(name = "retain on cancel: {0}")
    @ValueSource(booleans = {true, false})
    void aCancelledJobKeepsOrDeletesItsCheckpointsAsConfigured(final boolean retain) throws Exception
    {
        final io.ringflow.state.checkpoint.InMemoryCheckpointStorage storage =
            new io.ringflow.state.checkpoint.InMemoryCheckpointStorage();
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).storage(storage).retainOnCancel(retain).build())
            .build());
        env.fromSource(GeneratorSource.unbounded(Long.class, (i, t) -> i), "numbers").sinkTo(new DiscardSink<>());
        final JobHandle handle = env.execute("retention-" + retain);
        handle.triggerCheckpoint().get(2, TimeUnit.MINUTES);
        assertThat(storage.checkpointIds()).hasSize(1);
        handle.close();
        assertThat(storage.checkpointIds()).hasSize(retain ? 1 : 0);
    }

    @Test
    void atLeastOnceCheckpointsReflectAtLeastEveryRecordBeforeTheirPositions() throws Exception
    {
        // Nothing is blocked, so a subtask may count records from behind the cut before its snapshot: the snapshotted
        // counts are at least, not exactly, the records before the recorded positions.
        final String job = "at-least-once";
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().defaultParallelism(2)
            .checkpointingMode(CheckpointingMode.AT_LEAST_ONCE)
            .checkpointing(CheckpointConfig.every(Duration.ofMillis(5)).retained(100).build()).build());
        env.fromSource(GeneratorSource.unbounded(Long.class, (i, t) -> i), "numbers").uid("numbers")
            .keyBy(n -> n % 13)
            .process(() -> new CountAtSnapshot(job)).name("count")
            .sinkTo(new DiscardSink<>());
        try (JobHandle handle = env.execute(job))
        {
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> handle.completedCheckpoints().size() >= 5);
            for (final CompletedCheckpoint checkpoint : handle.completedCheckpoints())
            {
                final long recordsBeforeCut = checkpoint.sourcePositions().get("numbers").stream()
                    .mapToLong(Long::longValue).sum();
                assertThat(CountAtSnapshot.SNAPSHOTS.get(job).get(checkpoint.checkpointId()))
                    .as("checkpoint %d", checkpoint.checkpointId())
                    .isGreaterThanOrEqualTo(recordsBeforeCut);
            }
        }
    }
}
