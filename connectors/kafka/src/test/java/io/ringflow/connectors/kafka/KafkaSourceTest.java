package io.ringflow.connectors.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import io.ringflow.connectors.kafka.local.LocalKafkaBroker;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.InvalidJobException;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.RestartStrategy;
import io.ringflow.engine.api.sink.CollectingSink;
import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.codec.LongCodec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Kafka source against a real (in-process) broker: discovery, rescaling, start positions and bad input. */
class KafkaSourceTest
{
    private static final Duration GUARD = Duration.ofMinutes(2);
    private static LocalKafkaBroker broker;

    @BeforeAll
    static void startBroker() throws Exception
    {
        broker = LocalKafkaBroker.start();
    }

    @AfterAll
    static void stopBroker()
    {
        broker.close();
    }

    private static KafkaSource.Builder<Long> numbers(final String topic)
    {
        return KafkaSource.builder(Long.class)
            .bootstrapServers(broker.bootstrapServers())
            .topics(topic)
            .deserializer(KafkaRecordDeserializer.valueCodec(LongCodec.INSTANCE));
    }

    private static List<Long> range(final long from, final long to)
    {
        return LongStream.range(from, to).boxed().collect(Collectors.toList());
    }

    private static List<Long> sorted(final List<Long> values)
    {
        final List<Long> copy = new ArrayList<>(values);
        copy.sort(null);
        return copy;
    }

    @Test
    void partitionsAddedWhileRunningAreDiscoveredAndReadFromTheirStart() throws Exception
    {
        broker.createTopic("growing", 1);
        KafkaTestSupport.produceNumbers(broker.bootstrapServers(), "growing", 1, 0, 100);
        final CollectingSink<Long> sink = new CollectingSink<>();
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().build());
        env.fromSource(numbers("growing").partitionDiscovery(Duration.ofMillis(50)).build(), "numbers")
            .setParallelism(2)
            .sinkTo(sink);
        try (JobHandle job = env.execute("discovery"))
        {
            Awaitility.await().atMost(GUARD).until(() -> sink.size() == 100);
            broker.growTopic("growing", 4);
            // written to all four partitions, three of them new: found by discovery, read from offset 0
            KafkaTestSupport.produceNumbers(broker.bootstrapServers(), "growing", 4, 100, 400);
            Awaitility.await().atMost(GUARD).until(() -> sink.size() >= 400);
            job.cancel();
        }
        assertThat(sorted(sink.results())).isEqualTo(range(0, 400));
    }

    @Test
    void restoreAtAnotherParallelismHandsEveryPartitionWithItsOffsetToItsNewOwner(@TempDir final Path dir)
        throws Exception
    {
        broker.createTopic("rescaled", 5);
        KafkaTestSupport.produceNumbers(broker.bootstrapServers(), "rescaled", 5, 0, 1_000);
        final CollectingSink<Long> before = new CollectingSink<>();
        final JobEnvironment first = JobEnvironment.create(JobConfig.builder()
            .checkpointing(CheckpointConfig.every(Duration.ofDays(1)).directory(dir).build())
            .build());
        first.fromSource(numbers("rescaled").build(), "numbers").uid("numbers").setParallelism(2)
            .sinkTo(before).uid("sink");
        final CompletedCheckpoint savepoint;
        try (JobHandle job = first.execute("rescale-1"))
        {
            Awaitility.await().atMost(GUARD).until(() -> before.size() >= 300);
            savepoint = job.stopWithSavepoint().get(2, TimeUnit.MINUTES);
            assertThat(job.termination().get(2, TimeUnit.MINUTES)).isEqualTo(JobStatus.CANCELED);
        }
        KafkaTestSupport.produceNumbers(broker.bootstrapServers(), "rescaled", 5, 1_000, 2_000);

        final CollectingSink<Long> after = new CollectingSink<>();
        final JobEnvironment second = JobEnvironment.create(JobConfig.builder()
            .restoreFrom(dir.resolve("chk-" + savepoint.checkpointId())).build());
        second.fromSource(numbers("rescaled").bounded().build(), "numbers").uid("numbers").setParallelism(3)
            .sinkTo(after).uid("sink");
        try (JobHandle job = second.execute("rescale-2"))
        {
            assertThat(job.termination().get(2, TimeUnit.MINUTES)).as("%s", job.failureCause())
                .isEqualTo(JobStatus.FINISHED);
        }
        final List<Long> all = new ArrayList<>(before.results());
        all.addAll(after.results());
        assertThat(sorted(all)).as("each record once over both runs").isEqualTo(range(0, 2_000));
        assertThat(after.results()).doesNotContainAnyElementsOf(before.results());
    }

    /**
     * A bounded source subtask that finished has no state in later checkpoints; a restore from one must not read
     * its partitions again. Reader level, deterministic: former parallelism 2, restored at 1; the former owner of
     * partition 0 had finished, the owner of partition 1 had read 3 records.
     */
    @Test
    void aPartitionWhoseFormerOwnerFinishedIsNotReadAgainOnRestore() throws Exception
    {
        broker.createTopic("finished-owner", 2);
        KafkaTestSupport.produceNumbers(broker.bootstrapServers(), "finished-owner", 2, 0, 20);
        final boolean zeroOwnsPartition0 = KafkaSource.owner("finished-owner", 0, 2) == 0;
        final List<Long> formerPositions = zeroOwnsPartition0 ? List.of(KafkaSourceReader.FINISHED, 3L) :
            List.of(3L, KafkaSourceReader.FINISHED);
        // partition 1 holds 1, 3, ..., 19 at offsets 0..9: from offset 3 on, 7..19
        assertThat(sorted(restoreAndRead(formerPositions))).isEqualTo(List.of(7L, 9L, 11L, 13L, 15L, 17L, 19L));
        // the control: without the finished position, partition 0 (0, 2, ..., 18) would be read again
        assertThat(restoreAndRead(null)).contains(0L, 2L, 18L);
    }

    private List<Long> restoreAndRead(final List<Long> formerPositions) throws Exception
    {
        final io.ringflow.engine.runtime.task.OperatorStateStore former =
            new io.ringflow.engine.runtime.task.OperatorStateStore(io.ringflow.state.codec.CodecRegistry.withBuiltIns());
        former.getUnionListState(KafkaSourceReader.OFFSETS_STATE, PartitionOffset.class)
            .add(new PartitionOffset("finished-owner", 1, 3));
        final io.ringflow.engine.runtime.task.OperatorStateStore store =
            new io.ringflow.engine.runtime.task.OperatorStateStore(io.ringflow.state.codec.CodecRegistry.withBuiltIns());
        store.restore(List.of(Map.entry("former", former.snapshot())), 0, 1,
            io.ringflow.engine.runtime.task.OperatorStateStore.DEAL);
        final KafkaSource<Long> source = numbers("finished-owner").bounded().build();
        final KafkaSourceReader<Long> reader = (KafkaSourceReader<Long>)source.createReader(
            new io.ringflow.engine.api.functions.SubtaskInfo()
            {
                @Override
                public String jobName()
                {
                    return "restore";
                }

                @Override
                public String operatorName()
                {
                    return "numbers";
                }

                @Override
                public int subtaskIndex()
                {
                    return 0;
                }

                @Override
                public int parallelism()
                {
                    return 1;
                }
            });
        if (formerPositions != null)
        {
            reader.restoreFormerPositions(formerPositions);
        }
        reader.initializeState(store);
        final List<Long> read = new ArrayList<>();
        try
        {
            final long deadline = System.nanoTime() + GUARD.toNanos();
            while (reader.pollNext(read::add, 100) != io.ringflow.engine.api.source.SourceReader.END_OF_INPUT)
            {
                assertThat(System.nanoTime()).as("the bounded reader ends").isLessThan(deadline);
            }
        }
        finally
        {
            reader.close();
        }
        return read;
    }

    @Test
    void startsAtTheFirstRecordAtOrAfterATimestamp() throws Exception
    {
        broker.createTopic("timed", 2);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class)))
        {
            final CodecBuffer buffer = CodecBuffer.allocate(8);
            for (long n = 0; n < 200; n++)
            {
                final int length = LongCodec.INSTANCE.encode(n, buffer, 0);
                // record n is stamped 1,000,000 + n ms
                producer.send(new ProducerRecord<>("timed", (int)(n % 2), 1_000_000L + n, null,
                    buffer.toByteArray(0, length)));
            }
        }
        final CollectingSink<Long> sink = new CollectingSink<>();
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().build());
        env.fromSource(numbers("timed").startingOffsets(StartingOffsets.timestamp(1_000_150L)).bounded().build(),
            "numbers").sinkTo(sink);
        try (JobHandle job = env.execute("timestamp"))
        {
            assertThat(job.termination().get(2, TimeUnit.MINUTES)).isEqualTo(JobStatus.FINISHED);
        }
        assertThat(sorted(sink.results())).isEqualTo(range(150, 200));
    }

    @Test
    void committedGroupOffsetsFollowCompletedCheckpointsAndCanBeStartedFrom() throws Exception
    {
        broker.createTopic("grouped", 2);
        KafkaTestSupport.produceNumbers(broker.bootstrapServers(), "grouped", 2, 0, 500);
        final CollectingSink<Long> first = new CollectingSink<>();
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .checkpointing(CheckpointConfig.every(Duration.ofMillis(20)).build()).build());
        env.fromSource(numbers("grouped").groupId("monitor").commitOffsetsOnCheckpoint().build(), "numbers")
            .sinkTo(first);
        try (JobHandle job = env.execute("group-commit"))
        {
            Awaitility.await().atMost(GUARD).until(() -> first.size() == 500);
            // once a checkpoint after the 500th record completed, the group's offsets reach the end
            Awaitility.await().atMost(GUARD).until(() -> broker.admin().listConsumerGroupOffsets("monitor")
                .partitionsToOffsetAndMetadata().get().values().stream().mapToLong(o -> o.offset()).sum() == 500);
            job.cancel();
        }
        assertThat(sorted(first.results())).isEqualTo(range(0, 500));

        KafkaTestSupport.produceNumbers(broker.bootstrapServers(), "grouped", 2, 500, 600);
        final CollectingSink<Long> second = new CollectingSink<>();
        final JobEnvironment again = JobEnvironment.create(JobConfig.builder().build());
        again.fromSource(numbers("grouped").groupId("monitor")
            .startingOffsets(StartingOffsets.committed(StartingOffsets.earliest())).bounded().build(), "numbers")
            .sinkTo(second);
        try (JobHandle job = again.execute("group-start"))
        {
            assertThat(job.termination().get(2, TimeUnit.MINUTES)).isEqualTo(JobStatus.FINISHED);
        }
        assertThat(sorted(second.results())).isEqualTo(range(500, 600));
    }

    @Test
    void aMissingTopicFailsTheJobNamingIt() throws Exception
    {
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .restartStrategy(RestartStrategy.none()).build());
        env.fromSource(numbers("no-such-topic").build(), "numbers").sinkTo(new CollectingSink<>());
        final JobHandle job = env.execute("missing-topic");
        assertThat(job.termination().get(2, TimeUnit.MINUTES)).isEqualTo(JobStatus.FAILED);
        assertThat(job.failureCause()).get().extracting(KafkaSourceTest::messages).asString()
            .contains("Kafka topic 'no-such-topic' does not exist");
        job.close();
    }

    @Test
    void aMissingTopicIsCreatedWhenConfiguredAndThenRead() throws Exception
    {
        final CollectingSink<Long> sink = new CollectingSink<>();
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().build());
        env.fromSource(numbers("created-by-source").createMissingTopics(2, 1).build(), "numbers").sinkTo(sink);
        try (JobHandle job = env.execute("create-topic"))
        {
            Awaitility.await().atMost(GUARD).until(() -> broker.admin().listTopics().names().get()
                .contains("created-by-source"));
            KafkaTestSupport.produceNumbers(broker.bootstrapServers(), "created-by-source", 2, 0, 50);
            Awaitility.await().atMost(GUARD).until(() -> sink.size() >= 50);
            job.cancel();
        }
        assertThat(sorted(sink.results())).isEqualTo(range(0, 50));
    }

    @Test
    void anUnreachableBrokerFailsTheJobSayingSo() throws Exception
    {
        final int closedPort;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0))
        {
            closedPort = socket.getLocalPort();
        }
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .restartStrategy(RestartStrategy.none()).build());
        env.fromSource(KafkaSource.builder(Long.class).bootstrapServers("127.0.0.1:" + closedPort).topics("t")
            .deserializer(KafkaRecordDeserializer.valueCodec(LongCodec.INSTANCE))
            .requestTimeout(Duration.ofMillis(1500)).build(), "numbers").sinkTo(new CollectingSink<>());
        final JobHandle job = env.execute("unreachable");
        assertThat(job.termination().get(2, TimeUnit.MINUTES)).isEqualTo(JobStatus.FAILED);
        assertThat(job.failureCause()).get().extracting(KafkaSourceTest::messages).asString()
            .contains("Kafka at 127.0.0.1:" + closedPort + " did not answer within 1500 ms");
        job.close();
    }

    @Test
    void anUndeserializableRecordFailsTheJobNamingWhereItIsOrIsSkippedAndCounted() throws Exception
    {
        broker.createTopic("poisoned", 1);
        KafkaTestSupport.produceNumbers(broker.bootstrapServers(), "poisoned", 1, 0, 100);
        final KafkaRecordDeserializer<Long> picky = record ->
        {
            final long n = LongCodec.INSTANCE.decode(CodecBuffer.wrap(record.value()), 0, record.value().length);
            if (n % 10 == 7)
            {
                throw new IllegalArgumentException("bad record " + n);
            }
            return n;
        };
        final JobEnvironment failing = JobEnvironment.create(JobConfig.builder()
            .restartStrategy(RestartStrategy.none()).build());
        failing.fromSource(numbers("poisoned").deserializer(picky).bounded().build(), "numbers")
            .sinkTo(new CollectingSink<>());
        final JobHandle job = failing.execute("poisoned");
        assertThat(job.termination().get(2, TimeUnit.MINUTES)).isEqualTo(JobStatus.FAILED);
        assertThat(job.failureCause()).get().extracting(KafkaSourceTest::messages).asString()
            .contains("cannot deserialize the record at offset 7 of partition 0 of topic 'poisoned'")
            .contains("bad record 7");
        job.close();

        final KafkaSource<Long> skipping = numbers("poisoned").deserializer(picky).skipUndeserializable().bounded()
            .build();
        final CollectingSink<Long> sink = new CollectingSink<>();
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().build());
        env.fromSource(skipping, "numbers").sinkTo(sink);
        try (JobHandle skip = env.execute("skipping"))
        {
            assertThat(skip.termination().get(2, TimeUnit.MINUTES)).isEqualTo(JobStatus.FINISHED);
        }
        assertThat(skipping.skippedRecords()).isEqualTo(10);
        assertThat(sorted(sink.results())).isEqualTo(range(0, 100).stream().filter(n -> n % 10 != 7)
            .collect(Collectors.toList()));
    }

    @Test
    void contradictoryConfigurationIsRefusedAtBuild()
    {
        assertThatThrownBy(() -> KafkaSource.builder(Long.class).topics("t")
            .deserializer(KafkaRecordDeserializer.valueCodec(LongCodec.INSTANCE)).build())
            .hasMessageContaining("bootstrapServers is required");
        assertThatThrownBy(() -> numbers("t").topicPattern(java.util.regex.Pattern.compile("t.*")).build())
            .hasMessageContaining("either topics(...) or topicPattern(...)");
        assertThatThrownBy(() -> numbers("t").commitOffsetsOnCheckpoint().build())
            .hasMessageContaining("commitOffsetsOnCheckpoint() needs groupId");
        assertThatThrownBy(() -> numbers("t").property("enable.auto.commit", true).build())
            .hasMessageContaining("'enable.auto.commit' is set by the source itself");
        assertThatThrownBy(() -> KafkaSink.<String>builder().bootstrapServers("x:1").build())
            .hasMessageContaining("a serializer is required");
    }

    @Test
    void aTransactionTimeoutShorterThanACheckpointCanTakeIsRefusedWithTheNumbers()
    {
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .checkpointing(CheckpointConfig.every(Duration.ofSeconds(10)).timeout(Duration.ofMinutes(1)).build())
            .build());
        env.fromSource(numbers("t").build(), "numbers")
            .sinkTo(KafkaSink.<Long>builder().bootstrapServers(broker.bootstrapServers())
                .serializer(KafkaRecordSerializer.valueCodec("out", LongCodec.INSTANCE))
                .transactionTimeout(Duration.ofSeconds(30)).build());
        assertThatThrownBy(() -> env.execute("short-timeout"))
            .isInstanceOf(InvalidJobException.class)
            .hasMessageContaining("transaction timeout (30000 ms) is shorter than the checkpoint interval plus " +
                "the checkpoint timeout (10000 + 60000 = 70000 ms)");
    }

    static String messages(final Throwable failure)
    {
        final StringBuilder all = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause())
        {
            all.append(t.getMessage()).append(" | ");
        }
        return all.toString();
    }
}
