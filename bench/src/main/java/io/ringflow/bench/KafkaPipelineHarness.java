package io.ringflow.bench;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.ringflow.connectors.kafka.CommittedRecords;
import io.ringflow.connectors.kafka.DeliveryGuarantee;
import io.ringflow.connectors.kafka.KafkaRecordDeserializer;
import io.ringflow.connectors.kafka.KafkaRecordSerializer;
import io.ringflow.connectors.kafka.KafkaSink;
import io.ringflow.connectors.kafka.KafkaSource;
import io.ringflow.connectors.kafka.local.LocalKafkaBroker;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.KeyedProcessFunction;
import io.ringflow.engine.api.functions.RuntimeContext;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.keyed.LongValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Kafka → Ringflow → Kafka on a broker inside this JVM: page views keyed by app are counted per app and every new
 * count is written to an output topic with the chosen delivery guarantee.
 *
 * <ul>
 *   <li>{@code throughput EVENTS PARALLELISM GUARANTEE INTERVAL_MS}: EVENTS views are written first; the job (bounded
 *   source) reads them all and ends once its output is committed. Prints records/s from job start to FINISHED and
 *   checks the output holds one count per view ({@code read_committed}).</li>
 *   <li>{@code latency RATE SECONDS PARALLELISM GUARANTEE INTERVAL_MS}: a producer writes RATE views/s for SECONDS,
 *   each stamped with its send time; a {@code read_committed} consumer records, for every count, the time from the
 *   view's send to the count being readable (visible to {@code read_committed}). The first third is warm-up.</li>
 * </ul>
 * GUARANTEE: EXACTLY_ONCE or AT_LEAST_ONCE. Every figure is from a run whose output was checked.
 */
public final class KafkaPipelineHarness
{
    /** A page view as written to the input topic. */
    public record View(long app, long sentNanos)
    {
    }

    /** A count update as written to the output topic. */
    public record Count(long app, long count, long sentNanos)
    {
    }

    private static final int APPS = 1_000;
    /** The topics of the current round (each round, a warm-up or a measured one, has fresh topics). */
    private static String views = "views";
    private static String counts = "counts";
    private static final int PARTITIONS = 4;
    private static final Codec<View> VIEWS = CodecRegistry.withBuiltIns().codecFor(View.class);
    private static final Codec<Count> COUNTS = CodecRegistry.withBuiltIns().codecFor(Count.class);

    private KafkaPipelineHarness()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        if (!(args.length == 2 && args[0].equals("baseline")) && (args.length < 5 ||
            !(args[0].equals("throughput") || args[0].equals("latency")) ||
            (args[0].equals("latency") && args.length < 6)))
        {
            System.err.println("usage: KafkaPipelineHarness throughput EVENTS PARALLELISM GUARANTEE INTERVAL_MS | " +
                "latency RATE SECONDS PARALLELISM GUARANTEE INTERVAL_MS | baseline EVENTS");
            System.exit(2);
        }
        final long start = System.nanoTime();
        try (LocalKafkaBroker broker = LocalKafkaBroker.start())
        {
            System.out.printf("broker started in %.1f s%n", (System.nanoTime() - start) / 1e9);
            // throughput and baseline: Integer.getInteger("rounds", 3) rounds in this JVM, on fresh topics; the first
            // ones warm up the JIT (the broker and the clients are most of the code that runs)
            final int rounds = args[0].equals("latency") ? 1 : Integer.getInteger("rounds", 3);
            for (int round = 1; round <= rounds; round++)
            {
                views = "views-" + round;
                counts = "counts-" + round;
                broker.createTopic(views, PARTITIONS);
                broker.createTopic(counts, PARTITIONS);
                System.out.printf("round %d of %d%s%n", round, rounds, round < rounds ? " (warm-up)" : "");
                if (args[0].equals("baseline"))
                {
                    baseline(broker, Long.parseLong(args[1]));
                }
                else if (args[0].equals("throughput"))
                {
                    throughput(broker, Long.parseLong(args[1]), Integer.parseInt(args[2]),
                        DeliveryGuarantee.valueOf(args[3]), Long.parseLong(args[4]));
                }
            }
            if (args[0].equals("latency"))
            {
                latency(broker, Long.parseLong(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]),
                    DeliveryGuarantee.valueOf(args[4]), Long.parseLong(args[5]));
            }
        }
        System.exit(0);
    }

    private static void throughput(final LocalKafkaBroker broker, final long events, final int parallelism,
        final DeliveryGuarantee guarantee, final long intervalMs) throws Exception
    {
        produceViews(broker, events);
        final long jobStart = System.nanoTime();
        try (JobHandle job = job(broker, parallelism, guarantee, intervalMs, true).execute("kafka-throughput"))
        {
            final AtomicInteger checkpoints = new AtomicInteger();
            final Histogram syncMicros = new Histogram(3);
            job.onCheckpointCompleted(c ->
            {
                checkpoints.incrementAndGet();
                syncMicros.recordValue(c.maxSyncNanos() / 1_000);
                if (Boolean.getBoolean("harness.verbose"))
                {
                    System.out.println(c.summary());
                }
            });
            final JobStatus status = job.termination().get(30, TimeUnit.MINUTES);
            final double seconds = (System.nanoTime() - jobStart) / 1e9;
            final long[] written = {countCommitted(broker)};
            final boolean ok = status == JobStatus.FINISHED && (guarantee == DeliveryGuarantee.EXACTLY_ONCE ?
                written[0] == events : written[0] >= events);
            System.out.printf("RESULT throughput p=%d %s interval=%dms: %,d views in %.2f s = %.3f M records/s; " +
                    "%d checkpoints, slowest task's sync part p50 %.1f ms max %.1f ms (the sink's flush); output " +
                    "%,d counts (%s)%n", parallelism, guarantee, intervalMs, events, seconds, events / seconds / 1e6,
                checkpoints.get(), syncMicros.getValueAtPercentile(50) / 1e3, syncMicros.getMaxValue() / 1e3,
                written[0], ok ? "checked" : "WRONG");
            if (!ok)
            {
                System.exit(1);
            }
        }
    }

    /**
     * The same work without Ringflow: one thread polls the views (read_committed), counts per app in a HashMap and
     * sends each new count with an idempotent producer, flushed at the end. What the Kafka clients and the broker in
     * this JVM manage on this machine: the ceiling for the pipeline.
     */
    private static void baseline(final LocalKafkaBroker broker, final long events) throws InterruptedException
    {
        produceViews(broker, events);
        final long start = System.nanoTime();
        final Map<String, Object> config = new java.util.HashMap<>(Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
            ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
            ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500,
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class));
        final Map<Long, Long> perApp = new java.util.HashMap<>();
        long read = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config);
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                 ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                 ProducerConfig.ACKS_CONFIG, "all",
                 ProducerConfig.LINGER_MS_CONFIG, 5,
                 ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                 ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class)))
        {
            final List<TopicPartition> all = new ArrayList<>();
            consumer.partitionsFor(views).forEach(p -> all.add(new TopicPartition(views, p.partition())));
            consumer.assign(all);
            consumer.seekToBeginning(all);
            final CodecBuffer buffer = CodecBuffer.growable(32);
            while (read < events)
            {
                for (final ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100)))
                {
                    final View view = VIEWS.decode(CodecBuffer.wrap(record.value()), 0, record.value().length);
                    final long count = perApp.merge(view.app(), 1L, Long::sum);
                    final int length = COUNTS.encode(new Count(view.app(), count, view.sentNanos()), buffer, 0);
                    producer.send(new ProducerRecord<>(counts, Long.toString(view.app())
                        .getBytes(StandardCharsets.UTF_8), buffer.toByteArray(0, length)));
                    read++;
                }
            }
            producer.flush();
        }
        final double seconds = (System.nanoTime() - start) / 1e9;
        final long written = countCommitted(broker);
        System.out.printf("RESULT baseline (plain Kafka clients, one thread, no Ringflow): %,d views in %.2f s = " +
            "%.3f M records/s; output %,d counts (%s)%n", events, seconds, events / seconds / 1e6, written,
            written == events ? "checked" : "WRONG");
    }

    private static void produceViews(final LocalKafkaBroker broker, final long events)
    {
        final long produceStart = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer = producer(broker))
        {
            final SplittableRandom random = new SplittableRandom(7);
            final CodecBuffer buffer = CodecBuffer.growable(32);
            for (long i = 0; i < events; i++)
            {
                send(producer, buffer, random.nextInt(APPS), 0);
            }
        }
        System.out.printf("produced %,d views in %.1f s%n", events, (System.nanoTime() - produceStart) / 1e9);
    }

    private static void latency(final LocalKafkaBroker broker, final long rate, final int seconds,
        final int parallelism, final DeliveryGuarantee guarantee, final long intervalMs) throws Exception
    {
        final long total = rate * seconds;
        final Histogram visible = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        final AtomicLong seen = new AtomicLong();
        final AtomicBoolean done = new AtomicBoolean();
        final long warmupViews = total / 3;
        final Thread reader = new Thread(() -> readCommitted(broker, records ->
        {
            final long now = System.nanoTime();
            for (final ConsumerRecord<byte[], byte[]> record : records)
            {
                final Count count = COUNTS.decode(CodecBuffer.wrap(record.value()), 0, record.value().length);
                if (seen.incrementAndGet() > warmupViews)
                {
                    visible.recordValue(Math.max(0, now - count.sentNanos()));
                }
            }
        }, done::get), "visible-reader");
        reader.start();
        try (JobHandle job = job(broker, parallelism, guarantee, intervalMs, false).execute("kafka-latency");
             KafkaProducer<byte[], byte[]> producer = producer(broker))
        {
            final AtomicInteger checkpoints = new AtomicInteger();
            job.onCheckpointCompleted(c -> checkpoints.incrementAndGet());
            final SplittableRandom random = new SplittableRandom(7);
            final CodecBuffer buffer = CodecBuffer.growable(32);
            final long start = System.nanoTime();
            final long periodNanos = TimeUnit.SECONDS.toNanos(1) / rate;
            for (long i = 0; i < total; i++)
            {
                final long due = start + i * periodNanos;
                while (System.nanoTime() < due)
                {
                    Thread.onSpinWait();
                }
                // stamped with its due time: a late send counts against the pipeline (no coordinated omission)
                send(producer, buffer, random.nextInt(APPS), due);
            }
            producer.flush();
            final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            while (seen.get() < total && System.nanoTime() < deadline)
            {
                Thread.sleep(10); // the harness waits for the reader; nothing on the record path sleeps
            }
            done.set(true);
            reader.join();
            final boolean ok = guarantee == DeliveryGuarantee.EXACTLY_ONCE ? seen.get() == total :
                seen.get() >= total;
            System.out.printf("RESULT latency p=%d %s interval=%dms rate=%,d/s: produce -> visible to " +
                    "read_committed, ms p50 %.2f p90 %.2f p99 %.2f max %.2f over %,d counts after warm-up; output " +
                    "%,d of %,d (%s); %d checkpoints%n", parallelism, guarantee, intervalMs, rate,
                visible.getValueAtPercentile(50) / 1e6, visible.getValueAtPercentile(90) / 1e6,
                visible.getValueAtPercentile(99) / 1e6, visible.getMaxValue() / 1e6, visible.getTotalCount(),
                seen.get(), total, ok ? "checked" : "WRONG", checkpoints.get());
            job.cancel();
            if (!ok)
            {
                System.exit(1);
            }
        }
    }

    private static JobEnvironment job(final LocalKafkaBroker broker, final int parallelism,
        final DeliveryGuarantee guarantee, final long intervalMs, final boolean bounded)
    {
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .checkpointing(CheckpointConfig.every(Duration.ofMillis(intervalMs)).build())
            .build());
        final KafkaSource.Builder<View> source = KafkaSource.builder(View.class)
            .bootstrapServers(broker.bootstrapServers())
            .topics(views)
            .deserializer(KafkaRecordDeserializer.valueCodec(VIEWS));
        if (bounded)
        {
            source.bounded();
        }
        env.fromSource(source.build(), "views").setParallelism(parallelism)
            .keyBy(View::app)
            .process(CountPerApp::new)
            .setParallelism(parallelism)
            .sinkTo(KafkaSink.<Count>builder()
                .bootstrapServers(broker.bootstrapServers())
                .deliveryGuarantee(guarantee)
                .serializer(KafkaRecordSerializer.keyedValueCodec(counts, c -> Long.toString(c.app()), COUNTS))
                .build())
            .setParallelism(parallelism);
        return env;
    }

    /** The page-view count: one unboxed counter per app, a new count per view. */
    public static final class CountPerApp extends KeyedProcessFunction<Long, View, Count>
    {
        private LongValueState count;

        @Override
        public void open(final RuntimeContext context)
        {
            count = context.getLongState(new ValueStateDescriptor<>("count", Long.class, 0L));
        }

        @Override
        public void processElement(final View view, final Context<Long> ctx, final Collector<Count> out)
        {
            out.collect(new Count(view.app(), count.add(1), view.sentNanos()));
        }
    }

    private static KafkaProducer<byte[], byte[]> producer(final LocalKafkaBroker broker)
    {
        return new KafkaProducer<>(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
            ProducerConfig.LINGER_MS_CONFIG, 1,
            ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024));
    }

    private static void send(final KafkaProducer<byte[], byte[]> producer, final CodecBuffer buffer, final long app,
        final long sentNanos)
    {
        final int length = VIEWS.encode(new View(app, sentNanos), buffer, 0);
        producer.send(new ProducerRecord<>(views, Long.toString(app).getBytes(StandardCharsets.UTF_8),
            buffer.toByteArray(0, length)));
    }

    /** @return how many records of the round's output topic a read_committed consumer reads now. */
    private static long countCommitted(final LocalKafkaBroker broker) throws InterruptedException
    {
        // the last commits' markers reach the partitions after the job ended
        if (!CommittedRecords.awaitSettled(broker.bootstrapServers(), counts, Duration.ofMinutes(1)))
        {
            System.out.println("the output topic still has an open transaction after a minute");
        }
        final long[] count = {0};
        CommittedRecords.forEach(broker.bootstrapServers(), counts, record -> count[0]++);
        return count[0];
    }

    /** Reads the round's output topic with read_committed, handing each poll's records over, until {@code stop} says so. */
    private static void readCommitted(final LocalKafkaBroker broker,
        final java.util.function.Consumer<org.apache.kafka.clients.consumer.ConsumerRecords<byte[], byte[]>> each,
        final java.util.function.BooleanSupplier stop)
    {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(broker))
        {
            assignAll(consumer);
            while (!stop.getAsBoolean())
            {
                each.accept(consumer.poll(Duration.ofMillis(20)));
            }
        }
    }

    private static KafkaConsumer<byte[], byte[]> consumer(final LocalKafkaBroker broker)
    {
        return new KafkaConsumer<>(Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
            ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
            ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 5,
            ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000,
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class));
    }

    private static List<TopicPartition> assignAll(final KafkaConsumer<byte[], byte[]> consumer)
    {
        final List<TopicPartition> all = new ArrayList<>();
        consumer.partitionsFor(counts).forEach(p -> all.add(new TopicPartition(counts, p.partition())));
        consumer.assign(all);
        consumer.seekToBeginning(all);
        return all;
    }
}
