package io.ringflow.state.keyed;

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
     * @return the number of (state, key) entries held; for tests and statistics.
     */
    long entryCount();
}
