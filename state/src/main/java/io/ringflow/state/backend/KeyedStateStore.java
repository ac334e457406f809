package io.ringflow.state.backend;

import io.ringflow.state.keyed.AggregatingState;
import io.ringflow.state.keyed.AggregatingStateDescriptor;
import io.ringflow.state.keyed.ListState;
import io.ringflow.state.keyed.LongValueState;
import io.ringflow.state.keyed.ListStateDescriptor;
import io.ringflow.state.keyed.MapState;
import io.ringflow.state.keyed.MapStateDescriptor;
import io.ringflow.state.keyed.ReducingState;
import io.ringflow.state.keyed.ReducingStateDescriptor;
import io.ringflow.state.keyed.State;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;
import io.ringflow.state.snapshot.KeyedSnapshotReader;
import io.ringflow.state.snapshot.KeyedStateSnapshot;

import java.util.List;

/**
 * The keyed state of one operator subtask: creates state handles and holds the current key they are scoped to.
 *
 * <p>Thread contract: confined to the subtask's task thread. {@link #setCurrentKey} is called before every record of a
 * keyed input, so it must be cheap and must not allocate.
 */
public interface KeyedStateStore extends AutoCloseable
{
    /**
     * Scopes every state handle of this store to {@code key} until the next call. {@code null} clears the current key:
     * state used then fails.
     *
     * @param key the non-null key of the record about to be processed, or null.
     */
    void setCurrentKey(Object key);

    /**
     * Scopes every state handle to {@code key}, whose key group the caller already knows (the producer computed it,
     * once, and sent it with the record): the store need not hash the key again. Must equal
     * {@code KeyGroups.keyGroupOf(key, maxParallelism)} (the built-in stores assert it).
     *
     * @param key      the non-null key.
     * @param keyGroup its key group.
     */
    default void setCurrentKey(final Object key, final int keyGroup)
    {
        setCurrentKey(key);
    }

    /**
     * Scopes every state handle to the {@code Long} key {@code key}, without boxing it: the unboxed path for the most
     * common key type. The same key as {@code setCurrentKey(Long.valueOf(key), keyGroup)} in every respect (state,
     * snapshots, {@link #currentKey()}); a store keeps it as a {@code long} and boxes it only if asked.
     *
     * @param key      the key.
     * @param keyGroup its key group.
     */
    default void setCurrentKey(final long key, final int keyGroup)
    {
        setCurrentKey((Object)key, keyGroup);
    }

    /**
     * @return the key set by the last {@code setCurrentKey}, boxed if it was set unboxed; null when none.
     */
    Object currentKey();

    /**
     * A hint from the task thread that {@code key} (sent unboxed, {@link #setCurrentKey(long, int)}) will be the
     * current key soon, a few records from now: a store may load the memory that key's state lookups read first, so
     * that the cache misses of several upcoming keys overlap instead of following one another. It changes no state
     * and no current key, never throws, and may be called more than once for a key, or for one that never becomes
     * current. Task thread.
     *
     * @param key an upcoming key.
     * @return a value of no meaning that the caller must fold into something it keeps (a field written once per
     *     run of records), so that the JIT cannot drop the loads; 0 when the store does nothing (the default).
     */
    default long prefetch(final long key)
    {
        return 0L;
    }

    /**
     * @return whether {@link #prefetch} is worth calling now (it may become so as state grows), so that a caller
     *     skips reading keys ahead otherwise; false by default. Task thread.
     */
    default boolean prefetches()
    {
        return false;
    }

    /**
     * Returns the state declared by {@code descriptor}, creating it on first use. Asking twice with the same name,
     * kind, types and time-to-live returns the same state; the same name with another kind, type or time-to-live is
     * an error. The same holds for every {@code get...State} method: a name is one state, whatever its kind.
     *
     * <p>When the store was restored, the state's restored entries are checked against the declaration here (kind,
     * types, codec versions, time-to-live) and decoded or validated.
     *
     * @param descriptor the declaration.
     * @param <T>        the value type.
     * @return the state handle.
     * @throws IllegalStateException naming the state, when the name is already declared otherwise, or restored
     *                               entries do not match the declaration.
     */
    <T> ValueState<T> getValueState(ValueStateDescriptor<T> descriptor);

    /**
     * The unboxed view of the {@code ValueState<Long>} declared by {@code descriptor} (declaring it if needed): the same
     * values as {@link #getValueState} with that descriptor gives.
     *
     * @param descriptor the declaration; its type must be {@code Long}.
     * @return the view; a backend without an unboxed path boxes ({@link LongValueState#over}).
     */
    default LongValueState getLongValueState(final ValueStateDescriptor<Long> descriptor)
    {
        return LongValueState.over(getValueState(descriptor), LongValueState.defaultOf(descriptor));
    }

    /**
     * Returns the map state declared by {@code descriptor}; see {@link #getValueState} for the rules.
     *
     * @param descriptor the declaration.
     * @param <UK>       the user key type.
     * @param <UV>       the value type.
     * @return the state handle.
     * @throws IllegalStateException naming the state, as {@link #getValueState} does.
     */
    <UK, UV> MapState<UK, UV> getMapState(MapStateDescriptor<UK, UV> descriptor);

    /**
     * Returns the list state declared by {@code descriptor}; see {@link #getValueState} for the rules.
     *
     * @param descriptor the declaration.
     * @param <T>        the element type.
     * @return the state handle.
     * @throws IllegalStateException naming the state, as {@link #getValueState} does.
     */
    <T> ListState<T> getListState(ListStateDescriptor<T> descriptor);

    /**
     * Returns the reducing state declared by {@code descriptor}; see {@link #getValueState} for the rules.
     *
     * @param descriptor the declaration.
     * @param <T>        the value type.
     * @return the state handle.
     * @throws IllegalStateException naming the state, as {@link #getValueState} does.
     */
    <T> ReducingState<T> getReducingState(ReducingStateDescriptor<T> descriptor);

    /**
     * Returns the aggregating state declared by {@code descriptor}; see {@link #getValueState} for the rules.
     *
     * @param descriptor the declaration.
     * @param <IN>       the input type.
     * @param <ACC>      the accumulator type, which is what is stored.
     * @param <OUT>      the result type.
     * @return the state handle.
     * @throws IllegalStateException naming the state, as {@link #getValueState} does.
     */
    <IN, ACC, OUT> AggregatingState<IN, OUT> getAggregatingState(AggregatingStateDescriptor<IN, ACC, OUT> descriptor);

    /**
     * @return whether values read from this store are the very objects it holds (and a snapshot may still encode
     *     later): a caller that changes a value in place must then copy it first. False when every read decodes a
     *     fresh copy.
     */
    default boolean sharesValueObjects()
    {
        return false;
    }

    /**
     * The synchronous part of a snapshot, on the task thread at the barrier: every record before the barrier has
     * been applied, none after. What it returns must not change when the live state changes afterwards.
     *
     * @param checkpointId the checkpoint.
     * @return the asynchronous part, to be written by a flusher.
     */
    KeyedStateSnapshot snapshot(long checkpointId);

    /**
     * The task thread is about to wait (for room in a full output ring) in the middle of a record: let go of anything
     * a snapshot flusher could have to wait for, such as a lookup kept open between a read and a write. State handles
     * keep working as before afterwards. Does nothing by default.
     */
    default void beforeWaiting()
    {
    }

    /**
     * Forgets every change recorded so far, sealed or not: the store holds nothing a delta could be based on (it is
     * empty at a barrier, so the checkpoint records no keyed state for it). Does nothing when changes are not tracked.
     */
    default void forgetAllChanges()
    {
    }

    /**
     * Starts recording which entries change, so that {@link #incrementalSnapshot} can be taken. Called once, before
     * any state is declared or restored. A backend that cannot snapshot incrementally ignores it (the default), and
     * {@link #canSnapshotIncrementally} then always says no.
     */
    default void trackChanges()
    {
    }

    /**
     * @param baseCheckpointId a checkpoint whose snapshot of this store is durable (committed).
     * @return whether {@link #incrementalSnapshot} can be taken against it now: changes are tracked, and this store
     *     took that snapshot itself (not before a restore) and has not forgotten its changes since.
     */
    default boolean canSnapshotIncrementally(final long baseCheckpointId)
    {
        return false;
    }

    /**
     * @param baseCheckpointId a base for which {@link #canSnapshotIncrementally} is true.
     * @return whether so much changed since the base that a full snapshot is cheaper to write than a delta (which
     *     looks each changed key up, where a full snapshot scans), and also cuts the chain; false by default.
     */
    default boolean prefersFullSnapshot(final long baseCheckpointId)
    {
        return false;
    }

    /**
     * The synchronous part of a delta snapshot, on the task thread at the barrier, like {@link #snapshot}: what it
     * returns holds, as of the barrier, every (state, key) that changed since {@code baseCheckpointId}'s barrier,
     * with its entries or a tombstone ({@link io.ringflow.state.snapshot.KeyedSnapshotFormat}). Restored on top of
     * the base's chain, it gives exactly the state at this barrier. Changes up to {@code baseCheckpointId} are
     * forgotten: later deltas are based on it or a later checkpoint.
     *
     * @param checkpointId     the checkpoint.
     * @param baseCheckpointId the base, for which {@link #canSnapshotIncrementally} is true.
     * @return the asynchronous part, to be written by a flusher.
     * @throws IllegalStateException when no delta against that base can be taken.
     */
    default KeyedStateSnapshot incrementalSnapshot(final long checkpointId, final long baseCheckpointId)
    {
        throw new IllegalStateException(getClass().getSimpleName() + " takes no incremental snapshots");
    }

    /**
     * {@link #incrementalSnapshot(long, long)} that may also rewrite one slice of the state, the next of a round of
     * {@code slices}: once the deltas of a whole round are in its chain, they hold every entry between them, and the
     * snapshot says so ({@link KeyedStateSnapshot#filesHoldingEverything}), so the chain drops its older files instead
     * of restarting with a full snapshot. A store that does not rewrite slices ({@link #rewritesSlices}) takes a plain
     * delta, the default.
     *
     * @param checkpointId     the checkpoint.
     * @param baseCheckpointId the base, for which {@link #canSnapshotIncrementally} is true.
     * @param slices           how many slices make a round (at least 1).
     * @return the asynchronous part, to be written by a flusher.
     * @throws IllegalStateException when no delta against that base can be taken.
     */
    default KeyedStateSnapshot incrementalSnapshot(final long checkpointId, final long baseCheckpointId,
        final int slices)
    {
        return incrementalSnapshot(checkpointId, baseCheckpointId);
    }

    /**
     * From this many entries on, a store that can rewrite slices does so by default
     * ({@code CheckpointConfig.Slices.AUTO}): a full snapshot of two million entries takes about a second on the
     * benchmark machine (docs/benchmarks.md), while below it a share of the state in every delta costs a job more
     * than an occasional full snapshot (at a million keys, checkpoint p50 34 ms against 24 ms, measured).
     */
    long SLICES_FROM_ENTRIES = 2_000_000;

    /**
     * @return whether {@link #incrementalSnapshot(long, long, int)} rewrites slices of the state, so that its chains
     *     stay bounded without full snapshots; false by default.
     */
    default boolean rewritesSlices()
    {
        return false;
    }

    /**
     * Forgets the changes up to a checkpoint's barrier: no later delta will be based on an earlier checkpoint
     * (bases only move forward). Frees memory when full snapshots are taken; does nothing when changes are not
     * tracked.
     *
     * @param checkpointId the oldest base still possible.
     */
    default void forgetChangesUpTo(final long checkpointId)
    {
    }

    /**
     * Restores state from snapshots, before any record is processed and before any state is declared (values are
     * decoded when their state is declared, and checked against the declaration then). Entries of key groups this
     * store does not own are skipped, so the snapshots of several former subtasks can be given (rescaling).
     *
     * @param snapshots the snapshots to restore from, full ones (a chain of an incremental checkpoint is merged by
     *                  {@link io.ringflow.state.snapshot.KeyedSnapshotChain} first).
     * @throws IllegalStateException when a snapshot was written with another number of key groups, or is a delta.
     */
    void restore(List<KeyedSnapshotReader> snapshots);

    /**
     * Says that the store was just {@link #restore restored} from exactly this subtask's own keyed snapshot of a
     * checkpoint (the same key groups, no other subtask's): it holds what that snapshot holds. A store that tracks
     * changes may then make that checkpoint a base of its next delta ({@link #canSnapshotIncrementally}), so that the
     * first checkpoint after a restore extends the restored chain instead of writing the whole state again. Same
     * thread contract as {@link #restore}, right after it. The default does nothing (the next snapshot is full).
     *
     * @param checkpointId the checkpoint restored.
     */
    default void restoredFrom(final long checkpointId)
    {
    }

    /**
     * Local recovery: whether {@link #revertTo} can bring this store back to a checkpoint's barrier in place. Called
     * after the store's task and every write of its snapshots have ended, before the store is handed to a new attempt.
     *
     * @param checkpointId a completed checkpoint.
     * @return true when this store took that checkpoint's snapshot itself while tracking changes
     *     ({@link #trackChanges}) and still knows every change since; false by default.
     */
    default boolean canRevertTo(final long checkpointId)
    {
        return whyNotRevertibleTo(checkpointId) == null;
    }

    /**
     * Local recovery: why {@link #revertTo} cannot bring this store back to a checkpoint, for the log line of a store
     * restored in full instead. Same calling contract as {@link #canRevertTo}.
     *
     * @param checkpointId a completed checkpoint.
     * @return null when {@link #canRevertTo} is true; otherwise the reason, a phrase that reads on after "cannot be
     *     reverted to checkpoint N: ".
     */
    default String whyNotRevertibleTo(final long checkpointId)
    {
        return "this backend does not track changes, so it is never reverted in place";
    }

    /**
     * Local recovery: brings this store back to its state at a checkpoint's barrier, rewriting only the entries that
     * changed since from that checkpoint's snapshots; afterwards it holds exactly what {@link #restore} from the same
     * snapshots into a new store would hold. The states declared before stay declared: the next declaration of each
     * (by the new attempt's operators) returns it, bound to the new descriptor's functions. No delta can be based on
     * an earlier checkpoint afterwards, as after a restore. Same thread contract as {@link #restore}.
     *
     * @param checkpointId a checkpoint for which {@link #canRevertTo} is true.
     * @param snapshots    that checkpoint's snapshots of this store's key groups (a chain merged first), as for
     *                     {@link #restore}.
     * @return the number of (state, key) pairs rewritten.
     * @throws IllegalStateException when {@link #canRevertTo} is false.
     */
    default long revertTo(final long checkpointId, final List<KeyedSnapshotReader> snapshots)
    {
        throw new IllegalStateException(getClass().getSimpleName() + " cannot be reverted in place");
    }

    /**
     * The number of entries a snapshot taken now would hold at most: one per (state, key) for value, list, reducing
     * and aggregating states, one per (state, key, user key) for map states. Entries that expired but were not
     * touched since are counted until they are removed; restored states not declared yet are counted.
     *
     * @return the number of entries held; for tests and statistics.
     */
    long entryCount();

    /**
     * Releases what the store holds (off-heap memory, files). Called once, after its task and every write of its
     * snapshots have ended. Does nothing by default.
     */
    @Override
    default void close()
    {
    }
}
