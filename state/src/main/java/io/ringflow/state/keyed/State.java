package io.ringflow.state.keyed;

/**
 * What every kind of keyed state has: it is scoped to the current key of its store, and can be cleared for it.
 *
 * <p>Thread contract: only the thread that runs the keyed function may use a state, and only while a record or timer
 * of some key is being processed: the key is implicit. Using a state without a current key is an
 * {@link IllegalStateException} naming the state.
 */
public interface State
{
    /** Removes everything the current key holds in this state. */
    void clear();
}
