package io.ringflow.state.chronicle;

import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.KeyedStateStoreConformanceTest;

/**
 * The Chronicle Map store with its hot-key front turned off ({@code hotKeysPerState} 0: every value read and write
 * reaches the map), against the keyed state store contract.
 */
class ChronicleWithoutHotKeysConformanceTest extends KeyedStateStoreConformanceTest
{
    @Override
    protected KeyedStateStore createStore(
        final CodecRegistry codecs, final int maxParallelism, final KeyGroupRange keyGroups)
    {
        return new ChronicleKeyedStateStore(chronicleTestConfig().withHotKeysPerState(0), codecs, maxParallelism,
            keyGroups);
    }
}
