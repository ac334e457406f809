package io.ringflow.engine.channel;

/**
 * The event-time timestamp of the record a task is processing: one cell per task, shared by its input channels (which
 * set it from each record's slot), its operators (a timestamp assigner sets it, a timer or window sets it for what it
 * emits) and its writers (which send it in front of each record). {@link #NO_TIMESTAMP} when the record has none.
 *
 * <p>Thread contract: the task thread only; no synchronization.
 */
public final class RecordTimestamp
{
    /** The value of a record that has no timestamp; no timestamp may take it. */
    public static final long NO_TIMESTAMP = Long.MIN_VALUE;

    /** The current record's timestamp, or {@link #NO_TIMESTAMP}. */
    public long value = NO_TIMESTAMP;
}
