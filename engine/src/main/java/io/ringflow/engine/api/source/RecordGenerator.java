package io.ringflow.engine.api.source;

import java.io.Serializable;

/**
 * Makes the record with a given index for a {@link GeneratorSource}. Must be a pure function of its arguments, so a
 * generator restarted at an index produces the same records again.
 *
 * @param <T> the record type.
 */
@FunctionalInterface
public interface RecordGenerator<T> extends Serializable
{
    /**
     * @param index         the record's global index, from 0.
     * @param creationNanos when the record was due, in {@link System#nanoTime()} units: the scheduled time at a fixed
     *                      rate (so latency measured from it is corrected for coordinated omission), the time of
     *                      generation otherwise.
     * @return the record, never null.
     */
    T generate(long index, long creationNanos);
}
