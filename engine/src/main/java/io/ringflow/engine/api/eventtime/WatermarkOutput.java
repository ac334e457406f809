package io.ringflow.engine.api.eventtime;

/**
 * Where a {@link WatermarkGenerator} sends what it decides. Called on the task thread of the generating subtask.
 */
public interface WatermarkOutput
{
    /**
     * Declares that no record with a timestamp at or below {@code watermark} follows. A watermark that does not
     * advance is ignored; one sent while idle makes the output active again.
     *
     * @param watermark the new watermark.
     */
    void emitWatermark(long watermark);

    /** This output has nothing to say for now: downstream leaves it out of its watermark until it is active again. */
    void markIdle();

    /** This output is active again (a record or a watermark also makes it so). */
    void markActive();
}
