package io.ringflow.engine.runtime.task;

import io.ringflow.engine.api.functions.Collector;

/**
 * Where an operator's records go: the next operator of the chain (a direct call), a set of ring channels (encoded
 * by the edge's codec), or several of those. Called on the task thread only; must not allocate per record.
 */
public interface Output extends Collector<Object>
{
    /**
     * @param record a non-null record.
     */
    @Override
    void collect(Object record);

    /**
     * The operator's event time advanced: every record emitted later has a larger timestamp (or is late). Sent after
     * every record emitted before it, to every channel of every edge (watermarks are broadcast, whatever the
     * partitioning).
     *
     * @param watermark the new watermark.
     */
    default void emitWatermark(final long watermark)
    {
    }

    /**
     * The operator's output went idle (no records nor watermarks for a while) or is active again: downstream leaves an
     * idle channel out of its watermark.
     *
     * @param idle the new status.
     */
    default void emitWatermarkStatus(final boolean idle)
    {
    }
}
