package io.ringflow.engine.recovery;

import io.ringflow.engine.TestJobs;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.IdleStrategyKind;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.state.checkpoint.DirectoryCheckpointStorage;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The unaligned barrier path under randomized, seeded conditions: ring sizes down to 16 slots, read and publish
 * batches from 1 up, idle strategies, unaligned or aligned-with-a-timeout, checkpoints every millisecond on the
 * two-input job of {@link CutConsistencyTest}. Every sampled checkpoint, restored into a fresh job, must end exactly
 * at the failure-free result: announcements, overtaken records, recorded channels and skipped barrier slots must add
 * up to one consistent cut whatever the interleaving. A failing seed reproduces its configuration (printed).
 */
class UnalignedCutStressTest
{
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 23, 37, 41, 59, 67, 71, 83, 97, 101, 113, 127, 131, 149, 151, 163, 173, 181, 191, 199})
    void everySampledCheckpointIsAConsistentCut(final long seed, @TempDir final Path dir) throws Exception
    {
        final Random random = new Random(seed);
        final int ring = 16 << random.nextInt(4);
        final int readBatch = 1 + random.nextInt(64);
        final int publishBatch = 1 + random.nextInt(ring - 1);
        final IdleStrategyKind idle = random.nextBoolean() ? IdleStrategyKind.BACKOFF : IdleStrategyKind.BLOCK;
        final boolean unaligned = random.nextInt(3) > 0;
        final String configuration = "seed " + seed + ": ring " + ring + ", read batch " + readBatch +
            ", publish batch " + publishBatch + ", " + idle + ", " + (unaligned ? "unaligned" : "aligned timeout");

        final CheckpointConfig.Builder checkpoints = CheckpointConfig.every(Duration.ofMillis(1))
            .storage(new DirectoryCheckpointStorage(dir)).retained(1_000).retainOnCancel(true);
        if (unaligned)
        {
            checkpoints.unaligned(true);
        }
        else
        {
            checkpoints.alignedTimeout(Duration.ofNanos(1 + random.nextInt(200_000)));
        }
        final JobConfig.Builder config = JobConfig.builder().ringSize(ring).readBatch(readBatch)
            .publishBatch(publishBatch).idleStrategy(idle).checkpointing(checkpoints.build());

        final CutConsistencyTest.TwoInputJob first = new CutConsistencyTest.TwoInputJob();
        final JobEnvironment env = JobEnvironment.create(config.build());
        first.build(env);
        final List<CompletedCheckpoint> completed;
        try (JobHandle handle = env.execute("stress-" + seed))
        {
            first.fast.openUpTo(first.fastTotal - 1);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> handle.completedCheckpoints().size() >= 6);
            first.fast.finishAt(first.fastTotal);
            TestJobs.awaitFinished(handle);
            completed = new ArrayList<>(handle.completedCheckpoints());
        }
        assertThat(first.exact()).as("failure-free run, %s", configuration).isTrue();
        completed.removeIf(checkpoint -> checkpoint.sourcePositions().get("fast").get(0) >= first.fastTotal);
        assertThat(completed).as(configuration).isNotEmpty();

        // the oldest and the newest: how many completed depends on the machine, the rule for choosing does not
        for (int sample = 0; sample < 2; sample++)
        {
            final CompletedCheckpoint checkpoint = completed.get(sample == 0 ? 0 : completed.size() - 1);
            final CutConsistencyTest.TwoInputJob restored = new CutConsistencyTest.TwoInputJob();
            restored.fastTotal = first.fastTotal + 11;
            final JobEnvironment again = JobEnvironment.create(config.checkpointing(null)
                .restoreFrom(dir.resolve("chk-" + checkpoint.checkpointId())).build());
            restored.build(again);
            try (JobHandle handle = again.execute("stress-" + seed + "-restored-" + sample))
            {
                restored.fast.finishAt(restored.fastTotal);
                TestJobs.awaitFinished(handle);
            }
            assertThat(restored.exact()).as("checkpoint %d (%s), %s", checkpoint.checkpointId(),
                checkpoint.summary(), configuration).isTrue();
        }
    }
}
