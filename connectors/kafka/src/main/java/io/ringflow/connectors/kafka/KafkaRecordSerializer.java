package io.ringflow.connectors.kafka;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.Function;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Turns a record of the job into a Kafka record (topic, optional key and partition, value). Called on the sink
 * subtask's task thread, once per record.
 *
 * @param <T> the record type.
 */
@FunctionalInterface
public interface KafkaRecordSerializer<T>
{
    /**
     * @param record a record of the job.
     * @return the Kafka record to send.
     */
    ProducerRecord<byte[], byte[]> serialize(T record);

    /**
     * @param topic the topic to write to.
     * @param codec writes the value (read back with {@link KafkaRecordDeserializer#valueCodec}).
     * @param <T>   the record type.
     * @return a serializer of values without keys (partitions chosen by Kafka's default partitioner).
     */
    static <T> KafkaRecordSerializer<T> valueCodec(final String topic, final Codec<T> codec)
    {
        return keyedValueCodec(topic, null, codec);
    }

    /**
     * @param topic the topic to write to.
     * @param key   the record's key (its UTF-8 bytes choose the partition), or null for none.
     * @param codec writes the value (read back with {@link KafkaRecordDeserializer#valueCodec}).
     * @param <T>   the record type.
     * @return a serializer of keyed values.
     */
    static <T> KafkaRecordSerializer<T> keyedValueCodec(final String topic, final Function<T, String> key,
        final Codec<T> codec)
    {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(codec, "codec");
        // one growable buffer per sink subtask thread: the encoded bytes are copied out for the producer
        final ThreadLocal<CodecBuffer> buffers = ThreadLocal.withInitial(() -> CodecBuffer.growable(128));
        return record ->
        {
            final CodecBuffer buffer = buffers.get();
            final int length = codec.encode(record, buffer, 0);
            final byte[] value = buffer.toByteArray(0, length);
            final byte[] keyBytes = key == null ? null : key.apply(record).getBytes(StandardCharsets.UTF_8);
            return new ProducerRecord<>(topic, keyBytes, value);
        };
    }
}
