package io.ringflow.engine.api;

/**
 * How a task thread waits when it has nothing to do (no input, or a full output ring).
 */
public enum IdleStrategyKind
{
    /**
     * Spin without yielding the core: the lowest latency, and a full core per task thread, always. Use only with
     * fewer task threads than free cores, ideally pinned.
     */
    BUSY_SPIN,
    /** Spin, calling {@link Thread#yield()}: low latency; still burns a core while idle. */
    YIELD,
    /**
     * Spin briefly, then yield, then park with exponentially growing pauses (up to {@code maxParkNanos}). The
     * default: sane when task threads outnumber cores.
     */
    BACKOFF,
    /**
     * Park until a producer signals new input (bounded by {@code maxParkNanos} as a safety net): the least CPU,
     * at the cost of a wake-up per batch.
     */
    BLOCK
}
