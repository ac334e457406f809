package io.ringflow.connectors.kafka;

import java.nio.charset.StandardCharsets;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Turns a Kafka record into a Ringflow record. Called on the source subtask's task thread, once per record.
 *
 * <p>The whole {@link ConsumerRecord} is given, so a job can use the key, headers, partition and the record's
 * timestamp (the hook for per-partition event time).
 *
 * @param <T> the record type.
 */
@FunctionalInterface
public interface KafkaRecordDeserializer<T>
{
    /**
     * @param record the Kafka record (key and value may be null).
     * @return the record to emit, or null to skip this one.
     * @throws Exception the record cannot be read: the job fails naming topic, partition and offset, or, with
     *                   {@link KafkaSource.Builder#skipUndeserializable()}, the record is skipped and counted.
     */
    T deserialize(ConsumerRecord<byte[], byte[]> record) throws Exception;

    /**
     * @param codec decodes the value bytes (a Ringflow codec, as written by {@link KafkaRecordSerializer#valueCodec}).
     * @param <T>   the record type.
     * @return a deserializer of record values; a record without a value is an error.
     */
    static <T> KafkaRecordDeserializer<T> valueCodec(final Codec<T> codec)
    {
        return record ->
        {
            final byte[] value = record.value();
            if (value == null)
            {
                throw new IllegalArgumentException("the record has no value");
            }
            return codec.decode(CodecBuffer.wrap(value), 0, value.length);
        };
    }

    /** @return a deserializer of UTF-8 string values. */
    static KafkaRecordDeserializer<String> utf8Values()
    {
        return record -> record.value() == null ? null : new String(record.value(), StandardCharsets.UTF_8);
    }
}
