package io.ringflow.state.chronicle;

import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.KeyedStateStoreConformanceTest;

/** The Chronicle Map store, in memory, against the keyed state store contract. */
class ChronicleKeyedStateStoreConformanceTest extends KeyedStateStoreConformanceTest
{
    @Override
    protected KeyedStateStore createStore(
        final CodecRegistry codecs, final int maxParallelism, final KeyGroupRange keyGroups)
    {
        return new ChronicleKeyedStateStore(chronicleTestConfig(), codecs, maxParallelism, keyGroups);
    }
}
