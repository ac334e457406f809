package io.ringflow.engine.windowing;

import io.ringflow.engine.TestBackends;
import io.ringflow.engine.TestJobs;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CheckpointingMode;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.RestartStrategy;
import io.ringflow.engine.api.sink.CollectingSink;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Windows survive failures in every barrier mode and on both backends: a job that fails once midway (and restarts
 * from whatever checkpoint completed before, or from the start) ends with the same final result per window as the
 * model. Records come within the out-of-orderness here: a restored task starts from no watermark (as in Flink), so a
 * record late before a failure could be on time after it; without late records the results are the same either way.
 */
class WindowRecoveryTest
{
    enum Mode
    {
        ALIGNED, UNALIGNED, ALIGNED_WITH_TIMEOUT, AT_LEAST_ONCE
    }

    @Test
    void finalWindowResultsAreTheModelsAfterAFailureInEveryModeAndBackend() throws Exception
    {
        // The seeds are fixed on purpose. A restore starts the watermark again from none, so after a failure the
        // watermark is lower than the model's for a while; with session windows, a record touching the end of a
        // session the model had already fired would then merge into it in the job and not in the model. None of
        // these seeds' session cases has such a record (checked by replaying them); a new seed or generator change
        // needs the same check, or merging assigners left out as in WindowModelTest's several-source cases.
        long seed = 1_000;
        for (final TestBackends backend : TestBackends.values())
        {
            for (final Mode mode : Mode.values())
            {
                seed++;
                final WindowModelTest.Case generated = WindowModelTest.randomCase(seed, false);
                final WindowModelTest.Case c = new WindowModelTest.Case(seed, generated.assigner(),
                    generated.lateness(), generated.delay(), generated.function(), generated.parallelism(), backend,
                    generated.events());
                final CheckpointConfig.Builder checkpoints = CheckpointConfig.every(Duration.ofMillis(5));
                if (mode == Mode.UNALIGNED)
                {
                    checkpoints.unaligned(true);
                }
                if (mode == Mode.ALIGNED_WITH_TIMEOUT)
                {
                    checkpoints.alignedTimeout(Duration.ofMillis(1));
                }
                final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
                    .stateBackend(WindowModelTest.backendOf(c))
                    .checkpointingMode(mode == Mode.AT_LEAST_ONCE ? CheckpointingMode.AT_LEAST_ONCE :
                        CheckpointingMode.EXACTLY_ONCE)
                    .checkpointing(checkpoints.build())
                    .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO))
                    .readBatch(16)
                    .build());
                final CollectingSink<WindowModelTest.Result> sink = new CollectingSink<>();
                final CollectingSink<WindowModelTest.Event> late = new CollectingSink<>();
                WindowModelTest.FailOnce.ARMED.put(seed, new AtomicLong(c.events().size() / 2));
                WindowModelTest.windows(env, c, late).sinkTo(sink);
                try (JobHandle handle = env.execute("window-recovery-" + seed))
                {
                    TestJobs.awaitFinished(handle);
                    assertThat(handle.restartCount()).as("the failure was injected").isEqualTo(1);
                }
                final WindowModel model = WindowModel.run(c.events(), c.assigner(), c.lateness(), c.delay());
                final List<WindowModelTest.Result> expected = new ArrayList<>();
                for (final WindowModel.Firing firing : model.firings())
                {
                    expected.add(new WindowModelTest.Result(firing.key(), firing.start(), firing.end(),
                        c.function() == WindowModelTest.Function.REDUCE ? -1 : firing.count(), firing.sum()));
                }
                assertThat(WindowModelTest.finalResults(sink.results())).as("seed %d %s %s %s", seed, backend, mode,
                    c.assigner()).isEqualTo(WindowModelTest.finalResults(expected));
                assertThat(late.results()).isEmpty();
            }
        }
    }

    /** Emits events {@code [0, limit)} of a list; its position is the next index. */
    static final class GatedEvents implements io.ringflow.engine.api.source.Source<WindowModelTest.Event>
    {
        private final List<WindowModelTest.Event> events;
        private final AtomicLong limit = new AtomicLong();
        private final AtomicLong emitted = new AtomicLong();
        private volatile boolean finish;

        GatedEvents(final List<WindowModelTest.Event> events)
        {
            this.events = events;
        }

        @Override
        public Class<WindowModelTest.Event> producedType()
        {
            return WindowModelTest.Event.class;
        }

        @Override
        public boolean isBounded()
        {
            return true;
        }

        @Override
        public int maxParallelism()
        {
            return 1;
        }

        @Override
        public io.ringflow.engine.api.source.SourceReader<WindowModelTest.Event> createReader(
            final io.ringflow.engine.api.functions.SubtaskInfo subtask)
        {
            return new io.ringflow.engine.api.source.SourceReader<>()
            {
                private long next;

                @Override
                public int pollNext(final io.ringflow.engine.api.functions.Collector<WindowModelTest.Event> output,
                    final int maxRecords)
                {
                    int count = 0;
                    while (count < maxRecords && next < limit.get())
                    {
                        output.collect(events.get((int)next++));
                        count++;
                    }
                    emitted.set(next);
                    if (count == 0 && finish && next >= events.size())
                    {
                        return END_OF_INPUT;
                    }
                    return count;
                }

                @Override
                public long position()
                {
                    return next;
                }

                @Override
                public void seek(final long position)
                {
                    next = position;
                }
            };
        }
    }

    @Test
    void windowStateAndTimersFollowTheirKeysToAnotherParallelism(@org.junit.jupiter.api.io.TempDir final
        java.nio.file.Path dir) throws Exception
    {
        long seed = 2_000;
        for (final TestBackends backend : TestBackends.values())
        {
            for (final int[] parallelisms : new int[][] {{2, 3}, {3, 1}})
            {
                seed++;
                final WindowModelTest.Case generated = WindowModelTest.randomCase(seed, false);
                final WindowModelTest.Case c = new WindowModelTest.Case(seed, generated.assigner(),
                    generated.lateness(), generated.delay(), generated.function(), parallelisms[0], backend,
                    generated.events());
                final java.nio.file.Path checkpoints = dir.resolve("case-" + seed);
                final CollectingSink<WindowModelTest.Result> sink = new CollectingSink<>();
                final CollectingSink<WindowModelTest.Event> late = new CollectingSink<>();
                final GatedEvents first = new GatedEvents(c.events());
                final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
                    .stateBackend(WindowModelTest.backendOf(c))
                    .checkpointing(CheckpointConfig.every(Duration.ofDays(1))
                        .storage(new io.ringflow.state.checkpoint.DirectoryCheckpointStorage(checkpoints)).build())
                    .build());
                WindowModelTest.windows(env, c, late, first).sinkTo(sink);
                final io.ringflow.engine.api.CompletedCheckpoint savepoint;
                try (JobHandle handle = env.execute("window-rescale-" + seed))
                {
                    final int half = c.events().size() / 2;
                    first.limit.set(half);
                    org.awaitility.Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> first.emitted.get() ==
                        half);
                    savepoint = handle.stopWithSavepoint().get(2, java.util.concurrent.TimeUnit.MINUTES);
                    handle.awaitTermination(TestJobs.HANG_GUARD);
                }
                final GatedEvents second = new GatedEvents(c.events());
                second.limit.set(c.events().size());
                second.finish = true;
                final WindowModelTest.Case rescaled = new WindowModelTest.Case(seed, c.assigner(), c.lateness(),
                    c.delay(), c.function(), parallelisms[1], backend, c.events());
                final JobEnvironment restored = JobEnvironment.create(JobConfig.builder()
                    .stateBackend(WindowModelTest.backendOf(rescaled))
                    .restoreFrom(checkpoints.resolve("chk-" + savepoint.checkpointId())).build());
                WindowModelTest.windows(restored, rescaled, late, second).sinkTo(sink);
                try (JobHandle handle = restored.execute("window-rescaled-" + seed))
                {
                    TestJobs.awaitFinished(handle);
                }
                final WindowModel model = WindowModel.run(c.events(), c.assigner(), c.lateness(), c.delay());
                final List<WindowModelTest.Result> expected = new ArrayList<>();
                for (final WindowModel.Firing firing : model.firings())
                {
                    expected.add(new WindowModelTest.Result(firing.key(), firing.start(), firing.end(),
                        c.function() == WindowModelTest.Function.REDUCE ? -1 : firing.count(), firing.sum()));
                }
                assertThat(WindowModelTest.finalResults(sink.results())).as("seed %d %s p %d -> %d %s", seed,
                    backend, parallelisms[0], parallelisms[1], c.assigner())
                    .isEqualTo(WindowModelTest.finalResults(expected));
            }
        }
    }
}
