package io.ringflow.engine.runtime.operators;

import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.KeySelector;
import io.ringflow.engine.api.functions.KeyedProcessFunction;
import io.ringflow.engine.api.functions.OutputTag;
import io.ringflow.engine.api.functions.TimeDomain;
import io.ringflow.engine.api.functions.TimerService;
import io.ringflow.engine.channel.RecordTimestamp;
import io.ringflow.engine.channel.SlotDescriptor;
import io.ringflow.engine.runtime.task.NullKeyException;
import io.ringflow.engine.runtime.task.Output;
import io.ringflow.engine.runtime.task.StreamOperator;
import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.keyed.KeyGroups;

/**
 * Runs a {@link KeyedProcessFunction}: extracts each record's key (the same key selector that partitioned it),
 * scopes keyed state to it, and calls the function. The operator is itself the context, the on-timer context and the
 * timer service (reused across calls, so nothing is allocated per record).
 *
 * <p>Timers ({@link KeyedTimers}) are used only by a function that overrides {@code onTimer}: it fires event-time
 * timers as watermarks arrive, in batches of at most {@code JobConfig.timerFiringBatch}, and forwards the watermark
 * only as far as it has fired; processing-time timers fire when the job's clock reaches them.
 */
public final class KeyedProcessOperator extends StreamOperator
    implements KeyedProcessFunction.OnTimerContext<Object>, TimerService, KeyedTimers.Target
{
    private final KeyedProcessFunction<Object, Object, Object> function;
    private final KeySelector<Object, Object> keySelector;
    /** Whether the function overrides onTimer: only then are timers kept, fired and checkpointed. */
    private final boolean timed;
    private final KeyedTimers timers;
    private KeyedStateStore state;
    private RecordTimestamp timestamps;
    /** The key group of the current key; valid while a record or timer is processed. */
    private int currentKeyGroup;
    /** The domain of the timer being fired, or null while a record is processed. */
    private TimeDomain firing;
    /** The last watermark received, for a function without timers. */
    private long lastWatermark = Long.MIN_VALUE;

    /**
     * @param function    this subtask's own instance.
     * @param keySelector the key of the input.
     */
    @SuppressWarnings("unchecked")
    public KeyedProcessOperator(final KeyedProcessFunction<?, ?, ?> function, final KeySelector<?, ?> keySelector)
    {
        this.function = (KeyedProcessFunction<Object, Object, Object>)function;
        this.keySelector = (KeySelector<Object, Object>)keySelector;
        this.timed = OperatorSupport.overrides(function.getClass(), KeyedProcessFunction.class, "onTimer", long.class,
            KeyedProcessFunction.OnTimerContext.class, Collector.class);
        this.timers = timed ? new KeyedTimers(this) : null;
    }

    @Override
    public void initializeState() throws Exception
    {
        if (timed)
        {
            timers.initializeState(runtime);
        }
        initializeListenerState();
    }

    @Override
    public void open() throws Exception
    {
        state = runtime.keyedStateStore();
        timestamps = runtime.time().timestamp;
        function.open(runtime);
    }

    @Override
    public void processElement(final Object record) throws Exception
    {
        processElement(record, SlotDescriptor.NO_KEY_GROUP);
    }

    @Override
    public void processElement(final Object record, final int keyGroup) throws Exception
    {
        final Object key = keySelector.getKey(record);
        if (key == null)
        {
            throw NullKeyException.of(runtime.operatorName(), record);
        }
        // the key group the producer computed and sent with the record: no second hash; the unboxed path for Long keys
        final int group = keyGroup != SlotDescriptor.NO_KEY_GROUP ? keyGroup :
            KeyGroups.keyGroupOf(key, runtime.maxParallelism());
        if (key instanceof Long)
        {
            state.setCurrentKey(((Long)key).longValue(), group);
        }
        else
        {
            state.setCurrentKey(key, group);
        }
        currentKeyGroup = group;
        process(record);
    }

    @Override
    public void processElement(final Object record, final int keyGroup, final long key) throws Exception
    {
        // the producer extracted the key and sent it: no key selector, no box, no hash
        state.setCurrentKey(key, keyGroup);
        currentKeyGroup = keyGroup;
        process(record);
    }

    private void process(final Object record) throws Exception
    {
        try
        {
            function.processElement(record, this, output);
        }
        finally
        {
            // state used outside a record (open, close, endInput) must fail, not touch the last record's key
            state.setCurrentKey(null);
        }
    }

    // ---------------------------------------------------------------- time

    @Override
    public void processWatermark(final long watermark) throws Exception
    {
        if (!timed)
        {
            lastWatermark = watermark;
            output.emitWatermark(watermark);
            return;
        }
        timers.onWatermark(watermark, runtime.time().firingBatch(), output);
    }

    @Override
    public boolean usesTimers()
    {
        return timed;
    }

    @Override
    public long nextProcessingTime()
    {
        return timers.nextProcessingTime();
    }

    @Override
    public boolean hasPendingTimers()
    {
        return timers.eventTimersDue();
    }

    @Override
    public int fireTimers(final long now, final int budget) throws Exception
    {
        return timers.fireDue(now, budget, output);
    }

    @Override
    public void onTimer(final KeyedTimers.Timer timer, final boolean eventTime) throws Exception
    {
        final Object key = timer.key();
        if (key instanceof Long)
        {
            state.setCurrentKey(((Long)key).longValue(), timer.keyGroup());
        }
        else
        {
            state.setCurrentKey(key, timer.keyGroup());
        }
        currentKeyGroup = timer.keyGroup();
        firing = eventTime ? TimeDomain.EVENT_TIME : TimeDomain.PROCESSING_TIME;
        final long previous = timestamps.value;
        // what an event-time timer emits carries the timer's time; a processing-time timer's output has none
        timestamps.value = eventTime ? timer.time() : RecordTimestamp.NO_TIMESTAMP;
        try
        {
            function.onTimer(timer.time(), this, output);
        }
        finally
        {
            firing = null;
            timestamps.value = previous;
            state.setCurrentKey(null);
        }
    }

    @Override
    public void onBarrier(final long checkpointId) throws Exception
    {
        // timers are captured by the operator state store itself (KeyedTimers is a deferred state)
        snapshotListener(checkpointId);
    }

    // ---------------------------------------------------------------- context

    @Override
    public Object getCurrentKey()
    {
        return state.currentKey();
    }

    @Override
    public long currentProcessingTime()
    {
        return runtime.time().now();
    }

    @Override
    public long timestamp()
    {
        return timestamps.value;
    }

    @Override
    public TimerService timerService()
    {
        return this;
    }

    @Override
    public TimeDomain timeDomain()
    {
        return firing;
    }

    @Override
    public <X> void output(final OutputTag<X> tag, final X value)
    {
        final Output side = runtime.sideOutput(tag);
        if (side == null)
        {
            runtime.sideOutputRecordDropped();
            return;
        }
        side.collect(value);
    }

    // ---------------------------------------------------------------- timer service

    @Override
    public long currentWatermark()
    {
        return timed ? timers.currentWatermark() : lastWatermark;
    }

    @Override
    public void registerEventTimeTimer(final long time)
    {
        timers().register(true, time, keyForTimer(), currentKeyGroup);
    }

    @Override
    public void registerProcessingTimeTimer(final long time)
    {
        timers().register(false, time, keyForTimer(), currentKeyGroup);
    }

    @Override
    public void deleteEventTimeTimer(final long time)
    {
        timers().delete(true, time, keyForTimer());
    }

    @Override
    public void deleteProcessingTimeTimer(final long time)
    {
        timers().delete(false, time, keyForTimer());
    }

    private KeyedTimers timers()
    {
        if (!timed)
        {
            throw new IllegalStateException("operator '" + runtime.operatorName() + "' registers a timer, but its " +
                function.getClass().getName() + " does not override onTimer(long, OnTimerContext, Collector): the " +
                "timer could never do anything");
        }
        return timers;
    }

    private Object keyForTimer()
    {
        final Object key = state.currentKey();
        if (key == null)
        {
            throw new IllegalStateException("operator '" + runtime.operatorName() + "' used its timer service " +
                "outside processElement/onTimer: timers belong to a key, and there is no current key here");
        }
        return key;
    }

    @Override
    public void close() throws Exception
    {
        function.close();
    }

    @Override
    protected Object listener()
    {
        return function;
    }
}
