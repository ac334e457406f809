package io.ringflow.engine.runtime.recovery;

import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.keyed.KeyGroupRange;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Local recovery: the keyed stores an attempt that failed left behind, kept for the next attempt of the same run to
 * revert in place ({@link KeyedStateStore#revertTo}) instead of loading a checkpoint into new stores.
 *
 * <p>A store enters only once its task thread has ended and no snapshot flusher can read it any more
 * ({@link #keep}); it is handed to the next attempt's subtask of the same operator uid, subtask index and key groups
 * ({@link #take}), which checks {@link KeyedStateStore#canRevertTo} before using it. Whatever the next deployment
 * does not take is closed by it ({@link #closeUntaken}), and everything is closed when the run ends
 * ({@link #closeAll}). A store is thus owned by exactly one of: an attempt, this registry, or nobody (closed).
 *
 * <p>Thread contract: any thread (an attempt's monitor keeps, the restart timer takes); every method is synchronized,
 * which also orders the store's last use by the failed attempt before its first use by the next.
 */
public final class LocalKeyedStores
{
    private static final System.Logger LOG = System.getLogger(LocalKeyedStores.class.getName());

    private final Map<Slot, KeyedStateStore> kept = new HashMap<>();
    private final LongAdder reverted = new LongAdder();
    private final LongAdder rewrittenKeys = new LongAdder();
    private boolean closed;

    /** Identifies the one subtask a kept store may go to. */
    private record Slot(String uid, int subtask, int firstKeyGroup, int lastKeyGroup)
    {
    }

    /**
     * Keeps a failed attempt's store for the next attempt; closes it at once when the run has ended.
     *
     * @param uid      the operator's uid.
     * @param subtask  its subtask index.
     * @param range    the key groups the store holds.
     * @param store    the store, no longer used by any thread of its attempt.
     */
    public synchronized void keep(final String uid, final int subtask, final KeyGroupRange range,
        final KeyedStateStore store)
    {
        final KeyedStateStore earlier = closed ? store :
            kept.put(new Slot(uid, subtask, range.start(), range.end()), store);
        if (earlier != null)
        {
            close(earlier);
        }
    }

    /**
     * @param uid     the operator's uid.
     * @param subtask its subtask index.
     * @param range   the key groups the new subtask owns.
     * @return the store kept for exactly that subtask and those key groups, now owned by the caller; or null.
     */
    public synchronized KeyedStateStore take(final String uid, final int subtask, final KeyGroupRange range)
    {
        return kept.remove(new Slot(uid, subtask, range.start(), range.end()));
    }

    /** Closes every store a deployment did not take: its operator, parallelism or restore point changed. */
    public void closeUntaken()
    {
        final List<KeyedStateStore> untaken;
        synchronized (this)
        {
            untaken = new ArrayList<>(kept.values());
            kept.clear();
        }
        untaken.forEach(LocalKeyedStores::close);
    }

    /** The run has ended: closes every store kept, and any kept from now on. */
    public void closeAll()
    {
        synchronized (this)
        {
            closed = true;
        }
        closeUntaken();
    }

    /**
     * Counts one store reverted in place.
     *
     * @param keys the (state, key) pairs it rewrote.
     */
    public void reverted(final long keys)
    {
        reverted.increment();
        rewrittenKeys.add(keys);
    }

    /** @return stores reverted in place over the run's restarts. */
    public long storesReverted()
    {
        return reverted.sum();
    }

    /** @return (state, key) pairs those reverts rewrote. */
    public long keysRewritten()
    {
        return rewrittenKeys.sum();
    }

    private static void close(final KeyedStateStore store)
    {
        try
        {
            store.close();
        }
        catch (final RuntimeException ex)
        {
            LOG.log(System.Logger.Level.WARNING, "could not close the kept keyed store " + store, ex);
        }
    }
}
