package io.ringflow.engine.runtime.operators;

import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.KeySelector;
import io.ringflow.engine.api.functions.KeyedCoProcessFunction;
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
 * Runs a {@link KeyedCoProcessFunction}: each input's records are scoped to their key (extracted with that input's
 * key selector, or sent by the producer), keyed state and timers are shared by key across both inputs. Time, timers
 * and side outputs work exactly as in {@link KeyedProcessOperator}, whose structure this follows.
 */
public final class KeyedCoProcessOperator extends StreamOperator
    implements KeyedCoProcessFunction.OnTimerContext<Object>, TimerService, KeyedTimers.Target
{
    private final KeyedCoProcessFunction<Object, Object, Object, Object> function;
    private final KeySelector<Object, Object> keySelector1;
    private final KeySelector<Object, Object> keySelector2;
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
     * @param function     this subtask's own instance.
     * @param keySelector1 the key of the first input.
     * @param keySelector2 the key of the second input.
     */
    @SuppressWarnings("unchecked")
    public KeyedCoProcessOperator(final KeyedCoProcessFunction<?, ?, ?, ?> function,
        final KeySelector<?, ?> keySelector1, final KeySelector<?, ?> keySelector2)
    {
        this.function = (KeyedCoProcessFunction<Object, Object, Object, Object>)function;
        this.keySelector1 = (KeySelector<Object, Object>)keySelector1;
        this.keySelector2 = (KeySelector<Object, Object>)keySelector2;
        this.timed = OperatorSupport.overrides(function.getClass(), KeyedCoProcessFunction.class, "onTimer",
            long.class, KeyedCoProcessFunction.OnTimerContext.class, Collector.class);
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
        scope(keySelector1, record, keyGroup);
        process(record, true);
    }

    @Override
    public void processElement(final Object record, final int keyGroup, final long key) throws Exception
    {
        state.setCurrentKey(key, keyGroup);
        currentKeyGroup = keyGroup;
        process(record, true);
    }

    @Override
    public void processElement2(final Object record) throws Exception
    {
        processElement2(record, SlotDescriptor.NO_KEY_GROUP);
    }

    @Override
    public void processElement2(final Object record, final int keyGroup) throws Exception
    {
        scope(keySelector2, record, keyGroup);
        process(record, false);
    }

    @Override
    public void processElement2(final Object record, final int keyGroup, final long key) throws Exception
    {
        state.setCurrentKey(key, keyGroup);
        currentKeyGroup = keyGroup;
        process(record, false);
    }

    private void scope(final KeySelector<Object, Object> selector, final Object record, final int keyGroup)
        throws Exception
    {
        final Object key = selector.getKey(record);
        if (key == null)
        {
            throw NullKeyException.of(runtime.operatorName(), record);
        }
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
    }

    private void process(final Object record, final boolean first) throws Exception
    {
        try
        {
            if (first)
            {
                function.processElement1(record, this, output);
            }
            else
            {
                function.processElement2(record, this, output);
            }
        }
        finally
        {
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
