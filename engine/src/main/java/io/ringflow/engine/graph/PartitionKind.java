package io.ringflow.engine.graph;

/**
 * How an edge spreads records over the downstream subtasks.
 */
public enum PartitionKind
{
    /** Upstream subtask i to downstream subtask i; both sides must have the same parallelism. Chainable. */
    FORWARD,
    /** By key: key → key group → owning subtask. */
    KEY_HASH,
    /** Round robin over all downstream subtasks. */
    REBALANCE,
    /** Every record to every downstream subtask. */
    BROADCAST
}
