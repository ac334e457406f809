package io.ringflow.engine.api.functions;

/**
 * Time and timers of a keyed operator, for the key of the record (or timer) being processed. Timers are per key and
 * time: registering the same one twice keeps one. They are part of every checkpoint and savepoint and are restored
 * with their key's key group, at any parallelism. Called on the task thread, inside {@code processElement} or
 * {@code onTimer} only: elsewhere there is no current key and registering fails.
 */
public interface TimerService
{
    /** @return processing time, epoch ms, from the job's clock. */
    long currentProcessingTime();

    /** @return the operator's current input watermark; {@link Long#MIN_VALUE} before the first. */
    long currentWatermark();

    /**
     * Fires {@code onTimer} once the watermark reaches {@code time} (a timer at or below the current watermark fires
     * at the next chance).
     *
     * @param time event time.
     */
    void registerEventTimeTimer(long time);

    /**
     * Fires {@code onTimer} once the processing-time clock reaches {@code time}.
     *
     * @param time processing time, epoch ms.
     */
    void registerProcessingTimeTimer(long time);

    /** @param time an event-time timer of the current key to forget; nothing happens if there is none. */
    void deleteEventTimeTimer(long time);

    /** @param time a processing-time timer of the current key to forget; nothing happens if there is none. */
    void deleteProcessingTimeTimer(long time);
}
