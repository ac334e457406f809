package io.ringflow.connectors.kafka;

/**
 * A Kafka record could not be deserialized: names where it is, so it can be inspected or skipped.
 */
public final class KafkaDeserializationException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    KafkaDeserializationException(final String topic, final int partition, final long offset, final Throwable cause)
    {
        super("cannot deserialize the record at offset " + offset + " of partition " + partition + " of topic '" +
            topic + "': " + cause + " (to skip and count such records instead, build the source with " +
            "skipUndeserializable())", cause);
    }
}
