package io.ringflow.connectors.kafka;

/**
 * A Kafka source's checkpointed state, one per partition: the offset of the next record to read. Kept in a union
 * list state, so a restore at any parallelism gives every subtask all of them and each keeps the partitions it owns.
 *
 * @param topic     the topic.
 * @param partition the partition.
 * @param offset    the offset after the last record the source emitted before the barrier.
 */
public record PartitionOffset(String topic, int partition, long offset)
{
}
