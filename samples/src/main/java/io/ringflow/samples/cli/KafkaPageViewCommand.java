package io.ringflow.samples.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

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
import io.ringflow.engine.api.RestartStrategy;
import io.ringflow.samples.pageview.AppCount;
import io.ringflow.samples.pageview.CountPerApp;
import io.ringflow.samples.pageview.FaultPlan;
import io.ringflow.samples.pageview.PageView;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.codec.CodecRegistry;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ringflow kafka-page-view}: the seeds' Kafka → Ringflow → Kafka pipeline, exactly once. Page views are
 * produced into an input topic, counted per app, and every new count is written to an output topic inside Kafka
 * transactions; the output, read back with {@code read_committed}, is then checked against the input.
 */
@Command(
    name = "kafka-page-view",
    header = "Kafka -> keyBy(app) -> count -> Kafka, exactly once, verified against the input.",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpAutoWidth = true,
    description = {
        "Starts a Kafka broker inside this JVM (or uses --bootstrap-servers), writes",
        "--events page views of --apps apps to the input topic (unless it already holds",
        "views: a resumed run reads the same input), runs the job until it has read the",
        "whole topic, then reads the output topic with isolation.level=read_committed and",
        "checks that every app's counts are 1..n exactly once and in order, n being the",
        "app's views in the input. --fail-at makes the job fail once (it restarts from its",
        "newest checkpoint); --resume continues a killed run from its checkpoint folder.",
        ""
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        "0:the output holds every count exactly once",
        "1:counts lost or written twice, or the job failed",
        "2:invalid command line"
    })
public final class KafkaPageViewCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT,...", description = {
        "A running Kafka cluster to use; by default a single-node broker is started",
        "inside this JVM in a temporary folder and deleted at the end."})
    private String bootstrapServers;

    @Option(names = "--events", defaultValue = "1000000", converter = CountConverter.class,
        description = "Page views to produce (default: ${DEFAULT-VALUE}; 2M and 500k work).")
    private long events;

    @Option(names = "--apps", defaultValue = "1000", description = "Distinct apps (default: ${DEFAULT-VALUE}).")
    private int apps;

    @Option(names = "--partitions", defaultValue = "4",
        description = "Partitions of each topic it creates (default: ${DEFAULT-VALUE}).")
    private int partitions;

    @Option(names = {"-p", "--parallelism"}, defaultValue = "2",
        description = "Parallelism of source, count and sink (default: ${DEFAULT-VALUE}).")
    private int parallelism;

    @Option(names = "--input-topic", defaultValue = "page-views", description = "(default: ${DEFAULT-VALUE})")
    private String inputTopic;

    @Option(names = "--output-topic", defaultValue = "app-counts", description = "(default: ${DEFAULT-VALUE})")
    private String outputTopic;

    @Option(names = "--guarantee", defaultValue = "EXACTLY_ONCE", description = {
        "EXACTLY_ONCE, AT_LEAST_ONCE or NONE: the sink's delivery guarantee",
        "(default: ${DEFAULT-VALUE}); the check then accepts duplicates, or losses too."})
    private DeliveryGuarantee guarantee;

    @Option(names = "--checkpoint-interval", defaultValue = "100", paramLabel = "MS",
        description = "Checkpoint interval in ms (default: ${DEFAULT-VALUE}).")
    private long checkpointInterval;

    @Option(names = "--checkpoint-dir", paramLabel = "DIR",
        description = "Where checkpoints go (default: a temporary folder, deleted at the end).")
    private Path checkpointDir;

    @Option(names = "--resume", description = {
        "Continue from the newest intact checkpoint in --checkpoint-dir (from scratch",
        "when there is none): what a run killed with SIGKILL is started again with."})
    private boolean resume;

    @Option(names = "--fail-at", paramLabel = "N", converter = CountConverter.class, defaultValue = "0",
        description = "Fail once at the N-th view counted; the job restarts from its newest checkpoint.")
    private long failAt;

    @Override
    public Integer call() throws Exception
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        if (events <= 0 || apps <= 0 || partitions <= 0 || parallelism <= 0 || checkpointInterval <= 0)
        {
            err.println("ringflow kafka-page-view: --events, --apps, --partitions, --parallelism and " +
                "--checkpoint-interval must be > 0");
            return 2;
        }
        if (resume && checkpointDir == null)
        {
            err.println("ringflow kafka-page-view: --resume needs --checkpoint-dir");
            return 2;
        }
        LocalKafkaBroker broker = null;
        final Path checkpoints = checkpointDir != null ? checkpointDir : Files.createTempDirectory("ringflow-chk-");
        try
        {
            if (bootstrapServers == null)
            {
                final long start = System.nanoTime();
                broker = LocalKafkaBroker.start();
                bootstrapServers = broker.bootstrapServers();
                out.printf("started a Kafka broker in this JVM at %s in %.1f s%n", bootstrapServers,
                    (System.nanoTime() - start) / 1e9);
            }
            createTopics();
            final long present = CommittedRecords.lastStableOffsets(bootstrapServers, inputTopic);
            if (present == 0)
            {
                produce(out);
            }
            else
            {
                out.printf("input topic '%s' already holds %,d records: reading those%n", inputTopic, present);
            }
            final JobStatus status = runJob(out, checkpoints);
            if (status != JobStatus.FINISHED)
            {
                return 1;
            }
            return verify(out) ? 0 : 1;
        }
        finally
        {
            if (broker != null)
            {
                broker.close();
            }
            if (checkpointDir == null)
            {
                deleteQuietly(checkpoints);
            }
        }
    }

    private JobStatus runJob(final PrintWriter out, final Path checkpoints) throws Exception
    {
        final CheckpointConfig checkpointing = CheckpointConfig.every(Duration.ofMillis(checkpointInterval))
            .directory(checkpoints).retained(2).build();
        final JobConfig.Builder config = JobConfig.builder()
            .checkpointing(checkpointing)
            .restartStrategy(RestartStrategy.fixedDelay(10, Duration.ofMillis(100)));
        if (resume)
        {
            config.resumeFrom(checkpoints);
        }
        final JobEnvironment env = JobEnvironment.create(config.build());
        final Codec<PageView> views = CodecRegistry.withBuiltIns().codecFor(PageView.class);
        final Codec<AppCount> counts = CodecRegistry.withBuiltIns().codecFor(AppCount.class);
        final var source = env.fromSource(KafkaSource.builder(PageView.class)
                .bootstrapServers(bootstrapServers)
                .topics(inputTopic)
                .deserializer(KafkaRecordDeserializer.valueCodec(views))
                .bounded()
                .build(), "kafka-views")
            .uid("kafka-views")
            .setParallelism(parallelism);
        final var counted = (failAt > 0 ? source.map(new FaultPlan(failAt, 0, 0).injector()).uid("faults")
            .setParallelism(parallelism) : source)
            .keyBy(PageView::appId)
            .process(CountPerApp::new)
            .uid("count")
            .setParallelism(parallelism);
        counted.sinkTo(KafkaSink.<AppCount>builder()
                .bootstrapServers(bootstrapServers)
                .deliveryGuarantee(guarantee)
                .transactionalIdPrefix("ringflow-kafka-page-view")
                .serializer(KafkaRecordSerializer.keyedValueCodec(outputTopic, c -> Long.toString(c.appId()),
                    counts))
                .build())
            .uid("kafka-counts")
            .setParallelism(parallelism);
        final long start = System.nanoTime();
        try (JobHandle job = env.execute("kafka-page-view"))
        {
            final AtomicInteger completed = new AtomicInteger();
            job.onCheckpointCompleted(c -> completed.incrementAndGet());
            final JobStatus status = job.termination().get(1, TimeUnit.HOURS);
            final double seconds = (System.nanoTime() - start) / 1e9;
            out.printf("job %s in %.1f s after %d restart(s), %d checkpoints completed%n", status, seconds,
                job.restartCount(), completed.get());
            job.failureCause().ifPresent(cause -> out.println("failure: " + cause));
            return status;
        }
    }

    private void createTopics() throws InterruptedException, ExecutionException
    {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers)))
        {
            for (final String topic : List.of(inputTopic, outputTopic))
            {
                try
                {
                    admin.createTopics(List.of(new NewTopic(topic, partitions, (short)1))).all().get();
                }
                catch (final ExecutionException ex)
                {
                    if (!(ex.getCause() instanceof TopicExistsException))
                    {
                        throw ex;
                    }
                }
            }
        }
    }

    /** Writes the views, keyed by app so each app's views keep their order within one partition. */
    private void produce(final PrintWriter out)
    {
        final long start = System.nanoTime();
        final Codec<PageView> codec = CodecRegistry.withBuiltIns().codecFor(PageView.class);
        final CodecBuffer buffer = CodecBuffer.growable(32);
        final SplittableRandom random = new SplittableRandom(42);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
            ProducerConfig.LINGER_MS_CONFIG, 10,
            ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024)))
        {
            for (long i = 0; i < events; i++)
            {
                final long app = random.nextInt(apps);
                final int length = codec.encode(new PageView(app, System.currentTimeMillis()), buffer, 0);
                producer.send(new ProducerRecord<>(inputTopic, Long.toString(app).getBytes(
                    java.nio.charset.StandardCharsets.UTF_8), buffer.toByteArray(0, length)));
            }
            producer.flush();
        }
        out.printf("produced %,d page views of %,d apps to '%s' (%d partitions) in %.1f s%n", events, apps,
            inputTopic, partitions, (System.nanoTime() - start) / 1e9);
    }

    /** Reads input and output with read_committed and checks every app's counts. */
    private boolean verify(final PrintWriter out) throws InterruptedException
    {
        // the job's last commits reach the output's partitions (their markers) shortly after it ended
        if (!CommittedRecords.awaitSettled(bootstrapServers, outputTopic, Duration.ofMinutes(1)))
        {
            out.printf("output topic '%s' still has an open transaction after a minute: what it holds is checked " +
                "as far as a read_committed consumer can read now%n", outputTopic);
        }
        final Map<Long, Long> expected = new HashMap<>();
        final Codec<PageView> viewCodec = CodecRegistry.withBuiltIns().codecFor(PageView.class);
        CommittedRecords.forEach(bootstrapServers, inputTopic, record -> expected.merge(viewCodec.decode(CodecBuffer.wrap(record.value()), 0,
            record.value().length).appId(), 1L, Long::sum));
        final Codec<AppCount> countCodec = CodecRegistry.withBuiltIns().codecFor(AppCount.class);
        final Map<Long, List<Long>> seen = new HashMap<>();
        final long[] updates = new long[1];
        CommittedRecords.forEach(bootstrapServers, outputTopic, record ->
        {
            final AppCount count = countCodec.decode(CodecBuffer.wrap(record.value()), 0, record.value().length);
            seen.computeIfAbsent(count.appId(), a -> new ArrayList<>()).add(count.count());
            updates[0]++;
        });
        long lost = 0;
        long duplicated = 0;
        final List<String> wrong = new ArrayList<>();
        for (final Map.Entry<Long, Long> app : expected.entrySet())
        {
            final List<Long> counts = seen.getOrDefault(app.getKey(), List.of());
            final long n = app.getValue();
            final java.util.Set<Long> distinct = new java.util.HashSet<>(counts);
            long missing = 0;
            for (long c = 1; c <= n; c++)
            {
                missing += distinct.contains(c) ? 0 : 1;
            }
            lost += missing;
            duplicated += counts.size() - distinct.size();
            boolean inOrder = counts.size() == n;
            for (int i = 0; inOrder && i < counts.size(); i++)
            {
                inOrder = counts.get(i) == i + 1;
            }
            if (!inOrder && wrong.size() < 20)
            {
                wrong.add("app " + app.getKey() + ": " + counts.size() + " updates for " + n + " views");
            }
        }
        final long views = expected.values().stream().mapToLong(Long::longValue).sum();
        out.printf("read back with read_committed: %,d views of %,d apps in '%s', %,d count updates in '%s'%n",
            views, expected.size(), inputTopic, updates[0], outputTopic);
        wrong.forEach(w -> out.println("  " + w));
        final boolean ok;
        if (guarantee == DeliveryGuarantee.EXACTLY_ONCE)
        {
            ok = wrong.isEmpty() && updates[0] == views;
            out.println(ok ? "exactly once: every app's counts 1..n, each once and in order" :
                "NOT exactly once: " + lost + " lost, " + duplicated + " duplicated");
        }
        else
        {
            ok = guarantee == DeliveryGuarantee.NONE || lost == 0;
            out.println((ok ? "ok: " : "FAILED: ") + lost + " lost, " + duplicated + " duplicated (" + guarantee +
                ")");
        }
        return ok;
    }

    private static void deleteQuietly(final Path root)
    {
        try (var paths = Files.walk(root))
        {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        catch (final IOException ignored)
        {
            // a temporary folder; the OS cleans it eventually
        }
    }
}
