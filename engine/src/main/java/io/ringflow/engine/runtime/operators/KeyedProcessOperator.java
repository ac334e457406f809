package io.ringflow.engine.runtime.operators;

import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.KeySelector;
import io.ringflow.engine.api.functions.KeyedProcessFunction;
import io.ringflow.engine.channel.SlotDescriptor;
import io.ringflow.engine.runtime.task.StreamOperator;
import io.ringflow.state.backend.KeyedStateStore;

/**
 * Runs a {@link KeyedProcessFunction}: extracts each record's key (the same key selector that partitioned it),
 * scopes keyed state to it, and calls the function with its {@link KeyedFunctionContext} (key, time, timers, side
 * outputs; reused across calls, so nothing is allocated per record).
 */
public final class KeyedProcessOperator extends StreamOperator implements KeyedTimers.Target
{
    private final KeyedProcessFunction<Object, Object, Object> function;
    private final KeySelector<Object, Object> keySelector;
    private final KeyedFunctionContext context;
    private KeyedStateStore state;

    /**
     * @param function    this subtask's own instance.
     * @param keySelector the key of the input.
     */
    @SuppressWarnings("unchecked")
    public KeyedProcessOperator(final KeyedProcessFunction<?, ?, ?> function, final KeySelector<?, ?> keySelector)
    {
        this.function = (KeyedProcessFunction<Object, Object, Object>)function;
        this.keySelector = (KeySelector<Object, Object>)keySelector;
        // timers only for a function that overrides onTimer: only then are they kept, fired and checkpointed
        this.context = new KeyedFunctionContext(function, OperatorSupport.overrides(function.getClass(),
            KeyedProcessFunction.class, "onTimer", long.class, KeyedProcessFunction.OnTimerContext.class,
            Collector.class) ? new KeyedTimers(this) : null);
    }

    @Override
    public void initializeState() throws Exception
    {
        context.initializeState(runtime);
        initializeListenerState();
    }

    @Override
    public void open() throws Exception
    {
        context.open(runtime);
        state = runtime.keyedStateStore();
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
        context.scope(keySelector, record, keyGroup);
        process(record);
    }

    @Override
    public boolean prefetchesKeys()
    {
        return state != null && state.prefetches();
    }

    @Override
    public long prefetchKey(final long key)
    {
        return state.prefetch(key);
    }

    @Override
    public void processElement(final Object record, final int keyGroup, final long key) throws Exception
    {
        // the producer extracted the key and sent it: no key selector, no box, no hash (on this class's own,
        // specialised, path: the store's call site sees one backend)
        state.setCurrentKey(key, keyGroup);
        context.keyGroup(keyGroup);
        process(record);
    }

    private void process(final Object record) throws Exception
    {
        try
        {
            function.processElement(record, context, output);
        }
        finally
        {
            // state used outside a record (open, close, endInput) must fail, not touch this record's key
            state.setCurrentKey(null);
        }
    }

    @Override
    public void processWatermark(final long watermark) throws Exception
    {
        context.processWatermark(watermark, output);
    }

    @Override
    public boolean usesTimers()
    {
        return context.timed();
    }

    @Override
    public long nextProcessingTime()
    {
        return context.nextProcessingTime();
    }

    @Override
    public boolean hasPendingTimers()
    {
        return context.hasPendingTimers();
    }

    @Override
    public int fireTimers(final long now, final int budget) throws Exception
    {
        return context.fireTimers(now, budget, output);
    }

    @Override
    public void onTimer(final KeyedTimers.Timer timer, final boolean eventTime) throws Exception
    {
        final long previous = context.enterTimer(timer, eventTime);
        try
        {
            function.onTimer(timer.time(), context, output);
        }
        finally
        {
            context.leaveTimer(previous);
        }
    }

    @Override
    public void onBarrier(final long checkpointId) throws Exception
    {
        // timers are captured by the operator state store itself (KeyedTimers is a deferred state)
        snapshotListener(checkpointId);
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
