package io.ringflow.engine.api.eventtime;

import java.time.Duration;

/**
 * A periodic generator for records that arrive at most a fixed delay out of order: the watermark is the largest
 * timestamp seen, minus the delay, minus one (a record exactly the delay late is still on time). With a delay of
 * zero, for timestamps that only grow, it is the monotonous generator.
 *
 * @param <T> the record type.
 */
public final class BoundedOutOfOrdernessWatermarks<T> implements WatermarkGenerator<T>
{
    private final long outOfOrdernessMillis;
    private long maxTimestamp;

    /** @param maxOutOfOrderness how late a record may arrive behind the latest one seen; not negative. */
    public BoundedOutOfOrdernessWatermarks(final Duration maxOutOfOrderness)
    {
        if (maxOutOfOrderness == null || maxOutOfOrderness.isNegative())
        {
            throw new IllegalArgumentException("maxOutOfOrderness must be zero or positive, was " + maxOutOfOrderness);
        }
        this.outOfOrdernessMillis = maxOutOfOrderness.toMillis();
        // so that the first watermark, before any record, does not underflow
        this.maxTimestamp = Long.MIN_VALUE + outOfOrdernessMillis + 1;
    }

    @Override
    public void onEvent(final T event, final long timestamp, final WatermarkOutput output)
    {
        if (timestamp > maxTimestamp)
        {
            maxTimestamp = timestamp;
        }
    }

    @Override
    public void onPeriodicEmit(final WatermarkOutput output)
    {
        output.emitWatermark(maxTimestamp - outOfOrdernessMillis - 1);
    }
}
