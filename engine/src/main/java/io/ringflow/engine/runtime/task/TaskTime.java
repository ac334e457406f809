package io.ringflow.engine.runtime.task;

import io.ringflow.engine.channel.RecordTimestamp;

import java.time.Clock;

/**
 * Time as one task sees it: the timestamp of the record being processed (shared by the task's input channels,
 * operators and writers), the processing-time clock, and how many timers an operator fires in one go.
 *
 * <p>Thread contract: the task thread only.
 */
public final class TaskTime
{
    /** The current record's timestamp; see {@link RecordTimestamp}. */
    public final RecordTimestamp timestamp = new RecordTimestamp();
    private final Clock clock;
    private final int firingBatch;
    private final long autoWatermarkIntervalMillis;
    /** The job's count of records too late for every window, over all attempts; shared by its tasks. */
    private final java.util.concurrent.atomic.LongAdder lateRecordsDropped;

    /**
     * @param clock                       where processing time comes from.
     * @param firingBatch                 the most timers an operator fires before its task reads inputs again.
     * @param autoWatermarkIntervalMillis how often periodic watermark generators emit.
     */
    public TaskTime(final Clock clock, final int firingBatch, final long autoWatermarkIntervalMillis)
    {
        this(clock, firingBatch, autoWatermarkIntervalMillis, new java.util.concurrent.atomic.LongAdder());
    }

    /**
     * @param clock                       where processing time comes from.
     * @param firingBatch                 the most timers an operator fires before its task reads inputs again.
     * @param autoWatermarkIntervalMillis how often periodic watermark generators emit.
     * @param lateRecordsDropped          the job's count of late records dropped, shared by its tasks.
     */
    public TaskTime(final Clock clock, final int firingBatch, final long autoWatermarkIntervalMillis,
        final java.util.concurrent.atomic.LongAdder lateRecordsDropped)
    {
        this.lateRecordsDropped = lateRecordsDropped;
        this.clock = clock;
        this.firingBatch = firingBatch;
        this.autoWatermarkIntervalMillis = autoWatermarkIntervalMillis;
    }

    /** @return a task time with the system clock and the default batch and interval. */
    public static TaskTime systemDefault()
    {
        return new TaskTime(Clock.systemUTC(), 1024, 200);
    }

    /** Counts one record too late for every window that no side output took. Any task thread. */
    public void lateRecordDropped()
    {
        lateRecordsDropped.increment();
    }

    /** @return processing time, epoch milliseconds. */
    public long now()
    {
        return clock.millis();
    }

    /** @return the most timers an operator fires in one go. */
    public int firingBatch()
    {
        return firingBatch;
    }

    /** @return how often periodic watermark generators emit, in milliseconds. */
    public long autoWatermarkIntervalMillis()
    {
        return autoWatermarkIntervalMillis;
    }
}
