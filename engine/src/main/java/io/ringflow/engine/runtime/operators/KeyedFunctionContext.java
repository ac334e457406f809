package io.ringflow.engine.runtime.operators;

import io.ringflow.engine.api.functions.KeyedCoProcessFunction;
import io.ringflow.engine.api.functions.KeySelector;
import io.ringflow.engine.api.functions.OutputTag;
import io.ringflow.engine.api.functions.TimeDomain;
import io.ringflow.engine.api.functions.TimerService;
import io.ringflow.engine.channel.RecordTimestamp;
import io.ringflow.engine.channel.SlotDescriptor;
import io.ringflow.engine.runtime.task.NullKeyException;
import io.ringflow.engine.runtime.task.OperatorRuntime;
import io.ringflow.engine.runtime.task.Output;
import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.keyed.KeyGroups;

/**
 * What a keyed process function sees of its operator, shared by {@link KeyedProcessOperator} and
 * {@link KeyedCoProcessOperator}: the current key (scoped in keyed state), the record's timestamp, the timer service
 * and its timers, side outputs; one instance per operator subtask, reused for every record and timer (nothing is
 * allocated per record). It also drives the timers for its operator (watermarks, due timers).
 *
 * <p>Timers ({@link KeyedTimers}) exist only when the function overrides {@code onTimer}: then event-time timers fire
 * as watermarks arrive, in batches of at most {@code JobConfig.timerFiringBatch}, the watermark forwarded only as far
 * as they fired; processing-time timers fire when the job's clock reaches them.
 *
 * <p>Thread contract: the task thread.
 */
final class KeyedFunctionContext implements KeyedCoProcessFunction.OnTimerContext<Object>, TimerService
{
    private final Object function;
    private final KeyedTimers timers;
    private OperatorRuntime runtime;
    private KeyedStateStore state;
    private RecordTimestamp timestamps;
    /** The key group of the current key; valid while a record or timer is processed. */
    private int currentKeyGroup;
    /** The domain of the timer being fired, or null while a record is processed. */
    private TimeDomain firing;
    /** The last watermark received, for a function without timers. */
    private long lastWatermark = Long.MIN_VALUE;

    /**
     * @param function the user's function, for messages.
     * @param timers   its timers (calling back its operator), or null when it has no {@code onTimer}.
     */
    KeyedFunctionContext(final Object function, final KeyedTimers timers)
    {
        this.function = function;
        this.timers = timers;
    }

    /** Restores the timers; the operator's {@code initializeState}. @param runtime the operator. */
    void initializeState(final OperatorRuntime runtime)
    {
        this.runtime = runtime;
        if (timers != null)
        {
            timers.initializeState(runtime);
        }
    }

    /** @param runtime the operator, opened. */
    void open(final OperatorRuntime runtime)
    {
        this.runtime = runtime;
        state = runtime.keyedStateStore();
        timestamps = runtime.time().timestamp;
    }

    /** @return whether the function has timers. */
    boolean timed()
    {
        return timers != null;
    }

    // ---------------------------------------------------------------- the current key

    /**
     * Scopes keyed state to the record's key, with the key group the producer sent when there is one (no second
     * hash), unboxed for {@code Long} keys.
     *
     * @param selector the record's input's key.
     * @param record   the record.
     * @param keyGroup the key group sent with it, or NO_KEY_GROUP.
     * @throws Exception from the key selector.
     */
    void scope(final KeySelector<Object, Object> selector, final Object record, final int keyGroup) throws Exception
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

    /**
     * @param keyGroup the key group of the key the operator made current itself (a {@code Long} key the producer
     *                 sent: the operator scopes state on its own, specialised, record path), for timers.
     */
    void keyGroup(final int keyGroup)
    {
        currentKeyGroup = keyGroup;
    }

    // ---------------------------------------------------------------- driving the timers

    /**
     * @param watermark the operator's new input watermark.
     * @param output    the operator's output.
     * @throws Exception from a timer.
     */
    void processWatermark(final long watermark, final Output output) throws Exception
    {
        if (timers == null)
        {
            lastWatermark = watermark;
            output.emitWatermark(watermark);
            return;
        }
        timers.onWatermark(watermark, runtime.time().firingBatch(), output);
    }

    /** @return see {@code StreamOperator.nextProcessingTime}. */
    long nextProcessingTime()
    {
        return timers.nextProcessingTime();
    }

    /** @return see {@code StreamOperator.hasPendingTimers}. */
    boolean hasPendingTimers()
    {
        return timers.eventTimersDue();
    }

    /**
     * @param now    processing time.
     * @param budget the most timers to fire.
     * @param output the operator's output.
     * @return how many fired.
     * @throws Exception from a timer.
     */
    int fireTimers(final long now, final int budget, final Output output) throws Exception
    {
        return timers.fireDue(now, budget, output);
    }

    /**
     * Makes a firing timer's key current, and its time the timestamp of what the function emits (an event-time
     * timer's; a processing-time timer's output has none).
     *
     * @param timer     the timer.
     * @param eventTime its domain.
     * @return the record timestamp to put back with {@link #leaveTimer}.
     */
    long enterTimer(final KeyedTimers.Timer timer, final boolean eventTime)
    {
        timer.scopeState(state);
        currentKeyGroup = timer.keyGroup();
        firing = eventTime ? TimeDomain.EVENT_TIME : TimeDomain.PROCESSING_TIME;
        final long previous = timestamps.value;
        timestamps.value = eventTime ? timer.time() : RecordTimestamp.NO_TIMESTAMP;
        return previous;
    }

    /** @param previousTimestamp what {@link #enterTimer} returned. */
    void leaveTimer(final long previousTimestamp)
    {
        firing = null;
        timestamps.value = previousTimestamp;
        state.setCurrentKey(null);
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
        return timers != null ? timers.currentWatermark() : lastWatermark;
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
        if (timers == null)
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
}
