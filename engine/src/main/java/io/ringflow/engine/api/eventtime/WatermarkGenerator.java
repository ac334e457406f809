package io.ringflow.engine.api.eventtime;

/**
 * Decides watermarks from the records one source subtask sees: on each record, and periodically (every
 * {@code JobConfig.autoWatermarkInterval} of processing time). One instance per subtask, called on its task thread.
 *
 * @param <T> the record type.
 */
public interface WatermarkGenerator<T>
{
    /**
     * A record and its timestamp; a generator that emits per record (punctuated) emits here.
     *
     * @param event     the record.
     * @param timestamp its timestamp.
     * @param output    where watermarks go.
     */
    void onEvent(T event, long timestamp, WatermarkOutput output);

    /**
     * Called every watermark interval; a periodic generator emits here.
     *
     * @param output where watermarks go.
     */
    void onPeriodicEmit(WatermarkOutput output);
}
