package io.ringflow.connectors.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.source.Source;
import io.ringflow.engine.api.source.SourceReader;

/**
 * Reads Kafka topics into a job, exactly once with checkpoints: the offsets of the partitions each subtask reads
 * are its checkpointed state (the truth on restore, not the consumer group's offsets).
 *
 * <ul>
 *   <li>Partitions are dealt to subtasks by a fixed rule (topic hash plus partition, modulo the parallelism), so each
 *   partition has one reader and its order is kept, across restores and at any parallelism.</li>
 *   <li>New partitions (of the topics, or of new topics matching the pattern) are discovered every
 *   {@link Builder#partitionDiscovery} and read from their earliest offset.</li>
 *   <li>Reads with {@code isolation.level=read_committed} unless told otherwise: records of aborted transactions are
 *   never seen.</li>
 *   <li>Optionally commits the checkpointed offsets to the consumer group when a checkpoint completes, for
 *   monitoring (lag) only.</li>
 * </ul>
 *
 * <p>Thread contract: one reader per subtask, used by that subtask's task thread only; the source object is shared
 * by all subtasks and holds only configuration and the skipped-record count.
 *
 * @param <T> the record type.
 */
public final class KafkaSource<T> implements Source<T>
{
    final Class<T> type;
    final String bootstrapServers;
    final List<String> topics;
    final Pattern topicPattern;
    final KafkaRecordDeserializer<T> deserializer;
    final StartingOffsets startingOffsets;
    final Duration discoveryInterval;
    final String groupId;
    final boolean commitOffsetsOnCheckpoint;
    final boolean bounded;
    final boolean skipUndeserializable;
    final Duration requestTimeout;
    final Map<String, Object> properties;
    /** Partitions of a topic the source creates when it is missing at start; 0: fail instead. */
    final int createPartitions;
    final short createReplication;
    private final AtomicLong skipped = new AtomicLong();

    private KafkaSource(final Builder<T> b)
    {
        this.type = b.type;
        this.bootstrapServers = b.bootstrapServers;
        this.topics = List.copyOf(b.topics);
        this.topicPattern = b.topicPattern;
        this.deserializer = b.deserializer;
        this.startingOffsets = b.startingOffsets;
        this.discoveryInterval = b.bounded ? Duration.ZERO : b.discoveryInterval;
        this.groupId = b.groupId;
        this.commitOffsetsOnCheckpoint = b.commitOffsetsOnCheckpoint;
        this.bounded = b.bounded;
        this.skipUndeserializable = b.skipUndeserializable;
        this.requestTimeout = b.requestTimeout;
        this.properties = Map.copyOf(b.properties);
        this.createPartitions = b.createPartitions;
        this.createReplication = b.createReplication;
    }

    /**
     * @param type the record type the deserializer produces.
     * @param <T>  the record type.
     * @return a builder.
     */
    public static <T> Builder<T> builder(final Class<T> type)
    {
        return new Builder<>(type);
    }

    @Override
    public Class<T> producedType()
    {
        return type;
    }

    @Override
    public boolean isBounded()
    {
        return bounded;
    }

    @Override
    public boolean keepsPositionInState()
    {
        return true;
    }

    @Override
    public SourceReader<T> createReader(final SubtaskInfo subtask)
    {
        return new KafkaSourceReader<>(this, subtask);
    }

    /** @return how many records every subtask of this source skipped because they could not be deserialized. */
    public long skippedRecords()
    {
        return skipped.get();
    }

    void countSkipped()
    {
        skipped.incrementAndGet();
    }

    String describeTopics()
    {
        return topicPattern != null ? "topics matching /" + topicPattern + "/" : "topic(s) " + topics;
    }

    /**
     * The subtask that reads a partition: consecutive partitions of a topic go to consecutive subtasks, starting at a
     * subtask chosen by the topic's name (so small topics do not all land on subtask 0).
     *
     * @param topic       the topic.
     * @param partition   the partition.
     * @param parallelism the source's parallelism.
     * @return the owning subtask.
     */
    public static int owner(final String topic, final int partition, final int parallelism)
    {
        final int start = ((topic.hashCode() * 31) & 0x7FFFFFFF) % parallelism;
        return (start + partition) % parallelism;
    }

    /**
     * Configures a {@link KafkaSource}; {@link #build} checks the whole configuration and names what is wrong.
     *
     * @param <T> the record type.
     */
    public static final class Builder<T>
    {
        private final Class<T> type;
        private String bootstrapServers;
        private final List<String> topics = new ArrayList<>();
        private Pattern topicPattern;
        private KafkaRecordDeserializer<T> deserializer;
        private StartingOffsets startingOffsets = StartingOffsets.earliest();
        private Duration discoveryInterval = Duration.ofSeconds(30);
        private String groupId;
        private boolean commitOffsetsOnCheckpoint;
        private boolean bounded;
        private boolean skipUndeserializable;
        private Duration requestTimeout = Duration.ofSeconds(30);
        private final Map<String, Object> properties = new HashMap<>();
        private int createPartitions;
        private short createReplication;

        private Builder(final Class<T> type)
        {
            this.type = Objects.requireNonNull(type, "type");
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
         * @param names the topics to read; each must exist when the job starts.
         * @return this builder.
         */
        public Builder<T> topics(final String... names)
        {
            topics.addAll(List.of(names));
            return this;
        }

        /**
         * @param pattern the topics to read: every topic whose whole name matches, including topics created later.
         * @return this builder.
         */
        public Builder<T> topicPattern(final Pattern pattern)
        {
            this.topicPattern = pattern;
            return this;
        }

        /**
         * @param value turns a Kafka record into a record of the job.
         * @return this builder.
         */
        public Builder<T> deserializer(final KafkaRecordDeserializer<T> value)
        {
            this.deserializer = value;
            return this;
        }

        /**
         * @param value where partitions without a checkpointed offset start (default {@link StartingOffsets#earliest}).
         * @return this builder.
         */
        public Builder<T> startingOffsets(final StartingOffsets value)
        {
            this.startingOffsets = Objects.requireNonNull(value, "startingOffsets");
            return this;
        }

        /**
         * @param interval how often to look for new partitions and topics (default 30 s); zero turns discovery off.
         * @return this builder.
         */
        public Builder<T> partitionDiscovery(final Duration interval)
        {
            this.discoveryInterval = Objects.requireNonNull(interval, "interval");
            return this;
        }

        /**
         * @param id the consumer group whose committed offsets {@link StartingOffsets#committed} reads and
         *           {@link #commitOffsetsOnCheckpoint} writes. The source never joins the group: partitions are
         *           assigned by Ringflow.
         * @return this builder.
         */
        public Builder<T> groupId(final String id)
        {
            this.groupId = id;
            return this;
        }

        /**
         * Commits each completed checkpoint's offsets to the consumer group, so that lag can be monitored with
         * Kafka's tools. The checkpoint stays the truth on restore.
         *
         * @return this builder.
         */
        public Builder<T> commitOffsetsOnCheckpoint()
        {
            this.commitOffsetsOnCheckpoint = true;
            return this;
        }

        /**
         * Ends the source when every partition it found at start has been read up to the end it had then (for
         * {@code read_committed}: the last stable offset). Turns partition discovery off.
         *
         * @return this builder.
         */
        public Builder<T> bounded()
        {
            this.bounded = true;
            return this;
        }

        /**
         * Skips records the deserializer throws on, counting them ({@link KafkaSource#skippedRecords}) and logging
         * the first of each subtask, instead of failing the job.
         *
         * @return this builder.
         */
        public Builder<T> skipUndeserializable()
        {
            this.skipUndeserializable = true;
            return this;
        }

        /**
         * @param timeout how long a call to the brokers may take before the job attempt fails (default 30 s); the
         *                restart strategy then decides.
         * @return this builder.
         */
        public Builder<T> requestTimeout(final Duration timeout)
        {
            this.requestTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * Creates a topic given by name that does not exist when the source starts, instead of failing.
         *
         * @param partitions  its partitions (&gt; 0).
         * @param replication its replication factor (&gt; 0, at most the number of brokers).
         * @return this builder.
         */
        public Builder<T> createMissingTopics(final int partitions, final int replication)
        {
            if (partitions <= 0 || replication <= 0 || replication > Short.MAX_VALUE)
            {
                throw new IllegalArgumentException("Kafka source: createMissingTopics needs partitions and " +
                    "replication > 0, got " + partitions + " and " + replication);
            }
            this.createPartitions = partitions;
            this.createReplication = (short)replication;
            return this;
        }

        /**
         * @param key   a Kafka consumer setting (security, fetch sizes; {@code isolation.level=read_uncommitted}).
         * @param value its value.
         * @return this builder.
         */
        public Builder<T> property(final String key, final Object value)
        {
            properties.put(key, value);
            return this;
        }

        /**
         * @return the source.
         * @throws IllegalArgumentException naming what is missing or contradictory.
         */
        public KafkaSource<T> build()
        {
            if (bootstrapServers == null || bootstrapServers.isBlank())
            {
                throw new IllegalArgumentException("Kafka source: bootstrapServers is required");
            }
            if (topics.isEmpty() == (topicPattern == null))
            {
                throw new IllegalArgumentException("Kafka source: give either topics(...) or topicPattern(...)");
            }
            if (deserializer == null)
            {
                throw new IllegalArgumentException("Kafka source: a deserializer is required, e.g. " +
                    "KafkaRecordDeserializer.valueCodec(codec)");
            }
            final boolean needsGroup = commitOffsetsOnCheckpoint ||
                startingOffsets.kind == StartingOffsets.Kind.COMMITTED;
            if (groupId == null && needsGroup)
            {
                throw new IllegalArgumentException("Kafka source: " + (commitOffsetsOnCheckpoint ?
                    "commitOffsetsOnCheckpoint()" : "startingOffsets(" + startingOffsets + ")") +
                    " needs groupId(...)");
            }
            if (discoveryInterval.isNegative() || requestTimeout.isNegative() || requestTimeout.isZero())
            {
                throw new IllegalArgumentException("Kafka source: partitionDiscovery must be >= 0 and requestTimeout " +
                    "> 0, got " + discoveryInterval + " and " + requestTimeout);
            }
            for (final String reserved : List.of("key.deserializer", "value.deserializer", "enable.auto.commit",
                "group.id", "bootstrap.servers"))
            {
                if (properties.containsKey(reserved))
                {
                    throw new IllegalArgumentException("Kafka source: '" + reserved + "' is set by the source itself");
                }
            }
            return new KafkaSource<>(this);
        }
    }
}
