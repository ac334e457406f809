package io.ringflow.engine.runtime.deploy;

import io.ringflow.engine.TestBackends;
import io.ringflow.engine.TestJobs;
import io.ringflow.engine.api.DataStream;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.functions.CoProcessFunction;
import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.KeyedProcessFunction;
import io.ringflow.engine.api.functions.RuntimeContext;
import io.ringflow.engine.api.sink.CollectingSink;
import io.ringflow.engine.api.source.GeneratorSource;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random pipelines (seeded, reproducible) of map, filter, flatMap, rebalance, broadcast, keyed process, keyed reduce,
 * record-typed edges, union and keyed two-input operators, at random parallelisms, run on the specialised path
 * (private class copies per place) and on the general path: both must produce exactly what a plain in-memory model
 * of the pipeline produces. Every stage's output is, as a multiset, independent of record order, so the comparison
 * is exact at any parallelism. Keyed stages emit their per-key count, which is only right if each record's state is
 * scoped to its key's group (the key group travels in the slot header on the ring path, and is computed by the
 * operator on the chained path).
 */
class SpecializedChainsTest
{
    private static final int STAGES = 5;
    private static final long BUCKET = 1_000_000L;

    record Item(long id, String label)
    {
    }

    enum Stage
    {
        MAP, FILTER, FLAT_MAP, REBALANCE, BROADCAST, KEYED_COUNT, KEYED_REDUCE, VIA_RECORD, UNION, CONNECT_KEYED,
        UNCHAINED_MAP
    }

    /** Per key (the key is value % modulus): emits key * BUCKET + the key's count so far, shared across inputs. */
    static final class CountPerKey extends KeyedProcessFunction<Long, Long, Long>
    {
        private ValueState<Long> count;

        @Override
        public void open(final RuntimeContext context)
        {
            count = context.getState(new ValueStateDescriptor<>("count", Long.class, 0L));
        }

        @Override
        public void processElement(final Long value, final Context<Long> ctx, final Collector<Long> out)
            throws Exception
        {
            final long next = count.value() + 1;
            count.update(next);
            out.collect(ctx.getCurrentKey() * BUCKET + next);
        }
    }

    /** The two-input form of {@link CountPerKey}: both inputs count into the same per-key state. */
    static final class CountPerKeyOfBoth extends CoProcessFunction<Long, Long, Long>
    {
        private final long modulus;
        private ValueState<Long> count;

        CountPerKeyOfBoth(final long modulus)
        {
            this.modulus = modulus;
        }

        @Override
        public void open(final RuntimeContext context)
        {
            count = context.getState(new ValueStateDescriptor<>("count", Long.class, 0L));
        }

        @Override
        public void processElement1(final Long value, final Collector<Long> out) throws Exception
        {
            emit(value, out);
        }

        @Override
        public void processElement2(final Long value, final Collector<Long> out) throws Exception
        {
            emit(value, out);
        }

        private void emit(final Long value, final Collector<Long> out) throws Exception
        {
            final long next = count.value() + 1;
            count.update(next);
            out.collect(Math.floorMod(value, modulus) * BUCKET + next);
        }
    }

    static IntStream seeds()
    {
        return IntStream.range(0, 12);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void bothPathsProduceWhatTheModelProduces(final int seed) throws Exception
    {
        final List<Step> plan = plan(seed);
        final TestBackends backend = TestBackends.values()[seed % TestBackends.values().length];
        final List<Long> expected = model(plan);
        for (final boolean specialize : new boolean[] {true, false})
        {
            final List<Long> actual = run(plan, backend, specialize, "specialized-" + seed + "-" + specialize);
            assertThat(actual).as("seed %d, %s, specialized %s, plan %s", seed, backend, specialize, plan)
                .containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    /** One stage of a pipeline: what it does, at which parallelism, with which constant. */
    record Step(Stage stage, int parallelism, long constant)
    {
    }

    private static List<Step> plan(final int seed)
    {
        final Random random = new Random(seed);
        final List<Step> steps = new ArrayList<>();
        boolean broadcast = false;
        for (int i = 0; i < STAGES; i++)
        {
            Stage stage = Stage.values()[random.nextInt(Stage.values().length)];
            if (stage == Stage.BROADCAST && broadcast)
            {
                stage = Stage.MAP;
            }
            broadcast |= stage == Stage.BROADCAST;
            steps.add(new Step(stage, 1 + random.nextInt(3), 2 + random.nextInt(30)));
        }
        return steps;
    }

    private static List<Long> source(final long count, final long offset)
    {
        return LongStream.range(0, count).map(i -> i + offset).boxed().toList();
    }

    private static List<Long> model(final List<Step> plan)
    {
        List<Long> records = source(2_000, 0);
        for (final Step step : plan)
        {
            final long c = step.constant();
            final List<Long> next = new ArrayList<>();
            switch (step.stage())
            {
                case MAP, UNCHAINED_MAP -> records.forEach(v -> next.add((v * 3 + c) % 1_000_003));
                case FILTER -> records.stream().filter(v -> v % c != 0).forEach(next::add);
                case FLAT_MAP -> records.forEach(v ->
                {
                    next.add(v);
                    if (v % 2 == 0)
                    {
                        next.add(v + c);
                    }
                });
                case REBALANCE, VIA_RECORD -> next.addAll(records);
                case BROADCAST ->
                {
                    for (int p = 0; p < step.parallelism(); p++)
                    {
                        next.addAll(records);
                    }
                }
                case KEYED_COUNT -> next.addAll(countsPerKey(records, c));
                case KEYED_REDUCE -> next.addAll(reducedPerKey(records, c));
                case UNION ->
                {
                    next.addAll(records);
                    next.addAll(source(300, 10_000 * c));
                }
                case CONNECT_KEYED ->
                {
                    final List<Long> both = new ArrayList<>(records);
                    both.addAll(source(300, 10_000 * c));
                    next.addAll(countsPerKey(both, c));
                }
                default -> throw new AssertionError(step);
            }
            records = next;
        }
        return records;
    }

    /** key * BUCKET + 1 .. n for each key with n records: what a per-key count emits, in any order. */
    private static List<Long> countsPerKey(final List<Long> records, final long modulus)
    {
        final long[] perKey = new long[(int)modulus];
        final List<Long> out = new ArrayList<>();
        for (final long v : records)
        {
            final int key = (int)Math.floorMod(v, modulus);
            out.add(key * BUCKET + ++perKey[key]);
        }
        return out;
    }

    /** The key itself, then key + modulus, key + 2 * modulus, ...: a reduce that adds the modulus per record. */
    private static List<Long> reducedPerKey(final List<Long> records, final long modulus)
    {
        final long[] perKey = new long[(int)modulus];
        final List<Long> out = new ArrayList<>();
        for (final long v : records)
        {
            final int key = (int)Math.floorMod(v, modulus);
            out.add(key + modulus * perKey[key]++);
        }
        return out;
    }

    private static GeneratorSource<Long> numbers(final long count, final long offset)
    {
        return GeneratorSource.bounded(count, Long.class, (i, t) -> i + offset);
    }

    private static List<Long> run(final List<Step> plan, final TestBackends backend, final boolean specialize,
        final String name) throws Exception
    {
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .stateBackend(backend.create())
            .specializeChains(specialize)
            .ringSize(64)
            .build());
        DataStream<Long> stream = env.fromSource(numbers(2_000, 0), "numbers").setParallelism(2);
        for (final Step step : plan)
        {
            final long c = step.constant();
            final int p = step.parallelism();
            stream = switch (step.stage())
            {
                case MAP -> stream.map((Long v) -> (v * 3 + c) % 1_000_003).returns(Long.class).setParallelism(p);
                case UNCHAINED_MAP -> stream.map((Long v) -> (v * 3 + c) % 1_000_003).returns(Long.class)
                    .setParallelism(p).disableChaining();
                case FILTER -> stream.filter(v -> v % c != 0).setParallelism(p);
                case FLAT_MAP -> stream.flatMap((Long v, Collector<Long> out) ->
                {
                    out.collect(v);
                    if (v % 2 == 0)
                    {
                        out.collect(v + c);
                    }
                }).returns(Long.class).setParallelism(p);
                case REBALANCE -> stream.rebalance().map((Long v) -> v).returns(Long.class).setParallelism(p);
                case BROADCAST -> stream.broadcast().map((Long v) -> v).returns(Long.class).setParallelism(p);
                case KEYED_COUNT -> stream.keyBy(v -> Math.floorMod(v, c)).process(CountPerKey::new)
                    .returns(Long.class).setParallelism(p);
                case KEYED_REDUCE -> stream.map(v -> Math.floorMod(v, c)).returns(Long.class)
                    .keyBy(v -> v).reduce((a, b) -> a + c).setParallelism(p);
                case VIA_RECORD -> stream.map(v -> new Item(v, "item-" + v)).returns(Item.class)
                    .rebalance().map(item -> item.label().length() > 0 ? item.id() : -1L).returns(Long.class)
                    .setParallelism(p);
                case UNION -> stream.union(env.fromSource(numbers(300, 10_000 * c), "more"))
                    .map((Long v) -> v).returns(Long.class).setParallelism(p);
                case CONNECT_KEYED -> stream.keyBy(v -> Math.floorMod(v, c))
                    .connect(env.fromSource(numbers(300, 10_000 * c), "more").keyBy(v -> Math.floorMod(v, c)))
                    .process(() -> new CountPerKeyOfBoth(c)).returns(Long.class).setParallelism(p);
            };
        }
        final CollectingSink<Long> sink = new CollectingSink<>();
        stream.sinkTo(sink);
        TestJobs.awaitFinished(env.execute(name));
        return sink.results();
    }
}
