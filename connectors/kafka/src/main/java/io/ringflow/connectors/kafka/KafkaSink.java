package io.ringflow.connectors.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.sink.Sink;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes a job's records to Kafka with a chosen {@link DeliveryGuarantee}. Exactly once (the default) uses Kafka
 * transactions through Ringflow's two-phase-commit sink: output becomes visible to {@code read_committed} consumers
 * when the checkpoint that covers it completes.
 *
 * <pre>{@code
 * stream.sinkTo(KafkaSink.<AppCount>builder()
 *     .bootstrapServers("127.0.0.1:9092")
 *     .serializer(KafkaRecordSerializer.keyedValueCodec("counts", AppCount::app, codec))
 *     .build());
 * }</pre>
 */
public final class KafkaSink
{
    private KafkaSink()
    {
    }

    /**
     * @param <T> the record type.
     * @return a builder.
     */
    public static <T> Builder<T> builder()
    {
        return new Builder<>();
    }

    /** What every delivery mode shares, fixed at {@link Builder#build}. */
    static final class Settings<T>
    {
        final String bootstrapServers;
        final KafkaRecordSerializer<T> serializer;
        final DeliveryGuarantee guarantee;
        final String configuredPrefix;
        final Duration transactionTimeout;
        final Duration requestTimeout;
        final Map<String, Object> properties;

        Settings(final Builder<T> b)
        {
            this.bootstrapServers = b.bootstrapServers;
            this.serializer = b.serializer;
            this.guarantee = b.guarantee;
            this.configuredPrefix = b.transactionalIdPrefix;
            this.transactionTimeout = b.transactionTimeout;
            this.requestTimeout = b.requestTimeout;
            this.properties = Map.copyOf(b.properties);
        }

        /** @return the configured prefix, or {@code ringflow-<job>-<operator uid>} with unsafe characters replaced. */
        String transactionalIdPrefix(final SubtaskInfo subtask)
        {
            if (configuredPrefix != null)
            {
                return configuredPrefix;
            }
            return ("ringflow-" + subtask.jobName() + "-" + subtask.operatorUid()).replaceAll("[^A-Za-z0-9._]", "_")
                .replaceFirst("^ringflow_", "ringflow-");
        }

        Map<String, Object> producerProperties(final boolean transactional)
        {
            final Map<String, Object> config = new HashMap<>();
            config.put(ProducerConfig.ACKS_CONFIG, "all");
            config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, guarantee != DeliveryGuarantee.NONE);
            config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, requestTimeout.toMillis());
            config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            config.putAll(properties);
            config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
            config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
            config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
            if (transactional)
            {
                config.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, (int)transactionTimeout.toMillis());
            }
            return config;
        }

        Map<String, Object> adminProperties()
        {
            final Map<String, Object> config = new HashMap<>();
            for (final Map.Entry<String, Object> entry : properties.entrySet())
            {
                if (AdminClientConfig.configNames().contains(entry.getKey()))
                {
                    config.put(entry.getKey(), entry.getValue()); // security settings
                }
            }
            config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
            config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int)requestTimeout.toMillis());
            return config;
        }
    }

    /**
     * Configures a Kafka sink; {@link #build} checks the configuration and names what is wrong. The check against
     * the job's checkpoint settings (transaction timeout) runs when the job is built.
     *
     * @param <T> the record type.
     */
    public static final class Builder<T>
    {
        private String bootstrapServers;
        private KafkaRecordSerializer<T> serializer;
        private DeliveryGuarantee guarantee = DeliveryGuarantee.EXACTLY_ONCE;
        private String transactionalIdPrefix;
        private Duration transactionTimeout = Duration.ofMinutes(15);
        private Duration requestTimeout = Duration.ofSeconds(30);
        private final Map<String, Object> properties = new HashMap<>();

        private Builder()
        {
        }

        /**
         * @param servers the brokers to contact first, {@code host:port,...}.
         * @return this builder.
         */
        public Builder<T> bootstrapServers(final String servers)
        {
            this.bootstrapServers = servers;
            return this;
        }

        /**
         * @param value turns a record into a Kafka record (topic, key, value).
         * @return this builder.
         */
        public Builder<T> serializer(final KafkaRecordSerializer<T> value)
        {
            this.serializer = value;
            return this;
        }

        /**
         * @param value exactly once (default), at least once, or none.
         * @return this builder.
         */
        public Builder<T> deliveryGuarantee(final DeliveryGuarantee value)
        {
            this.guarantee = Objects.requireNonNull(value, "deliveryGuarantee");
            return this;
        }

        /**
         * @param prefix starts every transactional id of this sink (default {@code ringflow-<job>-<operator uid>});
         *               two jobs writing exactly once to the same cluster must use different prefixes.
         * @return this builder.
         */
        public Builder<T> transactionalIdPrefix(final String prefix)
        {
            this.transactionalIdPrefix = prefix;
            return this;
        }

        /**
         * @param timeout how long the broker keeps a transaction open before aborting it (default 15 min, the
         *                broker's default maximum); must cover the checkpoint interval plus the checkpoint timeout.
         * @return this builder.
         */
        public Builder<T> transactionTimeout(final Duration timeout)
        {
            this.transactionTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * @param timeout how long a call to the brokers may block before the job attempt fails (default 30 s).
         * @return this builder.
         */
        public Builder<T> requestTimeout(final Duration timeout)
        {
            this.requestTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * @param key   a Kafka producer setting (security, batch size, compression).
         * @param value its value.
         * @return this builder.
         */
        public Builder<T> property(final String key, final Object value)
        {
            properties.put(key, value);
            return this;
        }

        /**
         * @return the sink: a two-phase-commit sink for exactly once, a plain one otherwise.
         * @throws IllegalArgumentException naming what is missing or contradictory.
         */
        public Sink<T> build()
        {
            if (bootstrapServers == null || bootstrapServers.isBlank())
            {
                throw new IllegalArgumentException("Kafka sink: bootstrapServers is required");
            }
            if (serializer == null)
            {
                throw new IllegalArgumentException("Kafka sink: a serializer is required, e.g. " +
                    "KafkaRecordSerializer.valueCodec(topic, codec)");
            }
            if (transactionTimeout.isNegative() || transactionTimeout.isZero() || requestTimeout.isNegative() ||
                requestTimeout.isZero())
            {
                throw new IllegalArgumentException("Kafka sink: transactionTimeout and requestTimeout must be > 0, " +
                    "got " + transactionTimeout + " and " + requestTimeout);
            }
            if (transactionalIdPrefix != null && !transactionalIdPrefix.matches("[A-Za-z0-9._-]+"))
            {
                throw new IllegalArgumentException("Kafka sink: transactionalIdPrefix '" + transactionalIdPrefix +
                    "' may hold letters, digits, '.', '_' and '-' only");
            }
            for (final String reserved : List.of("key.serializer", "value.serializer", "transactional.id",
                "transaction.timeout.ms", "bootstrap.servers"))
            {
                if (properties.containsKey(reserved))
                {
                    throw new IllegalArgumentException("Kafka sink: '" + reserved + "' is set by the sink itself");
                }
            }
            final Settings<T> settings = new Settings<>(this);
            return guarantee == DeliveryGuarantee.EXACTLY_ONCE ? new ExactlyOnceKafkaSink<>(settings) :
                new PlainKafkaSink<>(settings);
        }
    }
}
