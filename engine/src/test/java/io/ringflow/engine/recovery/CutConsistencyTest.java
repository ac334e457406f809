package io.ringflow.engine.recovery;

import io.ringflow.engine.TestJobs;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CheckpointingMode;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.sink.Sink;
import io.ringflow.engine.api.sink.SinkWriter;
import io.ringflow.engine.api.source.GeneratorSource;
import io.ringflow.state.backend.StateBackend;
import io.ringflow.state.checkpoint.DirectoryCheckpointStorage;
import io.ringflow.state.chronicle.ChronicleStateBackend;
import io.ringflow.state.chronicle.ChronicleStateConfig;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Cut consistency: every completed checkpoint, restored into a fresh job that then runs to the end, gives exactly the
 * result of a run without failure. That holds only if the checkpoint's source positions, keyed state and channel
 * state describe one consistent cut. The job has two inputs of very different speeds and a slow sink, so barriers
 * meet full rings and alignment takes long; checkpoints are taken every millisecond while it runs. At-least-once is
 * held to its weaker promise: nothing is lost, duplicates are allowed.
 */
class CutConsistencyTest
{
    private static final long KEYS = 11;
    private static final long FAST = 40_000;
    private static final long SLOW = 4_000;
    private static final long SLOW_OFFSET = 1_000_000;

    enum Mode
    {
        ALIGNED, UNALIGNED, ALIGNED_WITH_TIMEOUT, AT_LEAST_ONCE
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void everyCompletedCheckpointRestoresToTheFailureFreeResult(final Mode mode, @TempDir final Path dir)
        throws Exception
    {
        checkEveryCompletedCheckpoint(mode, dir, KEYS, null);
    }

    /**
     * The same with 2,000 keys in the Chronicle backend's maps (no hot-key front) and a budget of preserved copies
     * of eight small entries, so that writes wait for the flusher while full snapshots are written (the unaligned
     * mode among them, whose snapshot reaches the flusher only after the task has read its other barriers): no job
     * hangs, and every checkpoint is still a consistent cut.
     */
    @ParameterizedTest
    @EnumSource(Mode.class)
    void everyCompletedCheckpointIsAConsistentCutWhileWritesWaitForTheFlusher(final Mode mode,
        @TempDir final Path dir) throws Exception
    {
        final ChronicleStateConfig tight = ChronicleStateConfig.defaults().withExpectedEntriesPerState(10_000)
            .withHotKeysPerState(0).withMaxEntrySize(1_024).withPreservedCopyBytesPerState(1_024 + 112);
        checkEveryCompletedCheckpoint(mode, dir, 2_000, new ChronicleStateBackend(tight));
    }

    private static void checkEveryCompletedCheckpoint(final Mode mode, final Path dir, final long keys,
        final StateBackend backend) throws Exception
    {
        final DirectoryCheckpointStorage storage = new DirectoryCheckpointStorage(dir);
        final CheckpointConfig.Builder checkpoints = CheckpointConfig.every(Duration.ofMillis(1)).storage(storage)
            .retained(1_000).retainOnCancel(true);
        if (mode == Mode.UNALIGNED)
        {
            checkpoints.unaligned(true);
        }
        else if (mode == Mode.ALIGNED_WITH_TIMEOUT)
        {
            checkpoints.alignedTimeout(Duration.ofNanos(1));
        }
        final JobConfig.Builder config = JobConfig.builder().ringSize(64).readBatch(16)
            .checkpointingMode(mode == Mode.AT_LEAST_ONCE ? CheckpointingMode.AT_LEAST_ONCE :
                CheckpointingMode.EXACTLY_ONCE)
            .checkpointing(checkpoints.build());
        if (backend != null)
        {
            config.stateBackend(backend);
        }

        final TwoInputJob first = new TwoInputJob(keys);
        final JobEnvironment env = JobEnvironment.create(config.build());
        first.build(env);
        final List<CompletedCheckpoint> completed;
        try (JobHandle handle = env.execute("cut-" + mode))
        {
            first.fast.openUpTo(FAST - 1);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> handle.completedCheckpoints().size() >= 4);
            first.fast.finishAt(FAST);
            TestJobs.awaitFinished(handle);
            completed = new ArrayList<>(handle.completedCheckpoints());
        }
        assertThat(first.exact()).as("the failure-free run").isTrue();

        // restore from the first, a middle and the last checkpoint taken before the fast input ended (a task that has
        // finished contributes no state to later checkpoints, as in Flink: its input is over for good)
        completed.removeIf(checkpoint -> checkpoint.sourcePositions().get("fast").get(0) >= FAST);
        assertThat(completed).isNotEmpty();
        for (final CompletedCheckpoint checkpoint : List.of(completed.get(0), completed.get(completed.size() / 2),
            completed.get(completed.size() - 1)))
        {
            final TwoInputJob restored = new TwoInputJob(keys);
            final JobEnvironment again = JobEnvironment.create(config.checkpointing(null)
                .restoreFrom(dir.resolve("chk-" + checkpoint.checkpointId())).build());
            restored.build(again);
            // one more record per key, so every key's final count reaches the sink even when the checkpoint was
            // taken after the last record
            restored.fastTotal = FAST + keys;
            try (JobHandle handle = again.execute("cut-" + mode + "-restored-" + checkpoint.checkpointId()))
            {
                restored.fast.finishAt(restored.fastTotal);
                TestJobs.awaitFinished(handle);
            }
            if (mode == Mode.AT_LEAST_ONCE)
            {
                assertThat(restored.atLeast()).as("checkpoint %d loses nothing", checkpoint.checkpointId()).isTrue();
            }
            else
            {
                assertThat(restored.exact()).as("checkpoint %d (%s) is a consistent cut: %s",
                    checkpoint.checkpointId(), checkpoint.summary(), restored.counts).isTrue();
            }
        }
    }

    /** Fast gated numbers and slow generated ones, unioned, counted per key, into a slow max-per-key sink. */
    static final class TwoInputJob
    {
        final GatedSource fast = new GatedSource();
        final Map<Long, Long> counts = new ConcurrentHashMap<>();
        final long keys;
        long fastTotal = FAST;

        TwoInputJob()
        {
            this(KEYS);
        }

        TwoInputJob(final long keys)
        {
            this.keys = keys;
        }

        void build(final JobEnvironment env)
        {
            final long modulo = keys;
            final AtomicBoolean never = new AtomicBoolean();
            final Map<Integer, Long> unused = new ConcurrentHashMap<>();
            env.fromSource(fast, "fast").uid("fast")
                .union(env.fromSource(GeneratorSource.bounded(SLOW, Long.class, (i, t) -> SLOW_OFFSET + i), "slow")
                    .uid("slow"))
                .keyBy(n -> n % modulo)
                .process(() -> new CountingJob.CountPerKey(never, unused))
                .returns(CountingJob.Count.class)
                .uid("count")
                .sinkTo(new SlowMaxSink(counts))
                .uid("sink");
        }

        private long expected(final long key)
        {
            long count = 0;
            for (long n = 0; n < fastTotal; n++)
            {
                count += n % keys == key ? 1 : 0;
            }
            for (long n = SLOW_OFFSET; n < SLOW_OFFSET + SLOW; n++)
            {
                count += n % keys == key ? 1 : 0;
            }
            return count;
        }

        boolean exact()
        {
            for (long key = 0; key < keys; key++)
            {
                if (counts.getOrDefault(key, 0L) != expected(key))
                {
                    return false;
                }
            }
            return true;
        }

        boolean atLeast()
        {
            for (long key = 0; key < keys; key++)
            {
                if (counts.getOrDefault(key, 0L) < expected(key))
                {
                    return false;
                }
            }
            return true;
        }
    }

    /** Keeps the highest count per key, doing some work per record so that the rings fill up. */
    record SlowMaxSink(Map<Long, Long> counts) implements Sink<CountingJob.Count>
    {
        @Override
        public SinkWriter<CountingJob.Count> createWriter(final SubtaskInfo subtask)
        {
            return record ->
            {
                long spin = record.count();
                for (int i = 0; i < 200; i++)
                {
                    spin = spin * 6364136223846793005L + 1442695040888963407L;
                }
                counts.merge(record.key(), record.count() + (spin == 42 ? 1 : 0), Math::max);
            };
        }
    }
}
