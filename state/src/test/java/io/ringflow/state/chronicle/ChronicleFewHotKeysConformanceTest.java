package io.ringflow.state.chronicle;

import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.KeyedStateStoreConformanceTest;

/**
 * The Chronicle Map store with a hot-key front of 8 keys per value state, against the keyed state store contract:
 * most keys of every test live in the map, a few in the front, some in both (the map's entry stale).
 */
class ChronicleFewHotKeysConformanceTest extends KeyedStateStoreConformanceTest
{
    @Override
    protected KeyedStateStore createStore(
        final CodecRegistry codecs, final int maxParallelism, final KeyGroupRange keyGroups)
    {
        return new ChronicleKeyedStateStore(chronicleTestConfig().withHotKeysPerState(8), codecs, maxParallelism,
            keyGroups);
    }
}
