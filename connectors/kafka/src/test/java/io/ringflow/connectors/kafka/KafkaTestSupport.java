package io.ringflow.connectors.kafka;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.codec.LongCodec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Writing input topics and reading output topics of the connector's tests, with plain Kafka clients. */
final class KafkaTestSupport
{
    private KafkaTestSupport()
    {
    }

    /** Writes the numbers {@code from..to-1} as Long-codec values, number n to partition n % partitions. */
    static void produceNumbers(final String bootstrap, final String topic, final int partitions, final long from,
        final long to)
    {
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
            ProducerConfig.LINGER_MS_CONFIG, 5)))
        {
            final CodecBuffer buffer = CodecBuffer.allocate(8);
            for (long n = from; n < to; n++)
            {
                final int length = LongCodec.INSTANCE.encode(n, buffer, 0);
                producer.send(new ProducerRecord<>(topic, (int)(n % partitions), null, buffer.toByteArray(0, length)));
            }
            producer.flush();
        }
    }

    /** Reads a whole topic as a {@code read_committed} consumer, up to its last stable offset. */
    static List<ConsumerRecord<byte[], byte[]>> readCommitted(final String bootstrap, final String topic)
    {
        final List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        CommittedRecords.forEach(bootstrap, topic, records::add);
        return records;
    }

    /** "key,count" values of the output, grouped by key in the order read (per partition, i.e. per key, in order). */
    static Map<Long, List<Long>> countsPerKey(final List<ConsumerRecord<byte[], byte[]>> records)
    {
        final Map<Long, List<Long>> perKey = new HashMap<>();
        for (final ConsumerRecord<byte[], byte[]> record : records)
        {
            final String line = new String(record.value(), StandardCharsets.UTF_8);
            final int comma = line.indexOf(',');
            perKey.computeIfAbsent(Long.parseLong(line.substring(0, comma)), k -> new ArrayList<>())
                .add(Long.parseLong(line.substring(comma + 1)));
        }
        return perKey;
    }

    /** @return the transactional ids with this prefix whose transaction is open on the broker. */
    static List<String> openTransactions(final Admin admin, final String prefix) throws Exception
    {
        return admin.listTransactions(new ListTransactionsOptions().filterStates(List.of(TransactionState.ONGOING)))
            .all().get().stream().map(TransactionListing::transactionalId).filter(id -> id.startsWith(prefix))
            .collect(Collectors.toList());
    }
}
