package io.ringflow.connectors.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What a {@code read_committed} consumer sees of a topic now: for checking a job's exactly-once output (tests, the
 * sample, benchmarks). Reads up to each partition's last stable offset as it is when the call starts, so records
 * of open transactions are neither seen nor waited for, and records written meanwhile are left out.
 *
 * <p>A transaction's commit returns to its producer once the broker logged the decision; the commit markers reach
 * the topic's partitions a little later, and only then do its records count below the last stable offset. So a
 * finished job's last transactions can still be invisible right after the job ends: call
 * {@link #awaitSettled} before checking a finished job's output.
 */
public final class CommittedRecords
{
    private CommittedRecords()
    {
    }

    /**
     * @param bootstrapServers the brokers.
     * @param topic            the topic.
     * @param each             receives every committed record, partition by partition in offset order.
     */
    public static void forEach(final String bootstrapServers, final String topic,
        final Consumer<ConsumerRecord<byte[], byte[]>> each)
    {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrapServers))
        {
            final List<TopicPartition> all = partitions(consumer, topic);
            consumer.assign(all);
            consumer.seekToBeginning(all);
            final Map<TopicPartition, Long> ends = consumer.endOffsets(all);
            while (all.stream().anyMatch(p -> consumer.position(p) < ends.get(p)))
            {
                for (final ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100)))
                {
                    if (record.offset() < ends.get(new TopicPartition(record.topic(), record.partition())))
                    {
                        each.accept(record);
                    }
                }
            }
        }
    }

    /**
     * @param bootstrapServers the brokers.
     * @param topic            the topic.
     * @return the sum of its partitions' last stable offsets (records and transaction markers a
     *     {@code read_committed} consumer can get past now); 0 when the topic does not exist.
     */
    public static long lastStableOffsets(final String bootstrapServers, final String topic)
    {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrapServers))
        {
            final List<PartitionInfo> partitions = consumer.listTopics().get(topic);
            if (partitions == null)
            {
                return 0;
            }
            return consumer.endOffsets(partitions(consumer, topic)).values().stream().mapToLong(Long::longValue)
                .sum();
        }
    }

    /**
     * Waits until no transaction is open or being completed on any partition of the topic: every partition's last
     * stable offset equals its end offset (polled every 20 ms).
     *
     * @param bootstrapServers the brokers.
     * @param topic            the topic.
     * @param timeout          how long to wait at most.
     * @return whether the topic settled within the timeout; {@code false} means a transaction is still open on it
     *     (a producer that neither committed nor aborted, until the broker's transaction timeout aborts it).
     */
    public static boolean awaitSettled(final String bootstrapServers, final String topic, final Duration timeout)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        try (KafkaConsumer<byte[], byte[]> committed = consumer(bootstrapServers, "read_committed");
            KafkaConsumer<byte[], byte[]> written = consumer(bootstrapServers, "read_uncommitted"))
        {
            final List<TopicPartition> all = partitions(committed, topic);
            while (!committed.endOffsets(all).equals(written.endOffsets(all)))
            {
                if (System.nanoTime() - deadline > 0)
                {
                    return false;
                }
                Thread.sleep(20);
            }
            return true;
        }
    }

    private static List<TopicPartition> partitions(final KafkaConsumer<byte[], byte[]> consumer, final String topic)
    {
        return consumer.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
    }

    private static KafkaConsumer<byte[], byte[]> consumer(final String bootstrapServers)
    {
        return consumer(bootstrapServers, "read_committed");
    }

    private static KafkaConsumer<byte[], byte[]> consumer(final String bootstrapServers, final String isolation)
    {
        return new KafkaConsumer<>(Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
            ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation,
            ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000,
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class));
    }
}
