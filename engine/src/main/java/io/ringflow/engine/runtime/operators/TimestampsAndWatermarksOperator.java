package io.ringflow.engine.runtime.operators;

import io.ringflow.engine.api.eventtime.TimestampAssigner;
import io.ringflow.engine.api.eventtime.WatermarkGenerator;
import io.ringflow.engine.api.eventtime.WatermarkOutput;
import io.ringflow.engine.api.eventtime.WatermarkStrategy;
import io.ringflow.engine.channel.RecordTimestamp;
import io.ringflow.engine.runtime.task.StreamOperator;
import io.ringflow.engine.runtime.task.TaskTime;

/**
 * Runs a {@link WatermarkStrategy}: gives each record its timestamp (the assigner's, or the one it came with), feeds
 * the subtask's generator, asks it for a watermark every auto-watermark interval of processing time, and marks the
 * output idle after the strategy's idleness timeout without records. Watermarks from upstream are dropped (this
 * operator decides event time from here on) except the final {@link Long#MAX_VALUE} at the end of the input.
 *
 * <p>Thread contract: the task thread. Per record: one assigner call, one generator call, no allocation.
 */
public final class TimestampsAndWatermarksOperator extends StreamOperator implements WatermarkOutput
{
    private final WatermarkStrategy<Object> strategy;
    private TimestampAssigner<Object> assigner;
    private WatermarkGenerator<Object> generator;
    private RecordTimestamp timestamps;
    private TaskTime time;
    private long interval;
    private long idleTimeout;
    private long nextPeriodic;
    private long lastEmitted = Long.MIN_VALUE;
    private boolean idle;
    /** Records since the last periodic look; lets idleness be judged without reading the clock per record. */
    private long recordsSinceLook;
    private long lastActiveAt;

    /** @param strategy the strategy; one generator per subtask is created from it at open. */
    @SuppressWarnings("unchecked")
    public TimestampsAndWatermarksOperator(final WatermarkStrategy<?> strategy)
    {
        this.strategy = (WatermarkStrategy<Object>)strategy;
    }

    @Override
    public void initializeState() throws Exception
    {
        // the generator exists before its state is restored (it may be a CheckpointedFunction)
        generator = strategy.createGenerator();
        initializeListenerState();
    }

    @Override
    public void open()
    {
        assigner = strategy.timestampAssigner();
        time = runtime.time();
        timestamps = time.timestamp;
        interval = time.autoWatermarkIntervalMillis();
        idleTimeout = strategy.idleness() == null ? -1 : strategy.idleness().toMillis();
        final long now = time.now();
        nextPeriodic = now + interval;
        lastActiveAt = now;
    }

    @Override
    public void processElement(final Object record) throws Exception
    {
        final long previous = timestamps.value;
        final long timestamp = assigner == null ? previous : assigner.extractTimestamp(record, previous);
        if (timestamp < 0 && (timestamp == RecordTimestamp.NO_TIMESTAMP || !strategy.negativeTimestampsAllowed()))
        {
            throw badTimestamp(record, timestamp);
        }
        recordsSinceLook++;
        if (idle)
        {
            markActive();
        }
        timestamps.value = timestamp;
        try
        {
            output.collect(record);
        }
        finally
        {
            // the source's other outputs (if any) see the record as it came
            timestamps.value = previous;
        }
        // after the record: a watermark the record itself implies must not make it late
        generator.onEvent(record, timestamp, this);
    }

    private IllegalArgumentException badTimestamp(final Object record, final long timestamp)
    {
        if (timestamp == RecordTimestamp.NO_TIMESTAMP)
        {
            return new IllegalArgumentException("operator '" + runtime.operatorName() + "' has no timestamp for " +
                "record " + record + (assigner == null ? ": it came without one and the WatermarkStrategy has no " +
                "timestamp assigner (add withTimestampAssigner)" : ": the timestamp assigner returned " +
                "Long.MIN_VALUE, which stands for no timestamp"));
        }
        return new IllegalArgumentException("operator '" + runtime.operatorName() + "' got the negative timestamp " +
            timestamp + " for record " + record + "; negative timestamps are refused unless the WatermarkStrategy " +
            "allows them (allowingNegativeTimestamps())");
    }

    @Override
    public void processWatermark(final long watermark)
    {
        // event time is this operator's to decide; only the end of the input passes
        if (watermark == Long.MAX_VALUE)
        {
            emitWatermark(Long.MAX_VALUE);
        }
    }

    @Override
    public void processWatermarkStatus(final boolean idle)
    {
        // likewise: idleness is judged here
    }

    @Override
    public boolean usesTimers()
    {
        return true;
    }

    @Override
    public long nextProcessingTime()
    {
        return nextPeriodic;
    }

    @Override
    public int fireTimers(final long now, final int budget)
    {
        if (now < nextPeriodic)
        {
            return 0;
        }
        nextPeriodic = now + interval;
        if (recordsSinceLook > 0)
        {
            recordsSinceLook = 0;
            lastActiveAt = now;
        }
        generator.onPeriodicEmit(this);
        if (idleTimeout > 0 && !idle && now - lastActiveAt >= idleTimeout)
        {
            markIdle();
        }
        return 0;
    }

    @Override
    public void emitWatermark(final long watermark)
    {
        // only an advancing watermark makes an idle output active (a periodic emit that repeats itself must not)
        if (watermark > lastEmitted)
        {
            if (idle)
            {
                markActive();
            }
            lastEmitted = watermark;
            output.emitWatermark(watermark);
        }
    }

    @Override
    public void markIdle()
    {
        if (!idle)
        {
            idle = true;
            output.emitWatermarkStatus(true);
        }
    }

    @Override
    public void markActive()
    {
        if (idle)
        {
            idle = false;
            output.emitWatermarkStatus(false);
        }
    }

    @Override
    protected Object listener()
    {
        return generator;
    }
}
