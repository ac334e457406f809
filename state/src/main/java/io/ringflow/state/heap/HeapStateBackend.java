package io.ringflow.state.heap;

import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.backend.KeyedStoreSpec;
import io.ringflow.state.backend.StateBackend;

/**
 * Keyed state as Java objects in on-heap hash maps: the reference backend. The fastest access for small state (one
 * primitive-map probe for {@code ValueState<Long>}), bounded by the heap and scanned by the garbage collector;
 * snapshots copy the maps at the barrier (O(entries) on the task thread) and are always full. Needs no JVM flag.
 */
public final class HeapStateBackend implements StateBackend
{
    @Override
    public String name()
    {
        return "heap";
    }

    @Override
    public boolean supportsIncrementalSnapshots()
    {
        return false;
    }

    @Override
    public KeyedStateStore createKeyedStore(final KeyedStoreSpec spec)
    {
        // full snapshots only: with incremental checkpoints each of its snapshots starts a new chain
        return new HeapKeyedStateStore(spec.codecs(), spec.maxParallelism(), spec.keyGroups());
    }

    @Override
    public String toString()
    {
        return "HeapStateBackend";
    }
}
