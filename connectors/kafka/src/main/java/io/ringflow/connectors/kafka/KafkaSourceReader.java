package io.ringflow.connectors.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.ringflow.engine.api.functions.CheckpointListener;
import io.ringflow.engine.api.functions.CheckpointedFunction;
import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.OperatorListState;
import io.ringflow.engine.api.functions.StateInitializationContext;
import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.source.SourceReader;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * One subtask's reader of a {@link KafkaSource}: a consumer with the partitions this subtask owns assigned (no group
 * membership), each with the offset after the last record emitted.
 *
 * <p>Thread contract: the subtask's task thread only (the Kafka consumer is single-threaded too). Order: the engine
 * calls {@link #initializeState} (restored offsets) before the first {@link #pollNext}, which connects.
 */
final class KafkaSourceReader<T> implements SourceReader<T>, CheckpointedFunction, CheckpointListener
{
    static final String OFFSETS_STATE = "ringflow.kafka.partition-offsets";
    /**
     * {@link #position()} of a bounded reader that reached its end. A finished subtask takes part in no later
     * checkpoint's state, so a restore learns from this position (in the checkpoint's source positions) that the
     * partitions it owned were read to the end, rather than reading them again from their start.
     */
    static final long FINISHED = Long.MAX_VALUE;
    private static final System.Logger LOG = System.getLogger(KafkaSourceReader.class.getName());

    /** One owned partition. */
    private static final class Split
    {
        final TopicPartition partition;
        /** The offset after the last record emitted (what a checkpoint records). */
        long next;
        /** Bounded source: the end to read up to (exclusive); -1 unbounded. */
        long stop = -1;
        boolean done;

        Split(final TopicPartition partition, final long next)
        {
            this.partition = partition;
            this.next = next;
        }
    }

    private final KafkaSource<T> source;
    private final SubtaskInfo subtask;
    private final Map<TopicPartition, Split> splits = new LinkedHashMap<>();
    private final Map<TopicPartition, Long> restoredOffsets = new HashMap<>();
    /** Offsets of checkpoints taken and not yet completed, for committing to the group. */
    private final TreeMap<Long, Map<TopicPartition, OffsetAndMetadata>> pendingGroupCommits = new TreeMap<>();
    private OperatorListState<PartitionOffset> offsetsState;
    private boolean restored;
    private KafkaConsumer<byte[], byte[]> consumer;
    private long nextDiscoveryNanos;
    private boolean firstDiscovery = true;
    /** A missing topic was created by this discovery: the next poll looks for its partitions. */
    private boolean createdTopic;
    /** The polled batch, read partition by partition (records of one partition are in offset order). */
    private ConsumerRecords<byte[], byte[]> batch;
    private Iterator<TopicPartition> partitions;
    private List<ConsumerRecord<byte[], byte[]>> current;
    private int index;
    private Split split;
    private long emitted;
    private boolean loggedSkip;
    private boolean ended;
    /** On restore: which former subtasks had finished (bounded), and the former parallelism; null otherwise. */
    private boolean[] formerFinished;

    KafkaSourceReader(final KafkaSource<T> source, final SubtaskInfo subtask)
    {
        this.source = source;
        this.subtask = subtask;
    }

    @Override
    public void initializeState(final StateInitializationContext context)
    {
        offsetsState = context.getUnionListState(OFFSETS_STATE, PartitionOffset.class);
        restored = context.isRestored();
        for (final PartitionOffset offset : offsetsState.get())
        {
            restoredOffsets.put(new TopicPartition(offset.topic(), offset.partition()), offset.offset());
        }
        offsetsState.clear();
    }

    @Override
    public int pollNext(final Collector<T> output, final int maxRecords) throws Exception
    {
        if (consumer == null)
        {
            connect();
        }
        else if (nextDiscoveryNanos != 0 && System.nanoTime() - nextDiscoveryNanos >= 0)
        {
            discover();
        }
        int count = 0;
        while (count < maxRecords)
        {
            if (current == null || index == current.size())
            {
                if (!nextPartition())
                {
                    if (count > 0)
                    {
                        break;
                    }
                    if (splits.isEmpty())
                    {
                        // owns no partition (yet): a bounded source is done, an unbounded one waits for discovery
                        return source.bounded ? end() : 0;
                    }
                    final ConsumerRecords<byte[], byte[]> records = poll();
                    if (records.isEmpty())
                    {
                        return source.bounded && allDone() ? end() : 0;
                    }
                    batch = records;
                    partitions = records.partitions().iterator();
                    continue;
                }
            }
            final ConsumerRecord<byte[], byte[]> record = current.get(index++);
            if (split.done || (split.stop >= 0 && record.offset() >= split.stop))
            {
                continue; // beyond a bounded source's end
            }
            final T value = deserialize(record);
            split.next = record.offset() + 1;
            if (value != null)
            {
                output.collect(value);
                count++;
            }
        }
        emitted += count;
        return count;
    }

    private int end()
    {
        ended = true;
        return END_OF_INPUT;
    }

    @Override
    public void restoreFormerPositions(final List<Long> positions)
    {
        formerFinished = new boolean[positions.size()];
        for (int i = 0; i < formerFinished.length; i++)
        {
            formerFinished[i] = positions.get(i) == FINISHED;
        }
    }

    /** @return whether a former subtask that owned this partition finished reading it (bounded source, restore). */
    private boolean readToTheEndBefore(final TopicPartition partition)
    {
        return formerFinished != null && formerFinished.length > 0 &&
            formerFinished[KafkaSource.owner(partition.topic(), partition.partition(), formerFinished.length)];
    }

    /** Moves to the next partition of the polled batch; false when the batch is used up. */
    private boolean nextPartition()
    {
        while (partitions != null && partitions.hasNext())
        {
            final TopicPartition partition = partitions.next();
            split = splits.get(partition);
            if (split != null)
            {
                current = batch.records(partition);
                index = 0;
                return true;
            }
        }
        batch = null;
        partitions = null;
        current = null;
        return false;
    }

    private ConsumerRecords<byte[], byte[]> poll()
    {
        try
        {
            return consumer.poll(Duration.ZERO);
        }
        catch (final TimeoutException ex)
        {
            throw unreachable("polling " + source.describeTopics(), ex);
        }
    }

    private T deserialize(final ConsumerRecord<byte[], byte[]> record)
    {
        try
        {
            return source.deserializer.deserialize(record);
        }
        catch (final Exception ex)
        {
            if (!source.skipUndeserializable)
            {
                throw new KafkaDeserializationException(record.topic(), record.partition(), record.offset(), ex);
            }
            source.countSkipped();
            if (!loggedSkip)
            {
                loggedSkip = true;
                LOG.log(System.Logger.Level.WARNING, "Kafka source " + subtask.operatorName() + " subtask " +
                    subtask.subtaskIndex() + " skips records it cannot deserialize (first: offset " + record.offset() +
                    " of " + record.topic() + "-" + record.partition() + ": " + ex + "); counted in skippedRecords()");
            }
            return null;
        }
    }

    /** A bounded source is done when every owned partition's position reached its end. */
    private boolean allDone()
    {
        boolean all = true;
        for (final Split split : splits.values())
        {
            if (!split.done && consumer.position(split.partition) >= split.stop)
            {
                // the position passes transaction markers that no record stands for
                split.done = true;
            }
            all &= split.done;
        }
        return all;
    }

    /** Creates the consumer and assigns the owned partitions: at the first poll, or at a barrier that comes first. */
    private void connect()
    {
        consumer = new KafkaConsumer<>(consumerProperties());
        discover();
    }

    /** Finds the partitions this subtask owns and starts reading the new ones. */
    private void discover()
    {
        final List<TopicPartition> found = new ArrayList<>();
        final Map<String, List<PartitionInfo>> topics;
        try
        {
            // a fresh metadata request each time (partitionsFor would answer from the consumer's cache)
            topics = consumer.listTopics(source.requestTimeout);
        }
        catch (final TimeoutException ex)
        {
            throw unreachable("listing the partitions of " + source.describeTopics(), ex);
        }
        if (source.topicPattern != null)
        {
            for (final Map.Entry<String, List<PartitionInfo>> topic : topics.entrySet())
            {
                if (source.topicPattern.matcher(topic.getKey()).matches())
                {
                    topic.getValue().forEach(p -> found.add(new TopicPartition(p.topic(), p.partition())));
                }
            }
        }
        else
        {
            for (final String topic : source.topics)
            {
                final List<PartitionInfo> partitions = topics.get(topic);
                if ((partitions == null || partitions.isEmpty()) && firstDiscovery && source.createPartitions > 0)
                {
                    createTopic(topic);
                    createdTopic = true;
                    continue;
                }
                if (partitions == null || partitions.isEmpty())
                {
                    if (firstDiscovery)
                    {
                        throw new IllegalStateException("Kafka topic '" + topic + "' does not exist on " +
                            source.bootstrapServers + " (create it first, or build the source with " +
                            "createMissingTopics)");
                    }
                    continue;
                }
                partitions.forEach(p -> found.add(new TopicPartition(p.topic(), p.partition())));
            }
        }
        final List<TopicPartition> added = new ArrayList<>();
        for (final TopicPartition partition : found)
        {
            if (!splits.containsKey(partition) &&
                KafkaSource.owner(partition.topic(), partition.partition(), subtask.parallelism()) ==
                    subtask.subtaskIndex())
            {
                added.add(partition);
            }
        }
        if (!added.isEmpty())
        {
            start(added);
        }
        firstDiscovery = false;
        final Duration interval = source.discoveryInterval;
        if (createdTopic)
        {
            createdTopic = false;
            nextDiscoveryNanos = System.nanoTime() | 1; // a topic was just created: look again at the next poll
        }
        else
        {
            nextDiscoveryNanos = interval.isZero() ? 0 : (System.nanoTime() + interval.toNanos()) | 1;
        }
    }

    /** Creates a missing topic (every subtask may try: "already exists" is success). */
    private void createTopic(final String topic)
    {
        final Map<String, Object> admin = new HashMap<>();
        admin.put(org.apache.kafka.clients.admin.AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, source.bootstrapServers);
        admin.put(org.apache.kafka.clients.admin.AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            (int)source.requestTimeout.toMillis());
        try (org.apache.kafka.clients.admin.Admin client = org.apache.kafka.clients.admin.Admin.create(admin))
        {
            client.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(topic, source.createPartitions,
                source.createReplication))).all().get(source.requestTimeout.toMillis(),
                java.util.concurrent.TimeUnit.MILLISECONDS);
            LOG.log(System.Logger.Level.INFO, "created Kafka topic '" + topic + "' (" + source.createPartitions +
                " partitions, replication " + source.createReplication + ")");
        }
        catch (final java.util.concurrent.ExecutionException ex)
        {
            if (!(ex.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException))
            {
                throw new IllegalStateException("cannot create Kafka topic '" + topic + "' on " +
                    source.bootstrapServers + ": " + ex.getCause(), ex.getCause());
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating Kafka topic '" + topic + "'", ex);
        }
        catch (final java.util.concurrent.TimeoutException ex)
        {
            throw new IllegalStateException("Kafka at " + source.bootstrapServers + " did not answer within " +
                source.requestTimeout.toMillis() + " ms while creating topic '" + topic + "'", ex);
        }
    }

    private void start(final List<TopicPartition> added)
    {
        final Map<TopicPartition, Long> starts = new HashMap<>();
        final List<TopicPartition> fresh = new ArrayList<>();
        for (final TopicPartition partition : added)
        {
            final Long offset = restoredOffsets.remove(partition);
            if (offset != null)
            {
                starts.put(partition, offset);
            }
            else
            {
                fresh.add(partition);
            }
        }
        final List<TopicPartition> readBefore = new ArrayList<>();
        if (source.bounded)
        {
            // a former subtask that finished took part in the checkpoint without state: its partitions are read
            for (final java.util.Iterator<TopicPartition> it = fresh.iterator(); it.hasNext(); )
            {
                final TopicPartition partition = it.next();
                if (readToTheEndBefore(partition))
                {
                    readBefore.add(partition);
                    it.remove();
                }
            }
            if (!readBefore.isEmpty())
            {
                starts.putAll(timed(() -> consumer.endOffsets(readBefore, source.requestTimeout),
                    "reading the end offsets of " + readBefore));
            }
        }
        if (!fresh.isEmpty())
        {
            // a partition the checkpoint does not know, or one found while running, is read from its start
            final boolean initial = firstDiscovery && !restored;
            starts.putAll(initial ? startingOffsets(fresh, source.startingOffsets) :
                startingOffsets(fresh, StartingOffsets.earliest()));
        }
        final List<TopicPartition> assignment = new ArrayList<>(splits.keySet());
        assignment.addAll(added);
        consumer.assign(assignment);
        for (final TopicPartition partition : added)
        {
            final long offset = starts.get(partition);
            consumer.seek(partition, offset);
            splits.put(partition, new Split(partition, offset));
        }
        if (source.bounded)
        {
            final Map<TopicPartition, Long> ends = timed(() -> consumer.endOffsets(added, source.requestTimeout),
                "reading the end offsets of " + added);
            for (final TopicPartition partition : added)
            {
                final Split split = splits.get(partition);
                split.stop = ends.get(partition);
                split.done = split.next >= split.stop;
            }
        }
        LOG.log(System.Logger.Level.DEBUG, () -> "Kafka source " + subtask.operatorName() + " subtask " +
            subtask.subtaskIndex() + " reads " + added + " from " + starts);
    }

    private Map<TopicPartition, Long> startingOffsets(final List<TopicPartition> partitions,
        final StartingOffsets how)
    {
        final Map<TopicPartition, Long> result = new HashMap<>();
        switch (how.kind)
        {
            case EARLIEST:
                result.putAll(timed(() -> consumer.beginningOffsets(partitions, source.requestTimeout),
                    "reading the earliest offsets of " + partitions));
                break;
            case LATEST:
                result.putAll(timed(() -> consumer.endOffsets(partitions, source.requestTimeout),
                    "reading the end offsets of " + partitions));
                break;
            case TIMESTAMP:
            {
                final Map<TopicPartition, Long> query = new HashMap<>();
                partitions.forEach(p -> query.put(p, how.timestamp));
                final Map<TopicPartition, OffsetAndTimestamp> found = timed(() ->
                    consumer.offsetsForTimes(query, source.requestTimeout), "finding offsets by timestamp");
                final Map<TopicPartition, Long> ends = timed(() -> consumer.endOffsets(partitions,
                    source.requestTimeout), "reading the end offsets of " + partitions);
                for (final TopicPartition partition : partitions)
                {
                    final OffsetAndTimestamp hit = found.get(partition);
                    result.put(partition, hit != null ? hit.offset() : ends.get(partition));
                }
                break;
            }
            case COMMITTED:
            {
                final Map<TopicPartition, OffsetAndMetadata> committed = timed(() ->
                    consumer.committed(new java.util.HashSet<>(partitions), source.requestTimeout),
                    "reading the committed offsets of group " + source.groupId);
                final List<TopicPartition> none = new ArrayList<>();
                for (final TopicPartition partition : partitions)
                {
                    final OffsetAndMetadata offset = committed.get(partition);
                    if (offset != null)
                    {
                        result.put(partition, offset.offset());
                    }
                    else
                    {
                        none.add(partition);
                    }
                }
                if (!none.isEmpty())
                {
                    if (how.fallback == null)
                    {
                        throw new IllegalStateException("consumer group '" + source.groupId + "' has no committed " +
                            "offset for " + none + ": start with committed(earliest()) or committed(latest())");
                    }
                    result.putAll(startingOffsets(none, how.fallback));
                }
                break;
            }
            default:
                throw new IllegalStateException("unknown starting offsets " + how);
        }
        return result;
    }

    private <R> R timed(final java.util.function.Supplier<R> call, final String what)
    {
        try
        {
            return call.get();
        }
        catch (final TimeoutException ex)
        {
            throw unreachable(what, ex);
        }
    }

    private IllegalStateException unreachable(final String what, final TimeoutException ex)
    {
        return new IllegalStateException("Kafka at " + source.bootstrapServers + " did not answer within " +
            source.requestTimeout.toMillis() + " ms while " + what + " (is the broker running and reachable?): " +
            ex.getMessage(), ex);
    }

    private Map<String, Object> consumerProperties()
    {
        final Map<String, Object> properties = new HashMap<>();
        properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        properties.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int)source.requestTimeout.toMillis());
        properties.put(ConsumerConfig.CLIENT_ID_CONFIG, "ringflow-" + subtask.jobName() + "-" +
            subtask.operatorUid() + "-" + subtask.subtaskIndex());
        properties.putAll(source.properties);
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, source.bootstrapServers);
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        if (source.groupId != null)
        {
            properties.put(ConsumerConfig.GROUP_ID_CONFIG, source.groupId);
        }
        return properties;
    }

    @Override
    public void snapshotState(final long checkpointId)
    {
        if (consumer == null)
        {
            // a barrier before the first poll: resolve the owned partitions' offsets now (restored, started, or
            // read by a former subtask that finished), so that this snapshot holds every one of them
            connect();
        }
        final List<PartitionOffset> offsets = new ArrayList<>(splits.size() + restoredOffsets.size());
        for (final Split split : splits.values())
        {
            offsets.add(new PartitionOffset(split.partition.topic(), split.partition.partition(), split.next));
        }
        // offsets restored for partitions not yet rediscovered (a topic briefly missing) are kept, not lost
        for (final Map.Entry<TopicPartition, Long> kept : restoredOffsets.entrySet())
        {
            if (KafkaSource.owner(kept.getKey().topic(), kept.getKey().partition(), subtask.parallelism()) ==
                subtask.subtaskIndex())
            {
                offsets.add(new PartitionOffset(kept.getKey().topic(), kept.getKey().partition(), kept.getValue()));
            }
        }
        offsetsState.update(offsets);
        if (source.commitOffsetsOnCheckpoint && !splits.isEmpty())
        {
            final Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
            splits.values().forEach(s -> commit.put(s.partition, new OffsetAndMetadata(s.next)));
            pendingGroupCommits.put(checkpointId, commit);
        }
    }

    @Override
    public void notifyCheckpointComplete(final long checkpointId)
    {
        if (!source.commitOffsetsOnCheckpoint || consumer == null)
        {
            return;
        }
        final Map.Entry<Long, Map<TopicPartition, OffsetAndMetadata>> newest = pendingGroupCommits.floorEntry(
            checkpointId);
        if (newest != null)
        {
            // for monitoring only: a failed commit is logged, and the next checkpoint's commit covers it
            consumer.commitAsync(newest.getValue(), (offsets, failure) ->
            {
                if (failure != null)
                {
                    LOG.log(System.Logger.Level.WARNING, "committing offsets of checkpoint " + checkpointId +
                        " to group " + source.groupId + " failed (monitoring only): " + failure);
                }
            });
            pendingGroupCommits.headMap(checkpointId, true).clear();
        }
    }

    @Override
    public long position()
    {
        return ended ? FINISHED : emitted;
    }

    @Override
    public void seek(final long position)
    {
        // never called: the source keeps its offsets in operator state (keepsPositionInState)
    }

    @Override
    public void close()
    {
        if (consumer != null)
        {
            consumer.close(Duration.ofSeconds(5));
        }
    }
}
