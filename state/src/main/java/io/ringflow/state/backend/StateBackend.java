package io.ringflow.state.backend;

/**
 * Where keyed state lives: the factory of each keyed operator subtask's {@link KeyedStateStore}. The user picks one
 * ({@code new HeapStateBackend()}, {@code new ChronicleStateBackend(config)}); the engine knows backends only through
 * this interface.
 *
 * <p>Thread contract: immutable and thread-safe; {@link #createKeyedStore} is called on the thread that deploys a
 * job attempt, once per keyed operator subtask.
 *
 * <p>What the engine promises every store it creates (and a store may rely on): the store is used by one task
 * thread; the current key is set before each record of a keyed input and cleared ({@code setCurrentKey(null)})
 * after it, before the task can wait for anything; snapshots are taken at barriers on that thread and written by a
 * flusher thread; the store is closed once its task and every write of its snapshots have ended.
 */
public interface StateBackend
{
    /** @return a short name for messages and statistics, e.g. {@code "heap"} or {@code "chronicle"}. */
    String name();

    /** @return whether stores of this backend can take incremental (delta) snapshots. */
    boolean supportsIncrementalSnapshots();

    /**
     * Creates the keyed store of one operator subtask.
     *
     * @param spec what the store is for.
     * @return a new, empty store.
     * @throws IllegalArgumentException when the backend's configuration cannot serve the spec (e.g. a directory
     *                                  that cannot be used); the message names the option and {@code spec.owner()}.
     */
    KeyedStateStore createKeyedStore(KeyedStoreSpec spec);
}
