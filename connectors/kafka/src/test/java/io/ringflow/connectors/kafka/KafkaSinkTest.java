package io.ringflow.connectors.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.ringflow.connectors.kafka.local.LocalKafkaBroker;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.RestartStrategy;
import io.ringflow.engine.api.source.GeneratorSource;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The Kafka sink's other modes and failures against a real (in-process) broker. */
class KafkaSinkTest
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

    @Test
    void atLeastOnceLosesNothingAcrossAFailure() throws Exception
    {
        broker.createTopic("alo-in", 2);
        broker.createTopic("alo-out", 2);
        KafkaTestSupport.produceNumbers(broker.bootstrapServers(), "alo-in", 2, 0, 5_000);
        final KafkaExactlyOnceTest.Faults faults = KafkaExactlyOnceTest.Faults.draw(7);
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .checkpointing(CheckpointConfig.every(Duration.ofMillis(20)).build())
            .restartStrategy(RestartStrategy.fixedDelay(10, Duration.ZERO))
            .build());
        env.fromSource(KafkaSource.builder(Long.class).bootstrapServers(broker.bootstrapServers()).topics("alo-in")
                .deserializer(KafkaRecordDeserializer.valueCodec(io.ringflow.state.codec.LongCodec.INSTANCE))
                .bounded().build(), "numbers")
            .keyBy(n -> n % 10)
            .process(() -> new KafkaExactlyOnceTest.CountPerKey(faults))
            .returns(String.class)
            .sinkTo(KafkaSink.<String>builder()
                .bootstrapServers(broker.bootstrapServers())
                .deliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                .serializer(line -> new ProducerRecord<>("alo-out", line.substring(0, line.indexOf(','))
                    .getBytes(StandardCharsets.UTF_8), line.getBytes(StandardCharsets.UTF_8)))
                .build());
        try (JobHandle job = env.execute("at-least-once"))
        {
            assertThat(job.termination().get(2, TimeUnit.MINUTES)).as("%s", job.failureCause())
                .isEqualTo(JobStatus.FINISHED);
            assertThat(job.restartCount()).isPositive();
        }
        final Map<Long, List<Long>> perKey = KafkaTestSupport.countsPerKey(
            KafkaTestSupport.readCommitted(broker.bootstrapServers(), "alo-out"));
        for (long key = 0; key < 10; key++)
        {
            final Set<Long> seen = new HashSet<>(perKey.getOrDefault(key, List.of()));
            for (long c = 1; c <= 500; c++)
            {
                assertThat(seen).as("key %d", key).contains(c);
            }
        }
    }

    @Test
    void aProducerFencedByAnotherWithTheSamePrefixFailsTheJobSayingSo() throws Exception
    {
        broker.createTopic("fenced-out", 1);
        final String prefix = "fence-test";
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .checkpointing(CheckpointConfig.every(Duration.ofMillis(20)).build())
            .restartStrategy(RestartStrategy.none())
            .build());
        env.fromSource(GeneratorSource.unbounded(Long.class, (i, nanos) -> i).withRate(5_000), "numbers")
            .sinkTo(KafkaSink.<Long>builder()
                .bootstrapServers(broker.bootstrapServers())
                .serializer(KafkaRecordSerializer.valueCodec("fenced-out", io.ringflow.state.codec.LongCodec.INSTANCE))
                .transactionalIdPrefix(prefix)
                .build());
        try (JobHandle job = env.execute("fenced"))
        {
            Awaitility.await().atMost(GUARD).until(() -> !job.completedCheckpoints().isEmpty() &&
                !KafkaTestSupport.openTransactions(broker.admin(), prefix).isEmpty());
            // another producer takes over the transactional ids the job uses
            for (final String id : KafkaTestSupport.openTransactions(broker.admin(), prefix))
            {
                TransactionalProducer.create(id, Map.of("bootstrap.servers", broker.bootstrapServers(),
                    "key.serializer", org.apache.kafka.common.serialization.ByteArraySerializer.class,
                    "value.serializer", org.apache.kafka.common.serialization.ByteArraySerializer.class)).close();
            }
            assertThat(job.termination().get(2, TimeUnit.MINUTES)).isEqualTo(JobStatus.FAILED);
            assertThat(job.failureCause()).get().extracting(KafkaSourceTest::messages).asString()
                .contains("was fenced by another producer with the same id")
                .contains("transactional-id prefix '" + prefix + "'");
        }
    }
}
