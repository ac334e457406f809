package io.ringflow.state.heap;

import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.keyed.State;
import io.ringflow.state.keyed.StateDescriptor;
import io.ringflow.state.keyed.StateTtlConfig;
import io.ringflow.state.snapshot.TtlValues;

/**
 * What every heap state shares: its declaration, the current key of its store, its time-to-live, and how it is
 * frozen for a snapshot and filled from a restore.
 *
 * <p>With a time-to-live, every stored value is wrapped in a {@link HeapTimestamped}; the clock is read at most once
 * per operation.
 *
 * <p>Thread contract: the task thread only.
 */
abstract class HeapState implements State
{
    final HeapKeyedStateStore store;
    final StateDescriptor descriptor;
    /** The time-to-live, or null. */
    final StateTtlConfig ttl;

    HeapState(final HeapKeyedStateStore store, final StateDescriptor descriptor)
    {
        this.store = store;
        this.descriptor = descriptor;
        this.ttl = descriptor.ttlConfig();
    }

    /** @return the entries held, as {@link KeyedStateStore#entryCount()} counts them. */
    abstract long size();

    /**
     * @return a copy of the entries as they are now, which later changes do not affect, with the time of the barrier
     * for the time-to-live. Task thread, at the barrier.
     */
    abstract HeapFrozenState freeze();

    /**
     * Puts a restored entry, outside the processing of any record.
     *
     * @param key       the key.
     * @param userKey   the user key of a map state's entry; null for every other kind.
     * @param value     the decoded value (a list for a list state, the accumulator for an aggregating state).
     * @param timestamp its time-to-live timestamp; meaningless without a time-to-live.
     */
    abstract void putRestored(Object key, Object userKey, Object value, long timestamp);

    final Object requireKey()
    {
        final Object key = store.currentKey();
        if (key == null)
        {
            throw new IllegalStateException("state '" + descriptor.name() +
                "' used outside the processing of a keyed record: there is no current key");
        }
        return key;
    }

    /** @return the time now, from the time-to-live's clock. */
    final long now()
    {
        return ttl.clock().getAsLong();
    }

    /** @return the time now, or 0 when the state has no time-to-live. */
    final long barrierTime()
    {
        return ttl == null ? 0 : now();
    }

    final boolean expired(final HeapTimestamped value, final long now)
    {
        return TtlValues.isExpired(value.timestamp(), ttl.ttlMillis(), now);
    }

    final boolean refreshesOnRead()
    {
        return ttl != null && ttl.updateType() == StateTtlConfig.UpdateType.OnReadAndWrite;
    }

    @Override
    public String toString()
    {
        return getClass().getSimpleName() + '{' + descriptor + '}';
    }
}
