package io.ringflow.connectors.kafka;

/** What a {@link KafkaSink} promises about its output after failures. */
public enum DeliveryGuarantee
{
    /**
     * Every record once, visible to {@code read_committed} consumers when the checkpoint that covers it completes:
     * records go into Kafka transactions, pre-committed at the barrier and committed on completion (needs
     * checkpointing for an unbounded job; a bounded job commits its last transaction at end of input).
     */
    EXACTLY_ONCE,
    /** Every record at least once: the producer is flushed at each barrier; a restore may write some again. */
    AT_LEAST_ONCE,
    /** No promise: records are sent as they come; those in flight at a failure may be lost. */
    NONE
}
