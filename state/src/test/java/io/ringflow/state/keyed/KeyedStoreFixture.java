package io.ringflow.state.keyed;

import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.chronicle.ChronicleKeyedStateStore;
import io.ringflow.state.chronicle.ChronicleStateConfig;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.heap.HeapKeyedStateStore;
import org.junit.jupiter.api.AfterEach;

import java.util.ArrayList;
import java.util.List;

/**
 * What the keyed state conformance suites share: how a backend's test builds stores, stores of every backend for
 * cross-backend checks, and closing every store a test built.
 */
public abstract class KeyedStoreFixture
{
    /** The number of key groups of most tests. */
    protected static final int MAX_PARALLELISM = 128;
    /** Every key group. */
    protected static final KeyGroupRange ALL = new KeyGroupRange(0, MAX_PARALLELISM - 1);

    private final List<KeyedStateStore> stores = new ArrayList<>();

    /**
     * @param codecs         the codecs.
     * @param maxParallelism the number of key groups.
     * @param keyGroups      the key groups the store owns.
     * @return a new store of the backend under test.
     */
    protected abstract KeyedStateStore createStore(CodecRegistry codecs, int maxParallelism, KeyGroupRange keyGroups);

    /** The Chronicle configuration of the stores these tests build: small maps, several segments, in memory. */
    protected static ChronicleStateConfig chronicleTestConfig()
    {
        return ChronicleStateConfig.defaults().withExpectedEntriesPerState(50_000).withAverageValueSize(12);
    }

    @AfterEach
    void closeStores() throws Exception
    {
        for (final KeyedStateStore store : stores)
        {
            if (store instanceof AutoCloseable)
            {
                ((AutoCloseable)store).close();
            }
        }
        stores.clear();
    }

    /** @return a new store of the backend under test, every key group of 128, built-in codecs; closed after. */
    protected final KeyedStateStore newStore()
    {
        return newStore(CodecRegistry.withBuiltIns(), MAX_PARALLELISM, ALL);
    }

    /**
     * @param codecs         the codecs.
     * @param maxParallelism the number of key groups.
     * @param keyGroups      the key groups the store owns.
     * @return a new store of the backend under test, closed after the test.
     */
    protected final KeyedStateStore newStore(
        final CodecRegistry codecs, final int maxParallelism, final KeyGroupRange keyGroups)
    {
        return track(createStore(codecs, maxParallelism, keyGroups));
    }

    /**
     * @param codecs    the codecs.
     * @param keyGroups the key groups the stores own.
     * @return a new store of each backend, heap first; closed after the test.
     */
    protected final List<KeyedStateStore> storeOfEachBackend(final CodecRegistry codecs, final KeyGroupRange keyGroups)
    {
        return List.of(
            track(new HeapKeyedStateStore(codecs, MAX_PARALLELISM, keyGroups)),
            track(new ChronicleKeyedStateStore(chronicleTestConfig(), codecs, MAX_PARALLELISM, keyGroups)));
    }

    /**
     * @param store a store to close after the test.
     * @param <S>   its type.
     * @return the store.
     */
    protected final <S extends KeyedStateStore> S track(final S store)
    {
        stores.add(store);
        return store;
    }

    /**
     * @param bytes a snapshot.
     * @return a new store of the backend under test, restored from it.
     */
    protected final KeyedStateStore restoredFrom(final byte[] bytes)
    {
        return restoredFrom(bytes, CodecRegistry.withBuiltIns());
    }

    /**
     * @param bytes  a snapshot.
     * @param codecs the codecs of the new store.
     * @return a new store of the backend under test, restored from it.
     */
    protected final KeyedStateStore restoredFrom(final byte[] bytes, final CodecRegistry codecs)
    {
        final KeyedStateStore store = newStore(codecs, MAX_PARALLELISM, ALL);
        store.restore(List.of(SnapshotContents.reader(bytes)));
        return store;
    }
}
