package io.ringflow.state.keyed;

import io.ringflow.state.snapshot.KeyedSnapshotReader;
import io.ringflow.state.snapshot.KeyedStateSnapshot;

import java.util.List;

/**
 * The keyed state of one operator subtask: creates state handles and holds the current key they are scoped to.
 *
 * <p>Thread contract: confined to the subtask's task thread. {@link #setCurrentKey} is called before every record of a
 * keyed input, so it must be cheap and must not allocate.
 */
public interface KeyedStateStore
{
    /**
     * Scopes every state handle of this store to {@code key} until the next call.
     *
     * @param key the non-null key of the record about to be processed.
     */
    void setCurrentKey(Object key);

    /**
     * @return the key set by the last {@link #setCurrentKey}.
     */
    Object currentKey();

    /**
     * Returns the state declared by {@code descriptor}, creating it on first use. Asking twice with the same name
     * and type returns the same state; the same name with another type is an error.
     *
     * @param descriptor the declaration.
     * @param <T>        the value type.
     * @return the state handle.
     * @throws IllegalStateException when the name is already declared with another type.
     */
    <T> ValueState<T> getValueState(ValueStateDescriptor<T> descriptor);

    /**
     * The synchronous part of a snapshot, on the task thread at the barrier: every record before the barrier has
     * been applied, none after. What it returns must not change when the live state changes afterwards.
     *
     * @param checkpointId the checkpoint.
     * @return the asynchronous part, to be written by a flusher.
     */
    KeyedStateSnapshot snapshot(long checkpointId);

    /**
     * Restores state from snapshots, before any record is processed and before any state is declared (values are
     * decoded when their state is declared, and checked against the declaration then). Entries of key groups this
     * store does not own are skipped, so the snapshots of several former subtasks can be given (rescaling).
     *
     * @param snapshots the snapshots to restore from.
     * @throws IllegalStateException when a snapshot was written with another number of key groups.
     */
    void restore(List<KeyedSnapshotReader> snapshots);

    /**
     * @return the number of (state, key) entries held; for tests and statistics.
     */
    long entryCount();
}
