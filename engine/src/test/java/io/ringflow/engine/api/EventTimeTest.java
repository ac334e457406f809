package io.ringflow.engine.api;

import io.ringflow.engine.TestJobs;
import io.ringflow.engine.api.eventtime.WatermarkGenerator;
import io.ringflow.engine.api.eventtime.WatermarkOutput;
import io.ringflow.engine.api.eventtime.WatermarkStrategy;
import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.KeyedProcessFunction;
import io.ringflow.engine.api.functions.OutputTag;
import io.ringflow.engine.api.functions.TimeDomain;
import io.ringflow.engine.api.sink.CollectingSink;
import io.ringflow.engine.api.source.CollectionSource;
import io.ringflow.engine.api.source.GeneratorSource;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Event time end to end: timestamps across rings, watermarks from a strategy, event-time and processing-time timers
 * in a keyed process function, bounded firing, side outputs.
 */
class EventTimeTest
{
    /** An event of key {@code key} at event time {@code time}. */
    record Event(long key, long time)
    {
    }

    /** What a timer or a record saw. */
    record Seen(long key, long time, long watermark, String what)
    {
    }

    /**
     * Counts each key's events per 10 ms bucket and emits the count when the watermark passes the bucket's end:
     * a hand-written tumbling window on event-time timers.
     */
    static final class BucketCount extends KeyedProcessFunction<Long, Event, String>
    {
        private io.ringflow.state.keyed.MapState<Long, Long> counts;

        @Override
        public void open(final io.ringflow.engine.api.functions.RuntimeContext context)
        {
            counts = context.getMapState(new io.ringflow.state.keyed.MapStateDescriptor<>("counts", Long.class,
                Long.class));
        }

        @Override
        public void processElement(final Event value, final Context<Long> ctx, final Collector<String> out)
            throws Exception
        {
            if (ctx.timestamp() != value.time())
            {
                throw new AssertionError("the record's timestamp " + ctx.timestamp() + " is not its time " + value);
            }
            final long bucketEnd = value.time() / 10 * 10 + 9;
            if (ctx.timerService().currentWatermark() >= bucketEnd)
            {
                throw new AssertionError("late event " + value + " at watermark " +
                    ctx.timerService().currentWatermark());
            }
            ctx.timerService().registerEventTimeTimer(bucketEnd);
            final Long count = counts.get(bucketEnd);
            counts.put(bucketEnd, count == null ? 1 : count + 1);
        }

        @Override
        public void onTimer(final long timestamp, final OnTimerContext<Long> ctx, final Collector<String> out)
            throws Exception
        {
            if (ctx.timeDomain() != TimeDomain.EVENT_TIME || ctx.timestamp() != timestamp)
            {
                throw new AssertionError(ctx.timeDomain() + " " + ctx.timestamp());
            }
            out.collect(ctx.getCurrentKey() + "@" + timestamp + "=" + counts.get(timestamp));
            counts.remove(timestamp);
        }
    }

    @Test
    void eventTimeTimersFireWhenTheWatermarkPassesThemAcrossRingsAndAtTheEndOfInput() throws Exception
    {
        // in order per key and bucket, so the pending counter is one bucket's: each key's events are sorted by time
        final List<Event> events = new ArrayList<>();
        final SplittableRandom random = new SplittableRandom(7);
        long time = 0;
        for (int i = 0; i < 5_000; i++)
        {
            time += random.nextInt(3);
            events.add(new Event(random.nextInt(20), time));
        }
        final Map<String, Long> expected = new TreeMap<>();
        for (final Event e : events)
        {
            expected.merge(e.key() + "@" + (e.time() / 10 * 10 + 9), 1L, Long::sum);
        }

        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().defaultParallelism(2)
            .stateBackend(new io.ringflow.state.heap.HeapStateBackend()).build());
        final CollectingSink<String> sink = new CollectingSink<>();
        env.fromSource(CollectionSource.of(Event.class, events.toArray(new Event[0])), "events").setParallelism(1)
            .assignTimestampsAndWatermarks(WatermarkStrategy.<Event>forGenerator(PerEventWatermarks::new)
                .withTimestampAssigner((e, previous) -> e.time()))
            .setParallelism(1)
            .keyBy(Event::key)
            .process(BucketCount::new)
            .sinkTo(sink);
        TestJobs.awaitFinished(env.execute("event-time-timers"));

        final Map<String, Long> actual = new TreeMap<>();
        for (final String line : sink.results())
        {
            final String[] parts = line.split("=");
            assertThat(actual.put(parts[0], Long.parseLong(parts[1]))).as("fired once: %s", line).isNull();
        }
        assertThat(actual).isEqualTo(expected);
    }

    /** Emits the watermark just below each record's time: punctuated, so the test needs no clock. */
    static final class PerEventWatermarks implements WatermarkGenerator<Event>
    {
        @Override
        public void onEvent(final Event event, final long timestamp, final WatermarkOutput output)
        {
            output.emitWatermark(timestamp - 1);
        }

        @Override
        public void onPeriodicEmit(final WatermarkOutput output)
        {
        }
    }

    /** Registers one event-time timer per event at the event's time; on each timer emits what it saw. */
    static final class TimerPerEvent extends KeyedProcessFunction<Long, Event, Seen>
    {
        @Override
        public void processElement(final Event value, final Context<Long> ctx, final Collector<Seen> out)
        {
            ctx.timerService().registerEventTimeTimer(value.time());
        }

        @Override
        public void onTimer(final long timestamp, final OnTimerContext<Long> ctx, final Collector<Seen> out)
        {
            out.collect(new Seen(ctx.getCurrentKey(), timestamp, ctx.timerService().currentWatermark(), "timer"));
        }
    }

    /** Downstream: what watermark it had when each timer's output arrived, and the output's timestamp. */
    static final class WatermarkWitness extends KeyedProcessFunction<Long, Seen, Seen>
    {
        @Override
        public void processElement(final Seen value, final Context<Long> ctx, final Collector<Seen> out)
        {
            out.collect(new Seen(value.key(), ctx.timestamp(), ctx.timerService().currentWatermark(), "downstream"));
        }

        @Override
        public void onTimer(final long timestamp, final OnTimerContext<Long> ctx, final Collector<Seen> out)
        {
        }
    }

    @Test
    void boundedFiringForwardsTheWatermarkOnlyAsFarAsItFiredAndKeepsItsProgress() throws Exception
    {
        final int timers = 20_000;
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().timerFiringBatch(100)
            .stateBackend(new io.ringflow.state.heap.HeapStateBackend()).build());
        final CollectingSink<Seen> sink = new CollectingSink<>();
        // every timer is due only at the end of the input (the final watermark): one pass of 20,000 timers
        env.fromSource(GeneratorSource.bounded(timers, Event.class, (i, t) -> new Event(i % 97, i)), "events")
            .assignTimestampsAndWatermarks(WatermarkStrategy.<Event>noWatermarks()
                .withTimestampAssigner((e, previous) -> e.time()))
            .keyBy(Event::key)
            .process(TimerPerEvent::new)
            .disableChaining()
            .keyBy(Seen::key)
            .process(WatermarkWitness::new)
            .sinkTo(sink);
        TestJobs.awaitFinished(env.execute("bounded-firing"));

        final List<Seen> seen = sink.results();
        assertThat(seen).hasSize(timers);
        final List<Long> watermarks = new ArrayList<>();
        for (final Seen s : seen)
        {
            assertThat(s.time()).as("a timer's output carries the timer's time").isBetween(0L, (long)timers - 1);
            assertThat(s.watermark()).as("the watermark downstream never passes a timer not yet fired")
                .isLessThan(s.time());
            if (watermarks.isEmpty() || watermarks.get(watermarks.size() - 1) != s.watermark())
            {
                watermarks.add(s.watermark());
            }
        }
        assertThat(watermarks.size()).as("the pass was fired in batches of 100 and each forwarded its progress")
            .isGreaterThanOrEqualTo(timers / 100 - 1);
    }

    /** Sends odd keys to a side output, even ones to the main output. */
    static final class SplitByParity extends KeyedProcessFunction<Long, Event, Long>
    {
        static final OutputTag<String> ODD = new OutputTag<>("odd", String.class);

        @Override
        public void processElement(final Event value, final Context<Long> ctx, final Collector<Long> out)
        {
            if (value.key() % 2 == 0)
            {
                out.collect(value.key());
            }
            else
            {
                ctx.output(ODD, "odd " + value.key());
            }
        }
    }

    @Test
    void sideOutputsReachTheirOwnStreamChainedOrAcrossRings() throws Exception
    {
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().defaultParallelism(2).build());
        final CollectingSink<Long> even = new CollectingSink<>();
        final CollectingSink<String> odd = new CollectingSink<>();
        final CollectingSink<String> oddAgain = new CollectingSink<>();
        final DataStream<Long> main = env.fromSource(GeneratorSource.bounded(1_000, Event.class,
                (i, t) -> new Event(i, i)), "events")
            .keyBy(Event::key)
            .process(SplitByParity::new);
        main.sinkTo(even);
        main.getSideOutput(SplitByParity.ODD).sinkTo(odd);
        main.getSideOutput(SplitByParity.ODD).rebalance().map(s -> s).returns(String.class).setParallelism(1)
            .sinkTo(oddAgain);
        TestJobs.awaitFinished(env.execute("side-outputs"));

        assertThat(even.results()).hasSize(500).allMatch(k -> k % 2 == 0);
        assertThat(odd.results()).hasSize(500).allMatch(s -> s.startsWith("odd "));
        assertThat(oddAgain.results().stream().sorted().collect(Collectors.toList()))
            .isEqualTo(odd.results().stream().sorted().collect(Collectors.toList()));
    }

    /** A clock a test moves by hand. */
    static final class ManualClock extends java.time.Clock
    {
        private volatile long millis;

        ManualClock(final long start)
        {
            millis = start;
        }

        void advance(final long by)
        {
            millis += by;
        }

        @Override
        public long millis()
        {
            return millis;
        }

        @Override
        public java.time.Instant instant()
        {
            return java.time.Instant.ofEpochMilli(millis);
        }

        @Override
        public java.time.ZoneId getZone()
        {
            return java.time.ZoneOffset.UTC;
        }

        @Override
        public java.time.Clock withZone(final java.time.ZoneId zone)
        {
            return this;
        }
    }

    /** Registers a processing-time timer 1 s after each key's first record, then deletes half of them. */
    static final class RemindOnce extends KeyedProcessFunction<Long, Event, String>
    {
        static final java.util.concurrent.atomic.AtomicLong SEEN = new java.util.concurrent.atomic.AtomicLong();

        @Override
        public void processElement(final Event value, final Context<Long> ctx, final Collector<String> out)
        {
            SEEN.incrementAndGet();
            final long at = ctx.currentProcessingTime() + 1_000;
            ctx.timerService().registerProcessingTimeTimer(at);
            ctx.timerService().registerProcessingTimeTimer(at);
            if (value.key() % 2 == 1)
            {
                ctx.timerService().deleteProcessingTimeTimer(at);
            }
        }

        @Override
        public void onTimer(final long timestamp, final OnTimerContext<Long> ctx, final Collector<String> out)
        {
            out.collect(ctx.timeDomain() + " " + ctx.getCurrentKey() + " at " + timestamp + " ts " + ctx.timestamp());
        }
    }

    @Test
    void processingTimeTimersFireFromTheInjectedClockOncePerKeyAndTimeAndDeletionHolds() throws Exception
    {
        RemindOnce.SEEN.set(0);
        final ManualClock clock = new ManualClock(1_000_000);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().clock(clock).build());
        final CollectingSink<String> sink = new CollectingSink<>();
        env.fromSource(GeneratorSource.unbounded(Event.class, (i, t) -> new Event(i % 10, i)), "events")
            .keyBy(Event::key)
            .process(RemindOnce::new)
            .sinkTo(sink);
        final JobHandle job = env.execute("processing-time-timers");
        try
        {
            org.awaitility.Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> RemindOnce.SEEN.get() > 1_000);
            assertThat(sink.results()).as("the clock has not moved: nothing is due").isEmpty();
            clock.advance(1_000);
            org.awaitility.Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> sink.size() >= 5);
            assertThat(sink.results()).containsExactlyInAnyOrder(
                "PROCESSING_TIME 0 at 1001000 ts " + Long.MIN_VALUE,
                "PROCESSING_TIME 2 at 1001000 ts " + Long.MIN_VALUE,
                "PROCESSING_TIME 4 at 1001000 ts " + Long.MIN_VALUE,
                "PROCESSING_TIME 6 at 1001000 ts " + Long.MIN_VALUE,
                "PROCESSING_TIME 8 at 1001000 ts " + Long.MIN_VALUE);
        }
        finally
        {
            job.cancel();
            job.awaitTermination(TestJobs.HANG_GUARD);
        }
    }

    @Test
    void aNegativeTimestampIsRefusedNamingTheOperatorUnlessTheStrategyAllowsIt() throws Exception
    {
        final JobEnvironment env = JobEnvironment.create(JobConfig.defaults());
        env.fromSource(CollectionSource.of(Event.class, new Event(1, 5), new Event(1, -3)), "events")
            .assignTimestampsAndWatermarks(WatermarkStrategy.<Event>forMonotonousTimestamps()
                .withTimestampAssigner((e, previous) -> e.time()))
            .name("stamp")
            .sinkTo(new CollectingSink<>());
        final JobHandle job = env.execute("negative");
        assertThatThrownBy(() -> job.awaitTermination(TestJobs.HANG_GUARD)).rootCause()
            .hasMessageContaining("'stamp'").hasMessageContaining("negative timestamp -3")
            .hasMessageContaining("allowingNegativeTimestamps");

        final JobEnvironment allowed = JobEnvironment.create(JobConfig.defaults());
        final CollectingSink<Event> sink = new CollectingSink<>();
        allowed.fromSource(CollectionSource.of(Event.class, new Event(1, 5), new Event(1, -3)), "events")
            .assignTimestampsAndWatermarks(WatermarkStrategy.<Event>forMonotonousTimestamps()
                .withTimestampAssigner((e, previous) -> e.time()).allowingNegativeTimestamps())
            .sinkTo(sink);
        TestJobs.awaitFinished(allowed.execute("negative-allowed"));
        assertThat(sink.results()).hasSize(2);
    }

    /** Registers a timer but has no onTimer. */
    static final class TimerWithoutOnTimer extends KeyedProcessFunction<Long, Event, String>
    {
        @Override
        public void processElement(final Event value, final Context<Long> ctx, final Collector<String> out)
        {
            ctx.timerService().registerEventTimeTimer(1);
        }
    }

    @Test
    void aTimerFromAFunctionWithoutOnTimerIsAClearError() throws Exception
    {
        final JobEnvironment env = JobEnvironment.create(JobConfig.defaults());
        env.fromSource(CollectionSource.of(Event.class, new Event(1, 5)), "events")
            .keyBy(Event::key).process(TimerWithoutOnTimer::new).name("no-on-timer").sinkTo(new CollectingSink<>());
        final JobHandle job = env.execute("no-on-timer");
        assertThatThrownBy(() -> job.awaitTermination(TestJobs.HANG_GUARD)).rootCause()
            .hasMessageContaining("'no-on-timer'").hasMessageContaining("does not override onTimer");
    }

    @Test
    void anIdleSubtaskDoesNotHoldTheWatermarkBackOnceItsIdlenessTimeoutPassed() throws Exception
    {
        // every record has key 0, so one of the two assigner subtasks never sees one: it goes idle after 1 s of
        // (manual) processing time, and only then may the watermark downstream (minimum of both) advance
        final ManualClock clock = new ManualClock(0);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().clock(clock)
            .autoWatermarkInterval(Duration.ofMillis(100)).build());
        final CollectingSink<Seen> sink = new CollectingSink<>();
        env.fromSource(GeneratorSource.unbounded(Event.class, (i, t) -> new Event(0, i)), "events")
            .setParallelism(1)
            .keyBy(Event::key)
            .assignTimestampsAndWatermarks(WatermarkStrategy.<Event>forMonotonousTimestamps()
                .withTimestampAssigner((e, previous) -> e.time()).withIdleness(Duration.ofSeconds(1)))
            .setParallelism(2)
            .keyBy(Event::key)
            .process(TimerPerEvent::new)
            .setParallelism(1)
            .sinkTo(sink);
        final JobHandle job = env.execute("idleness");
        try
        {
            final long[] movedAtFirstOutput = {-1};
            org.awaitility.Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() ->
            {
                if (sink.size() > 0)
                {
                    movedAtFirstOutput[0] = clock.millis();
                    return true;
                }
                clock.advance(100);
                return false;
            });
            assertThat(movedAtFirstOutput[0]).as("nothing fired before the empty subtask's idleness timeout")
                .isGreaterThanOrEqualTo(1_000);
            assertThat(sink.results().get(0).what()).isEqualTo("timer");
        }
        finally
        {
            job.cancel();
            job.awaitTermination(TestJobs.HANG_GUARD);
        }
    }

    /** An order of {@code id} at {@code time}; a payment of an order. */
    record Order(long id, long time)
    {
    }

    /** A payment of order {@code id} at {@code time}. */
    record Payment(long id, long time)
    {
    }

    /**
     * Joins orders with their payments by order id: an order waits 10 time units (an event-time timer) for its
     * payment, then is reported paid or unpaid; payments with no order go to a side output. The two inputs are
     * independent sources, so a key's payment may reach the function before its order: the payment is remembered
     * and registers a timer of its own, and only that timer (which fires once the watermark has passed it, after
     * every order of the test has arrived) decides that a payment had no order.
     */
    static final class PaidWithin extends io.ringflow.engine.api.functions.KeyedCoProcessFunction<Long, Order, Payment,
        String>
    {
        static final OutputTag<Long> ORPHAN = new OutputTag<>("orphan-payment", Long.class);
        private io.ringflow.state.keyed.ValueState<Long> due;
        private io.ringflow.state.keyed.ValueState<Long> paidAt;

        @Override
        public void open(final io.ringflow.engine.api.functions.RuntimeContext context)
        {
            due = context.getState(new io.ringflow.state.keyed.ValueStateDescriptor<>("due", Long.class));
            paidAt = context.getState(new io.ringflow.state.keyed.ValueStateDescriptor<>("paid-at", Long.class));
        }

        @Override
        public void processElement1(final Order order, final Context<Long> ctx, final Collector<String> out)
        {
            due.update(order.time() + 10);
            ctx.timerService().registerEventTimeTimer(order.time() + 10);
        }

        @Override
        public void processElement2(final Payment payment, final Context<Long> ctx, final Collector<String> out)
        {
            paidAt.update(ctx.timestamp());
            ctx.timerService().registerEventTimeTimer(ctx.timestamp());
        }

        @Override
        public void onTimer(final long timestamp, final OnTimerContext<Long> ctx, final Collector<String> out)
        {
            final Long orderDue = due.value();
            final Long payment = paidAt.value();
            if (orderDue != null && timestamp == orderDue)
            {
                out.collect(ctx.getCurrentKey() + (payment != null && payment <= orderDue ? " paid" : " unpaid"));
                due.clear();
                paidAt.clear();
            }
            else if (orderDue == null && payment != null && timestamp == payment)
            {
                ctx.output(ORPHAN, ctx.getCurrentKey());
                paidAt.clear();
            }
        }
    }

    @Test
    void aKeyedCoProcessFunctionHasTimersAndSideOutputsSharedByKeyAcrossItsInputs() throws Exception
    {
        // order i at time 100 i; paid at 100 i + 5 when i % 3 == 0, too late (+ 20) when i % 3 == 1, never else;
        // a payment of order -1 has no order
        final List<Order> orders = new ArrayList<>();
        final List<Payment> payments = new ArrayList<>();
        final List<String> expected = new ArrayList<>();
        for (long i = 0; i < 300; i++)
        {
            orders.add(new Order(i, 100 * i));
            if (i % 3 == 0)
            {
                payments.add(new Payment(i, 100 * i + 5));
            }
            else if (i % 3 == 1)
            {
                payments.add(new Payment(i, 100 * i + 20));
            }
            expected.add(i + (i % 3 == 0 ? " paid" : " unpaid"));
        }
        payments.add(new Payment(-1, 7));
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().defaultParallelism(2).build());
        final DataStream<Order> orderStream = env.fromSource(CollectionSource.of(Order.class,
            orders.toArray(new Order[0])), "orders").setParallelism(1)
            .assignTimestampsAndWatermarks(WatermarkStrategy.<Order>forGenerator(OrderWatermarks::new)
                .withTimestampAssigner((o, previous) -> o.time())).setParallelism(1);
        final DataStream<Payment> paymentStream = env.fromSource(CollectionSource.of(Payment.class,
            payments.toArray(new Payment[0])), "payments").setParallelism(1)
            .assignTimestampsAndWatermarks(WatermarkStrategy.<Payment>noWatermarks()
                .withTimestampAssigner((p, previous) -> p.time())).setParallelism(1);
        final CollectingSink<String> sink = new CollectingSink<>();
        final CollectingSink<Long> orphans = new CollectingSink<>();
        final DataStream<String> joined = orderStream.keyBy(Order::id).connect(paymentStream.keyBy(Payment::id))
            .process(PaidWithin::new);
        joined.sinkTo(sink);
        joined.getSideOutput(PaidWithin.ORPHAN).sinkTo(orphans);
        TestJobs.awaitFinished(env.execute("keyed-co-process-timers"));

        assertThat(sink.results()).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(orphans.results()).containsExactly(-1L);
    }

    /** No watermark from the orders until their end: every order's timer fires at the end of the input. */
    static final class OrderWatermarks implements WatermarkGenerator<Order>
    {
        @Override
        public void onEvent(final Order event, final long timestamp, final WatermarkOutput output)
        {
        }

        @Override
        public void onPeriodicEmit(final WatermarkOutput output)
        {
        }
    }

    /** Sends every record to a side output, nothing to its main output. */
    static final class AllToSide extends KeyedProcessFunction<Long, Event, Long>
    {
        static final OutputTag<Event> SIDE = new OutputTag<>("side", Event.class);

        @Override
        public void processElement(final Event value, final Context<Long> ctx, final Collector<Long> out)
        {
            ctx.output(SIDE, value);
        }
    }

    @Test
    void watermarksReachSideOutputsChainedAndAcrossRings() throws Exception
    {
        // unbounded: the timers downstream of the side output can only fire if watermarks reach them
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().defaultParallelism(2).build());
        final CollectingSink<Seen> chained = new CollectingSink<>();
        final CollectingSink<Seen> acrossRings = new CollectingSink<>();
        final DataStream<Long> main = env.fromSource(GeneratorSource.unbounded(Event.class,
                (i, t) -> new Event(i % 5, i)), "events").setParallelism(1)
            .assignTimestampsAndWatermarks(WatermarkStrategy.<Event>forGenerator(PerEventWatermarks::new)
                .withTimestampAssigner((e, previous) -> e.time())).setParallelism(1)
            .keyBy(Event::key)
            .process(AllToSide::new);
        main.sinkTo(new io.ringflow.engine.api.sink.DiscardSink<>());
        final DataStream<Event> side = main.getSideOutput(AllToSide.SIDE);
        side.keyBy(Event::key).process(TimerPerEvent::new).sinkTo(acrossRings);
        side.map(e -> new Seen(e.key(), e.time(), 0, "side")).returns(Seen.class)
            .keyBy(Seen::key).process(WatermarkWitness::new).sinkTo(chained);
        final JobHandle job = env.execute("side-output-watermarks");
        try
        {
            org.awaitility.Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() -> acrossRings.size() > 1_000);
            org.awaitility.Awaitility.await().atMost(TestJobs.HANG_GUARD).until(() ->
                chained.results().stream().anyMatch(s -> s.watermark() > 1_000));
        }
        finally
        {
            job.cancel();
            job.awaitTermination(TestJobs.HANG_GUARD);
        }
    }

    @Test
    void lateRecordsWithoutASideOutputAreDroppedAndCountedInTheJobsMetrics() throws Exception
    {
        // the watermark trails each event by one: (1, 50) comes after the watermark passed its window's end
        final JobEnvironment env = JobEnvironment.create(JobConfig.defaults());
        final CollectingSink<Long> sink = new CollectingSink<>();
        env.fromSource(CollectionSource.of(Event.class, new Event(1, 100), new Event(1, 230), new Event(1, 50),
                new Event(1, 60), new Event(1, 240)), "events")
            .assignTimestampsAndWatermarks(WatermarkStrategy.<Event>forGenerator(PerEventWatermarks::new)
                .withTimestampAssigner((e, previous) -> e.time()))
            .keyBy(Event::key)
            .window(io.ringflow.engine.api.windowing.WindowAssigner.tumblingEventTime(Duration.ofMillis(100)))
            .aggregate(new CountEvents())
            .sinkTo(sink);
        try (JobHandle job = env.execute("late-dropped"))
        {
            TestJobs.awaitFinished(job);
            assertThat(job.mxBean().getLateRecordsDropped()).isEqualTo(2);
        }
        assertThat(sink.results()).as("[100, 200) and [200, 300)").containsExactlyInAnyOrder(1L, 2L);
    }

    /** Counts a window's events. */
    public static final class CountEvents implements io.ringflow.state.keyed.AggregateFunction<Event, Long, Long>
    {
        @Override
        public Long createAccumulator()
        {
            return 0L;
        }

        @Override
        public Long add(final Event value, final Long accumulator)
        {
            return accumulator + 1;
        }

        @Override
        public Long getResult(final Long accumulator)
        {
            return accumulator;
        }
    }

    @Test
    void eventTimeWindowsWithNoWatermarksUpstreamGetAWarningAtExecute() throws Exception
    {
        final java.util.List<String> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
        final java.util.logging.Logger logger = java.util.logging.Logger.getLogger(
            "io.ringflow.engine.runtime.deploy.GraphResolver");
        final java.util.logging.Handler handler = new java.util.logging.Handler()
        {
            @Override
            public void publish(final java.util.logging.LogRecord record)
            {
                if (record.getLevel() == java.util.logging.Level.WARNING)
                {
                    warnings.add(record.getMessage());
                }
            }

            @Override
            public void flush()
            {
            }

            @Override
            public void close()
            {
            }
        };
        logger.addHandler(handler);
        try
        {
            final JobEnvironment env = JobEnvironment.create(JobConfig.defaults());
            env.fromSource(GeneratorSource.bounded(0, Event.class, (i, t) -> new Event(i, i)), "events")
                .keyBy(Event::key)
                .window(io.ringflow.engine.api.windowing.WindowAssigner.tumblingEventTime(Duration.ofMinutes(1)))
                .aggregate(new CountEvents()).name("never-fires")
                .sinkTo(new CollectingSink<>());
            TestJobs.awaitFinished(env.execute("no-watermarks"));
        }
        finally
        {
            logger.removeHandler(handler);
        }
        assertThat(warnings).anySatisfy(w -> assertThat(w).contains("never-fires")
            .contains("no assignTimestampsAndWatermarks"));
    }
}
