package io.ringflow.state.heap;

/**
 * A heap cell of a state with a time-to-live: the value and the time it was last refreshed. Immutable, so a snapshot's
 * copy of the cells can share it; a refresh replaces it.
 *
 * @param value     the value (for a list state, the list).
 * @param timestamp when it was last refreshed, epoch millis of the state's clock.
 */
record HeapTimestamped(Object value, long timestamp)
{
}
