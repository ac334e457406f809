package io.ringflow.connectors.kafka;

import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.sink.Sink;
import io.ringflow.engine.api.sink.SinkWriter;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * The at-least-once and no-guarantee {@link KafkaSink}: one idempotent producer per subtask (plain for
 * {@link DeliveryGuarantee#NONE}); at least once flushes it at every barrier, so every record before a completed
 * checkpoint is in Kafka.
 *
 * @param <T> the record type.
 */
final class PlainKafkaSink<T> implements Sink<T>
{
    private final KafkaSink.Settings<T> settings;

    PlainKafkaSink(final KafkaSink.Settings<T> settings)
    {
        this.settings = settings;
    }

    @Override
    public SinkWriter<T> createWriter(final SubtaskInfo subtask)
    {
        return new Writer();
    }

    /** Task thread; the callback runs on Kafka's sender thread and only records the first failure. */
    private final class Writer implements SinkWriter<T>, Callback
    {
        private final KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(settings.producerProperties(false));
        private volatile Exception failure;

        @Override
        public void write(final T record)
        {
            check();
            producer.send(settings.serializer.serialize(record), this);
        }

        @Override
        public void flush()
        {
            if (settings.guarantee == DeliveryGuarantee.AT_LEAST_ONCE)
            {
                producer.flush();
                check();
            }
        }

        @Override
        public void onCompletion(final RecordMetadata metadata, final Exception exception)
        {
            if (exception != null && failure == null)
            {
                failure = exception;
            }
        }

        private void check()
        {
            final Exception first = failure;
            if (first != null)
            {
                throw new IllegalStateException("sending to Kafka at " + settings.bootstrapServers + " failed: " +
                    first, first);
            }
        }

        @Override
        public void close()
        {
            producer.close(java.time.Duration.ofSeconds(5));
        }
    }
}
