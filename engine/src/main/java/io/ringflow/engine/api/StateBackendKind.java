package io.ringflow.engine.api;

/** Where keyed state lives. */
public enum StateBackendKind
{
    /**
     * Java objects in on-heap hash maps, the reference backend: the fastest access (one primitive-map probe for
     * {@code ValueState<Long>}), state bounded by the heap and scanned by the garbage collector, snapshots copied at
     * the barrier (O(entries) on the task thread), always full (no incremental checkpoints).
     */
    HEAP,
    /**
     * Encoded bytes in off-heap Chronicle Maps (or memory-mapped files): state costs the garbage collector nothing and
     * may exceed the heap, snapshots are copy-on-write with a synchronous part independent of the number of keys, and
     * incremental checkpoints are supported. Hot keys of value states are served from a small on-heap front at
     * near-heap speed; any other access costs a Chronicle lookup (about 0.3 to 1 us on the reference machine). Sized
     * by {@code JobConfig.chronicleState}. The default.
     */
    CHRONICLE
}
