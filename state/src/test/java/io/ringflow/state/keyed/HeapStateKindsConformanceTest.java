package io.ringflow.state.keyed;

import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.heap.HeapKeyedStateStore;

/** The heap store, the reference, against the map, list, reducing and aggregating state contract. */
class HeapStateKindsConformanceTest extends StateKindsConformanceTest
{
    @Override
    protected KeyedStateStore createStore(
        final CodecRegistry codecs, final int maxParallelism, final KeyGroupRange keyGroups)
    {
        return new HeapKeyedStateStore(codecs, maxParallelism, keyGroups);
    }
}
