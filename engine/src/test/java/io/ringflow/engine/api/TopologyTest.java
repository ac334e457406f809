package io.ringflow.engine.api;

import io.ringflow.engine.TestJobs;
import io.ringflow.engine.api.functions.CoProcessFunction;
import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.RuntimeContext;
import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.sink.CollectingSink;
import io.ringflow.engine.api.sink.Sink;
import io.ringflow.engine.api.sink.SinkWriter;
import io.ringflow.engine.api.source.CollectionSource;
import io.ringflow.engine.api.source.GeneratorSource;
import io.ringflow.state.keyed.KeyGroups;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

class TopologyTest
{
    record Tagged(int subtask, long value)
    {
    }

    /** Records (subtask index, value) for every record, to check where records went. */
    static final class SubtaskRecordingSink implements Sink<Long>
    {
        final ConcurrentLinkedQueue<Tagged> seen = new ConcurrentLinkedQueue<>();

        @Override
        public SinkWriter<Long> createWriter(final SubtaskInfo subtask)
        {
            return value -> seen.add(new Tagged(subtask.subtaskIndex(), value));
        }
    }

    private static GeneratorSource<Long> numbers(final long count)
    {
        return GeneratorSource.bounded(count, Long.class, (i, t) -> i);
    }

    @Test
    void mapFilterFlatMapChainProducesTheExpectedRecords() throws Exception
    {
        final JobEnvironment env = JobEnvironment.create();
        final CollectingSink<String> sink = new CollectingSink<>();
        env.fromSource(numbers(1000), "numbers")
            .filter(n -> n % 10 == 0)
            .map(n -> "n" + n)
            .flatMap((String s, Collector<String> out) ->
            {
                out.collect(s);
                out.collect(s + "!");
            }).returns(String.class)
            .sinkTo(sink);
        TestJobs.awaitFinished(env.execute("chain"));
        assertThat(sink.results()).hasSize(200).startsWith("n0", "n0!", "n10", "n10!");
    }

    @Test
    void keyHashSendsEveryKeyToTheSubtaskOwningItsKeyGroup() throws Exception
    {
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().maxParallelism(64).build());
        final SubtaskRecordingSink sink = new SubtaskRecordingSink();
        env.fromSource(numbers(5000), "numbers").setParallelism(2)
            .keyBy(n -> n % 101)
            .map(n -> n).setParallelism(3)
            .sinkTo(sink).setParallelism(3);
        TestJobs.awaitFinished(env.execute("key-hash"));

        assertThat(sink.seen).hasSize(5000);
        for (final Tagged tagged : sink.seen)
        {
            final int keyGroup = KeyGroups.keyGroupOf(tagged.value() % 101, 64);
            assertThat(tagged.subtask()).isEqualTo(KeyGroups.subtaskOf(keyGroup, 64, 3));
        }
    }

    @Test
    void rebalanceSpreadsRecordsEvenlyAndBroadcastCopiesThemToEverySubtask() throws Exception
    {
        final JobEnvironment env = JobEnvironment.create();
        final SubtaskRecordingSink rebalanced = new SubtaskRecordingSink();
        final SubtaskRecordingSink broadcast = new SubtaskRecordingSink();
        final DataStream<Long> numbers = env.fromSource(numbers(3000), "numbers");
        numbers.rebalance().sinkTo(rebalanced).name("rebalanced").setParallelism(3);
        numbers.broadcast().sinkTo(broadcast).name("broadcast").setParallelism(4);
        TestJobs.awaitFinished(env.execute("spread"));

        final Map<Integer, Long> perSubtask = rebalanced.seen.stream()
            .collect(Collectors.groupingBy(Tagged::subtask, Collectors.counting()));
        assertThat(perSubtask).containsOnly(Map.entry(0, 1000L), Map.entry(1, 1000L), Map.entry(2, 1000L));
        assertThat(broadcast.seen).hasSize(12_000);
        for (int subtask = 0; subtask < 4; subtask++)
        {
            final int s = subtask;
            assertThat(broadcast.seen.stream().filter(t -> t.subtask() == s).map(Tagged::value))
                .containsExactlyElementsOf(LongStream.range(0, 3000).boxed().collect(Collectors.toList()));
        }
    }

    @ParameterizedTest(name = "parallelism {0}")
    @ValueSource(ints = {1, 2, 4})
    void unionOfUnevenInputsDeliversEverythingAndEndsOnlyAfterTheLongestInput(final int parallelism)
        throws Exception
    {
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().defaultParallelism(parallelism).build());
        final CollectingSink<Long> sink = new CollectingSink<>();
        final DataStream<Long> tiny = env.fromSource(numbers(3), "tiny");
        final DataStream<Long> empty = env.fromSource(numbers(0), "empty");
        final DataStream<Long> large = env.fromSource(
            GeneratorSource.bounded(100_000, Long.class, (i, t) -> 1_000_000 + i), "large");
        tiny.union(empty, large).map(n -> n).name("after-union").sinkTo(sink);
        TestJobs.awaitFinished(env.execute("union-" + parallelism));

        final List<Long> expected = new ArrayList<>(List.of(0L, 1L, 2L));
        LongStream.range(0, 100_000).forEach(i -> expected.add(1_000_000 + i));
        final List<Long> actual = new ArrayList<>(sink.results());
        actual.sort(null);
        assertThat(actual).isEqualTo(expected);
    }

    record Order(long customer, long amount)
    {
    }

    record Customer(long id, String name)
    {
    }

    /** Joins orders to customer names by customer id: keyed state shared across both inputs. */
    static final class EnrichOrders extends CoProcessFunction<Order, Customer, String>
    {
        private ValueState<String> name;
        private ValueState<Long> pendingAmount;

        @Override
        public void open(final RuntimeContext context)
        {
            name = context.getState(new ValueStateDescriptor<>("name", String.class));
            pendingAmount = context.getState(new ValueStateDescriptor<>("pending", Long.class, 0L));
        }

        @Override
        public void processElement1(final Order order, final Collector<String> out)
        {
            final String known = name.value();
            if (known == null)
            {
                pendingAmount.update(pendingAmount.value() + order.amount());
            }
            else
            {
                out.collect(known + ":" + order.amount());
            }
        }

        @Override
        public void processElement2(final Customer customer, final Collector<String> out)
        {
            name.update(customer.name());
            if (pendingAmount.value() > 0)
            {
                out.collect(customer.name() + ":" + pendingAmount.value());
                pendingAmount.clear();
            }
        }
    }

    @ParameterizedTest(name = "parallelism {0}")
    @ValueSource(ints = {1, 3})
    void keyedTwoInputOperatorSharesStatePerKeyAcrossBothInputs(final int parallelism) throws Exception
    {
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().defaultParallelism(parallelism).build());
        final List<Order> orderList = new ArrayList<>();
        for (long i = 0; i < 3000; i++)
        {
            orderList.add(new Order(i % 30, 1));
        }
        final List<Customer> customers = new ArrayList<>();
        for (long c = 0; c < 30; c++)
        {
            customers.add(new Customer(c, "c" + c));
        }
        final CollectingSink<String> sink = new CollectingSink<>();
        final DataStream<Order> orders = env.fromSource(new CollectionSource<>(orderList, Order.class), "orders");
        final DataStream<Customer> people = env.fromSource(new CollectionSource<>(customers, Customer.class), "people");
        orders.keyBy(Order::customer)
            .connect(people.keyBy(Customer::id))
            .process(EnrichOrders::new).name("enrich")
            .sinkTo(sink);
        TestJobs.awaitFinished(env.execute("enrich-" + parallelism));

        final Map<String, Long> totals = new ConcurrentHashMap<>();
        for (final String line : sink.results())
        {
            final String[] parts = line.split(":");
            totals.merge(parts[0], Long.parseLong(parts[1]), Long::sum);
        }
        assertThat(totals).hasSize(30);
        assertThat(totals.values()).allMatch(total -> total == 100);
    }

    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.EnumSource(io.ringflow.engine.api.CheckpointingMode.class)
    void aBarrierInjectedAtTheSourcesReachesEverySinkThroughUnionsAndShuffles(
        final io.ringflow.engine.api.CheckpointingMode mode) throws Exception
    {
        final JobEnvironment env = JobEnvironment.create(
            JobConfig.builder().defaultParallelism(2).checkpointingMode(mode).build());
        final DataStream<Long> a = env.fromSource(GeneratorSource.unbounded(Long.class, (i, t) -> i), "a");
        final DataStream<Long> b = env.fromSource(numbers(10), "b-ends-early");
        a.union(b).keyBy(n -> n % 7).map(n -> n + 1).sinkTo(new io.ringflow.engine.api.sink.DiscardSink<>());
        try (JobHandle job = env.execute("barriers-" + mode))
        {
            for (int i = 0; i < 3; i++)
            {
                // complete = every task, sinks included, passed the barrier (or ended) and acknowledged it
                final io.ringflow.engine.api.CompletedCheckpoint checkpoint =
                    job.triggerCheckpoint().get(TestJobs.HANG_GUARD.toMinutes(), java.util.concurrent.TimeUnit.MINUTES);
                assertThat(checkpoint.subtasks()).isNotEmpty();
            }
            assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
        }
    }

    /** Not a record: needs a user codec to cross a channel. */
    static final class Celsius
    {
        final double degrees;

        Celsius(final double degrees)
        {
            this.degrees = degrees;
        }
    }

    static final class CelsiusCodec implements io.ringflow.state.codec.Codec<Celsius>
    {
        int encoded;

        @Override
        public Class<Celsius> type()
        {
            return Celsius.class;
        }

        @Override
        public int encode(final Celsius value, final io.ringflow.state.codec.CodecBuffer buffer, final int offset)
        {
            encoded++;
            buffer.putDouble(offset, value.degrees);
            return Double.BYTES;
        }

        @Override
        public Celsius decode(final io.ringflow.state.codec.CodecBuffer buffer, final int offset, final int length)
        {
            return new Celsius(buffer.getDouble(offset));
        }
    }

    @Test
    void aUserCodecCarriesItsTypeAcrossAChannel() throws Exception
    {
        final CelsiusCodec codec = new CelsiusCodec();
        final JobEnvironment env = JobEnvironment.create().registerCodec(Celsius.class, codec);
        final CollectingSink<Double> sink = new CollectingSink<>();
        env.fromSource(numbers(100), "numbers")
            .map(n -> new Celsius(n / 2.0)).name("to-celsius")
            .rebalance()
            .map(c -> c.degrees).setParallelism(2)
            .sinkTo(sink).setParallelism(2);
        TestJobs.awaitFinished(env.execute("user-codec"));
        assertThat(sink.results()).hasSize(100).contains(0.0, 24.5, 49.5);
        assertThat(codec.encoded).isEqualTo(100);
    }

    @Test
    void threadsPinnedToCoresRunTheJobToTheSameResult() throws Exception
    {
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().defaultParallelism(2).cpus(0).build());
        final CollectingSink<Long> sink = new CollectingSink<>();
        env.fromSource(numbers(10_000), "numbers").keyBy(n -> n % 10).map(n -> n).sinkTo(sink);
        TestJobs.awaitFinished(env.execute("pinned"));
        final List<Long> sorted = new ArrayList<>(sink.results());
        sorted.sort(null);
        assertThat(sorted).isEqualTo(LongStream.range(0, 10_000).boxed().collect(Collectors.toList()));
    }
}
