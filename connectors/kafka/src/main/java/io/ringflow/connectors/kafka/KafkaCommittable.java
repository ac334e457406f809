package io.ringflow.connectors.kafka;

/**
 * A pre-committed Kafka transaction, as stored in a checkpoint: enough to commit it from another producer instance
 * (after a restore, or in another JVM) by resuming the transactional id's producer id and epoch.
 *
 * @param transactionalId the transactional id that holds the transaction.
 * @param producerId      its producer id.
 * @param epoch           its producer epoch.
 */
public record KafkaCommittable(String transactionalId, long producerId, short epoch)
{
}
