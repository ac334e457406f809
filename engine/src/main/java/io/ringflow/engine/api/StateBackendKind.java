package io.ringflow.engine.api;

/** Where keyed state lives. */
public enum StateBackendKind
{
    /**
     * Java objects in on-heap hash maps: the fastest access (one primitive-map probe for {@code ValueState<Long>}),
     * state bounded by the heap, snapshots copied at the barrier (O(entries) on the task thread). The default.
     */
    HEAP,
    /**
     * Encoded bytes in off-heap Chronicle Maps (or memory-mapped files): state costs the garbage collector nothing and
     * may exceed the heap, snapshots are copy-on-write with an O(1) synchronous part; each access costs a Chronicle
     * lookup (about 0.2 to 0.7 us on the reference machine). Sized by {@code JobConfig.chronicleState}.
     */
    CHRONICLE
}
