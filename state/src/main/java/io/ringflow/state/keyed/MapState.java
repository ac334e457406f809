package io.ringflow.state.keyed;

import java.util.Map;

/**
 * A map per key, from user keys to values, scoped to the key of the record being processed.
 *
 * <p>User keys are compared by their encoded bytes in the Chronicle backend and by {@code equals} in the heap
 * backend; the two agree for every built-in codec and every record of such types (floating-point components aside:
 * {@code -0.0} and {@code 0.0}, and NaNs with different bits, differ as bytes). Neither user keys nor values may be
 * {@code null}; {@code put(userKey, null)} removes the user key, like {@link ValueState#update}({@code null}).
 *
 * <p>Iteration ({@link #entries()}, {@link #keys()}, {@link #values()}) returns read-only views in no particular
 * order, valid until this state is next changed for the current key: copy what must outlive that. With a
 * time-to-live, each user key expires on its own; expired entries are never returned and are removed when touched.
 *
 * <p>Thread contract: the task thread only, like every state.
 *
 * @param <UK> the user key type.
 * @param <UV> the value type.
 */
public interface MapState<UK, UV> extends State
{
    /**
     * @param userKey a user key.
     * @return its value for the current key, or null when it has none.
     */
    UV get(UK userKey);

    /**
     * @param userKey a user key.
     * @param value   its new value for the current key; null removes the user key.
     */
    void put(UK userKey, UV value);

    /** @param userKey a user key to remove for the current key; nothing happens when it has no value. */
    void remove(UK userKey);

    /**
     * @param userKey a user key.
     * @return whether it has a value for the current key.
     */
    boolean contains(UK userKey);

    /** @return the current key's entries, read-only. */
    Iterable<Map.Entry<UK, UV>> entries();

    /** @return the current key's user keys, read-only. */
    Iterable<UK> keys();

    /** @return the current key's values, read-only. */
    Iterable<UV> values();

    /** @return whether the current key has no entry. Never refreshes a time-to-live. */
    boolean isEmpty();

    /** Removes every entry of the current key. */
    @Override
    void clear();
}
