package io.ringflow.engine.api;

import io.ringflow.engine.TestJobs;
import io.ringflow.engine.api.functions.CheckpointedFunction;
import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.OperatorListState;
import io.ringflow.engine.api.functions.RichFilterFunction;
import io.ringflow.engine.api.functions.RichFlatMapFunction;
import io.ringflow.engine.api.functions.RichMapFunction;
import io.ringflow.engine.api.functions.RuntimeContext;
import io.ringflow.engine.api.functions.StateInitializationContext;
import io.ringflow.engine.api.sink.CollectingSink;
import io.ringflow.engine.api.source.CollectionSource;
import io.ringflow.engine.api.source.GeneratorSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a Flink user reaches for first: rich map, filter and flatMap functions with a lifecycle and a context, one
 * instance per subtask from a factory; keyed reduce and the keyed aggregations; the checkpointing shortcuts.
 */
class FunctionsApiTest
{
    /** One view of a page: {@code app} is its key. */
    record View(long app, int millis, String page)
    {
    }

    /** Tags each number with its subtask; counts what it saw and says so when closed. */
    static final class Tagger extends RichMapFunction<Long, String>
    {
        static final Map<Integer, Long> SEEN_AT_CLOSE = new ConcurrentHashMap<>();
        private int subtask;
        private int parallelism;
        private long seen;

        @Override
        public void open(final RuntimeContext context)
        {
            subtask = context.subtaskIndex();
            parallelism = context.parallelism();
        }

        @Override
        public String map(final Long value)
        {
            seen++;
            return subtask + "/" + parallelism + ":" + value;
        }

        @Override
        public void close()
        {
            SEEN_AT_CLOSE.put(subtask, seen);
        }
    }

    @Test
    void richFunctionsFromAFactoryGetTheirOwnInstanceAContextAndALifecycle() throws Exception
    {
        Tagger.SEEN_AT_CLOSE.clear();
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().defaultParallelism(2).build());
        final CollectingSink<String> sink = new CollectingSink<>();
        env.fromSource(GeneratorSource.bounded(1_000, Long.class, (i, t) -> i), "numbers")
            .filter(() -> new RichFilterFunction<Long>()
            {
                private int subtask = -1;

                @Override
                public void open(final RuntimeContext context)
                {
                    subtask = context.subtaskIndex();
                }

                @Override
                public boolean filter(final Long value)
                {
                    assertThat(subtask).as("opened before the first record").isNotNegative();
                    return value % 10 != 0;
                }
            })
            .map(Tagger::new).returns(String.class)
            .<String>flatMap(() -> new RichFlatMapFunction<String, String>()
            {
                @Override
                public void flatMap(final String value, final Collector<String> out)
                {
                    out.collect(value);
                }
            }).returns(String.class)
            .sinkTo(sink);
        TestJobs.awaitFinished(env.execute("rich"));

        assertThat(sink.results()).hasSize(900);
        final Set<String> tags = sink.results().stream().map(r -> r.substring(0, r.indexOf(':')))
            .collect(Collectors.toSet());
        assertThat(tags).containsExactlyInAnyOrder("0/2", "1/2");
        assertThat(Tagger.SEEN_AT_CLOSE).containsOnlyKeys(0, 1);
        assertThat(Tagger.SEEN_AT_CLOSE.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(900);
    }

    @Test
    void aSharedRichFunctionWithFieldsAtParallelismAboveOneIsRefusedPointingToTheFactory()
    {
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().defaultParallelism(2).build());
        env.fromSource(GeneratorSource.bounded(10, Long.class, (i, t) -> i), "numbers")
            .map(new Tagger()).returns(String.class).sinkTo(new CollectingSink<>());
        assertThatThrownBy(() -> env.execute("shared"))
            .isInstanceOf(InvalidJobException.class)
            .hasMessageContaining("operator 'Map'").hasMessageContaining("fields");
    }

    @Test
    void keyedReduceAndAggregationsEmitTheRunningValuePerKey() throws Exception
    {
        final List<View> views = List.of(
            new View(1, 30, "a"), new View(2, 10, "b"), new View(1, 20, "c"), new View(1, 50, "d"),
            new View(2, 40, "e"));
        final Map<String, CollectingSink<View>> sinks = new TreeMap<>();
        final JobEnvironment env = JobEnvironment.create();
        final DataStream<View> source = env.fromSource(new CollectionSource<>(views, View.class), "views");
        for (final String kind : List.of("sum", "min", "max", "minBy", "maxBy", "reduce"))
        {
            final CollectingSink<View> sink = new CollectingSink<>();
            sinks.put(kind, sink);
            final KeyedStream<Long, View> keyed = source.keyBy(View::app);
            final DataStream<View> out = switch (kind)
            {
                case "sum" -> keyed.sum("millis");
                case "min" -> keyed.min("millis");
                case "max" -> keyed.max("millis");
                case "minBy" -> keyed.minBy("millis");
                case "maxBy" -> keyed.maxBy("millis");
                default -> keyed.reduce((a, b) -> new View(a.app(), a.millis() + b.millis(), a.page() + b.page()));
            };
            out.sinkTo(sink);
        }
        TestJobs.awaitFinished(env.execute("aggregations"));

        // per key, in order: key 1 sees 30, 20, 50 (pages a, c, d); key 2 sees 10, 40 (pages b, e)
        assertThat(last(sinks.get("sum"))).containsExactly(new View(1, 100, "a"), new View(2, 50, "b"));
        assertThat(last(sinks.get("min"))).containsExactly(new View(1, 20, "a"), new View(2, 10, "b"));
        assertThat(last(sinks.get("max"))).containsExactly(new View(1, 50, "a"), new View(2, 40, "b"));
        assertThat(last(sinks.get("minBy"))).containsExactly(new View(1, 20, "c"), new View(2, 10, "b"));
        assertThat(last(sinks.get("maxBy"))).containsExactly(new View(1, 50, "d"), new View(2, 40, "e"));
        assertThat(last(sinks.get("reduce"))).containsExactly(new View(1, 100, "acd"), new View(2, 50, "be"));
        assertThat(sinks.get("sum").results()).as("one running value per record").hasSize(5);
    }

    /** An amount for a key. */
    record Amount(long key, long value)
    {
    }

    @Test
    void aRunningSumPerKeyIsExactAfterAFailure() throws Exception
    {
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO)).build())
            .enableCheckpointing(Duration.ofMillis(5));
        final CollectingSink<Amount> sink = new CollectingSink<>();
        final FailOnce failOnce = new FailOnce();
        final io.ringflow.engine.recovery.GatedSource numbers = new io.ringflow.engine.recovery.GatedSource();
        env.fromSource(numbers, "numbers").uid("numbers")
            .map(failOnce).returns(Long.class)
            .map(n -> new Amount(n % 3, n)).returns(Amount.class)
            .keyBy(Amount::key).sum("value").uid("sums")
            .sinkTo(sink);
        try (JobHandle handle = env.execute("sum-amounts"))
        {
            numbers.openUpTo(10_000);
            org.awaitility.Awaitility.await().atMost(TestJobs.HANG_GUARD)
                .until(() -> !handle.completedCheckpoints().isEmpty() && sink.size() >= 10_000);
            failOnce.armed = true;
            numbers.finishAt(20_000);
            TestJobs.awaitFinished(handle);
            assertThat(handle.restartCount()).isEqualTo(1);
        }
        // running sums only grow: the largest per key is the final one, exact although the failure replayed records
        final Map<Long, Long> finalSums = new TreeMap<>();
        for (final Amount amount : sink.results())
        {
            finalSums.merge(amount.key(), amount.value(), Math::max);
        }
        for (long key = 0; key < 3; key++)
        {
            final long k = key;
            assertThat(finalSums.get(key)).as("sum of key %d", key)
                .isEqualTo(LongStream.range(0, 20_000).filter(n -> n % 3 == k).sum());
        }
    }

    @Test
    void aStreamOfNumbersIsSummedAndBoundedPerKey() throws Exception
    {
        final JobEnvironment env = JobEnvironment.create();
        final DataStream<Long> numbers =
            env.fromSource(GeneratorSource.bounded(1_000, Long.class, (i, t) -> i), "numbers");
        final CollectingSink<Long> sums = new CollectingSink<>();
        final CollectingSink<Long> mins = new CollectingSink<>();
        final CollectingSink<Long> maxs = new CollectingSink<>();
        numbers.keyBy(n -> 0L).sum().sinkTo(sums);
        numbers.keyBy(n -> 0L).min().sinkTo(mins);
        numbers.keyBy(n -> 0L).max().sinkTo(maxs);
        TestJobs.awaitFinished(env.execute("numbers"));
        assertThat(sums.results()).hasSize(1_000).last().isEqualTo(999L * 1_000 / 2);
        assertThat(mins.results()).last().isEqualTo(0L);
        assertThat(maxs.results()).last().isEqualTo(999L);
    }

    /** Once armed, throws at the next record, once. */
    static final class FailOnce implements io.ringflow.engine.api.functions.MapFunction<Long, Long>
    {
        volatile boolean armed;

        @Override
        public Long map(final Long value)
        {
            if (armed)
            {
                armed = false;
                throw new IllegalStateException("injected");
            }
            return value;
        }
    }

    /** Keeps, in operator state, how many records its subtask mapped. */
    static final class CountingMap extends RichMapFunction<Long, Long> implements CheckpointedFunction
    {
        private OperatorListState<Long> state;
        private long count;

        @Override
        public void initializeState(final StateInitializationContext context)
        {
            state = context.getListState("count", Long.class);
            for (final long value : state.get())
            {
                count += value;
            }
        }

        @Override
        public Long map(final Long value)
        {
            return ++count;
        }

        @Override
        public void snapshotState(final long checkpointId)
        {
            state.update(List.of(count));
        }
    }

    @Test
    void aRichMapKeepsOperatorStateThroughACheckpointInADirectory(@TempDir final Path dir) throws Exception
    {
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).directory(dir).build()).build());
        final CollectingSink<Long> sink = new CollectingSink<>();
        final io.ringflow.engine.recovery.GatedSource gate = new io.ringflow.engine.recovery.GatedSource();
        env.fromSource(gate, "numbers").uid("numbers").map(CountingMap::new).returns(Long.class).uid("counting")
            .sinkTo(sink);
        final CompletedCheckpoint checkpoint;
        try (JobHandle handle = env.execute("counting"))
        {
            gate.openUpTo(100);
            org.awaitility.Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> sink.size() == 100);
            checkpoint = handle.triggerCheckpoint().get();
        }
        assertThat(Files.exists(dir.resolve("chk-" + checkpoint.checkpointId()).resolve("_metadata"))).isTrue();

        final CollectingSink<Long> again = new CollectingSink<>();
        final io.ringflow.engine.recovery.GatedSource gate2 = new io.ringflow.engine.recovery.GatedSource();
        final JobEnvironment restored = JobEnvironment.create(JobConfig.builder()
            .restoreFrom(dir.resolve("chk-" + checkpoint.checkpointId())).build());
        restored.fromSource(gate2, "numbers").uid("numbers").map(CountingMap::new).returns(Long.class)
            .uid("counting").sinkTo(again);
        try (JobHandle handle = restored.execute("counting-restored"))
        {
            gate2.finishAt(150);
            TestJobs.awaitFinished(handle);
        }
        final List<Long> counts = new ArrayList<>(again.results());
        assertThat(counts).as("the count continues from the checkpoint").startsWith(101L).endsWith(150L);
    }

    @Test
    void aggregationsOfUnknownOrNonNumericFieldsAreRefusedWhenDescribed()
    {
        final JobEnvironment env = JobEnvironment.create();
        final KeyedStream<Long, View> keyed = env.fromSource(new CollectionSource<>(List.of(), View.class), "views")
            .keyBy(View::app);
        assertThatThrownBy(() -> keyed.sum("seconds")).isInstanceOf(InvalidJobException.class)
            .hasMessageContaining("no component 'seconds'").hasMessageContaining("[app, millis, page]");
        assertThatThrownBy(() -> keyed.max("page")).isInstanceOf(InvalidJobException.class)
            .hasMessageContaining("'page'").hasMessageContaining("not a number");
        assertThatThrownBy(keyed::sum).isInstanceOf(InvalidJobException.class)
            .hasMessageContaining("needs a stream of numbers");
        final KeyedStream<Long, Long> numbers = env.fromSource(CollectionSource.of(Long.class, 1L), "n").keyBy(n -> n);
        assertThatThrownBy(() -> numbers.sum("x")).isInstanceOf(InvalidJobException.class)
            .hasMessageContaining("not a Java record");
        assertThatThrownBy(() -> CheckpointConfig.every(Duration.ofSeconds(1)).directory(Path.of("/proc/none/x")))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/proc/none/x");
    }

    /** The last value emitted per key, in key order. */
    private static List<View> last(final CollectingSink<View> sink)
    {
        final Map<Long, View> last = new TreeMap<>();
        for (final View view : sink.results())
        {
            last.put(view.app(), view);
        }
        return new ArrayList<>(last.values());
    }
}
