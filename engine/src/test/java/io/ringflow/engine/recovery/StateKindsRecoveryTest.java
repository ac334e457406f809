package io.ringflow.engine.recovery;

import io.ringflow.engine.TestBackends;
import io.ringflow.engine.TestJobs;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.RestartStrategy;
import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.KeyedProcessFunction;
import io.ringflow.engine.api.functions.RuntimeContext;
import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.sink.Sink;
import io.ringflow.engine.api.sink.SinkWriter;
import io.ringflow.state.keyed.AggregateFunction;
import io.ringflow.state.keyed.AggregatingState;
import io.ringflow.state.keyed.AggregatingStateDescriptor;
import io.ringflow.state.keyed.ListState;
import io.ringflow.state.keyed.ListStateDescriptor;
import io.ringflow.state.keyed.MapState;
import io.ringflow.state.keyed.MapStateDescriptor;
import io.ringflow.state.keyed.ReducingState;
import io.ringflow.state.keyed.ReducingStateDescriptor;
import org.awaitility.Awaitility;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every keyed state kind through a checkpoint, a failure and a restore, in both backends: the function keeps a map
 * (counts per residue), a list (the last three numbers), a reducing sum and an aggregating mean; after the restart its
 * final summary per key equals what a run without failure computes.
 */
class StateKindsRecoveryTest
{
    private static final long KEYS = 5;
    private static final long TOTAL = 5_000;

    /** What the function emits per record; the sink keeps the one with the highest count per key. */
    record Summary(long key, long count, long sum, double mean, List<Long> lastThree)
    {
    }

    /** The mean's accumulator. */
    record Mean(long sum, long count)
    {
    }

    @ParameterizedTest
    @EnumSource(TestBackends.class)
    void everyStateKindSurvivesAFailure(final TestBackends backend) throws Exception
    {
        final GatedSource source = new GatedSource();
        final AtomicBoolean armed = new AtomicBoolean();
        final Map<Long, Summary> latest = new ConcurrentHashMap<>();
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .stateBackend(backend.create())
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).build())
            .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO))
            .build());
        final long modulo = KEYS;
        env.fromSource(source, "numbers").uid("numbers")
            .keyBy(n -> n % modulo)
            .process(() -> new AllKinds(armed)).returns(Summary.class).uid("all-kinds")
            .sinkTo(new LatestSink(latest)).uid("sink");
        try (JobHandle handle = env.execute("state-kinds-" + backend))
        {
            source.openUpTo(2_000);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> latest.values().stream()
                .mapToLong(Summary::count).sum() == 2_000);
            handle.triggerCheckpoint().get(2, TimeUnit.MINUTES);
            armed.set(true);
            source.openUpTo(3_000);
            Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> handle.restartCount() == 1 &&
                handle.status() == JobStatus.RUNNING);
            source.finishAt(TOTAL);
            TestJobs.awaitFinished(handle);
        }
        for (long key = 0; key < KEYS; key++)
        {
            final List<Long> numbers = new ArrayList<>();
            for (long n = key; n < TOTAL; n += KEYS)
            {
                numbers.add(n);
            }
            final long sum = numbers.stream().mapToLong(Long::longValue).sum();
            final Summary summary = latest.get(key);
            assertThat(summary.count()).isEqualTo(numbers.size());
            assertThat(summary.sum()).isEqualTo(sum);
            assertThat(summary.mean()).isEqualTo((double)sum / numbers.size());
            assertThat(summary.lastThree()).isEqualTo(numbers.subList(numbers.size() - 3, numbers.size()));
        }
    }

    /** Holds every kind of keyed state; throws once when armed. */
    static class AllKinds extends KeyedProcessFunction<Long, Long, Summary>
    {
        private final AtomicBoolean armed;
        private MapState<Long, Long> countsByResidue;
        private ListState<Long> lastThree;
        private ReducingState<Long> sum;
        private AggregatingState<Long, Double> mean;

        AllKinds(final AtomicBoolean armed)
        {
            this.armed = armed;
        }

        @Override
        public void open(final RuntimeContext context)
        {
            countsByResidue = context.getMapState(new MapStateDescriptor<>("by-residue", Long.class, Long.class));
            lastThree = context.getListState(new ListStateDescriptor<>("last-three", Long.class));
            sum = context.getReducingState(new ReducingStateDescriptor<>("sum", Long::sum, Long.class));
            mean = context.getAggregatingState(new AggregatingStateDescriptor<>("mean",
                new AggregateFunction<Long, Mean, Double>()
                {
                    @Override
                    public Mean createAccumulator()
                    {
                        return new Mean(0, 0);
                    }

                    @Override
                    public Mean add(final Long value, final Mean accumulator)
                    {
                        return new Mean(accumulator.sum() + value, accumulator.count() + 1);
                    }

                    @Override
                    public Double getResult(final Mean accumulator)
                    {
                        return (double)accumulator.sum() / accumulator.count();
                    }
                }, Mean.class));
        }

        @Override
        public void processElement(final Long value, final Context<Long> ctx, final Collector<Summary> out)
        {
            if (armed.compareAndSet(true, false))
            {
                throw new IllegalStateException("injected failure at " + value);
            }
            final long residue = value % 3;
            final Long count = countsByResidue.get(residue);
            countsByResidue.put(residue, count == null ? 1 : count + 1);
            final List<Long> last = new ArrayList<>();
            lastThree.get().forEach(last::add);
            last.add(value);
            lastThree.update(last.size() > 3 ? last.subList(last.size() - 3, last.size()) : last);
            sum.add(value);
            mean.add(value);
            long total = 0;
            for (final Long perResidue : countsByResidue.values())
            {
                total += perResidue;
            }
            final List<Long> kept = new ArrayList<>();
            lastThree.get().forEach(kept::add);
            out.collect(new Summary(ctx.getCurrentKey(), total, sum.get(), mean.get(), List.copyOf(kept)));
        }
    }

    /** Keeps the summary with the highest count per key. */
    record LatestSink(Map<Long, Summary> latest) implements Sink<Summary>
    {
        @Override
        public SinkWriter<Summary> createWriter(final SubtaskInfo subtask)
        {
            return summary -> latest.merge(summary.key(), summary,
                (old, fresh) -> fresh.count() >= old.count() ? fresh : old);
        }
    }
}
