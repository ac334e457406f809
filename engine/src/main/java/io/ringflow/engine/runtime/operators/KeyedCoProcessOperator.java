package io.ringflow.engine.runtime.operators;

import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.KeyedCoProcessFunction;
import io.ringflow.engine.api.functions.KeySelector;
import io.ringflow.engine.channel.SlotDescriptor;
import io.ringflow.engine.runtime.task.StreamOperator;
import io.ringflow.state.backend.KeyedStateStore;

/**
 * Runs a {@link KeyedCoProcessFunction}: each input's records are scoped to their key (extracted with that input's
 * key selector, or sent by the producer); keyed state and timers are shared by key across both inputs. Key, time,
 * timers and side outputs come from a {@link KeyedFunctionContext}, as in {@link KeyedProcessOperator}.
 */
public final class KeyedCoProcessOperator extends StreamOperator implements KeyedTimers.Target
{
    private final KeyedCoProcessFunction<Object, Object, Object, Object> function;
    private final KeySelector<Object, Object> keySelector1;
    private final KeySelector<Object, Object> keySelector2;
    private final KeyedFunctionContext context;
    private KeyedStateStore state;

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
        this.context = new KeyedFunctionContext(function, OperatorSupport.overrides(function.getClass(),
            KeyedCoProcessFunction.class, "onTimer", long.class, KeyedCoProcessFunction.OnTimerContext.class,
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
        context.scope(keySelector1, record, keyGroup);
        process(record, true);
    }

    @Override
    public void processElement(final Object record, final int keyGroup, final long key) throws Exception
    {
        // the producer extracted the key and sent it: no key selector, no box, no hash (on this class's own,
        // specialised, path: the store's call site sees one backend)
        state.setCurrentKey(key, keyGroup);
        context.keyGroup(keyGroup);
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
        context.scope(keySelector2, record, keyGroup);
        process(record, false);
    }

    @Override
    public void processElement2(final Object record, final int keyGroup, final long key) throws Exception
    {
        // the producer extracted the key and sent it: no key selector, no box, no hash (on this class's own,
        // specialised, path: the store's call site sees one backend)
        state.setCurrentKey(key, keyGroup);
        context.keyGroup(keyGroup);
        process(record, false);
    }

    private void process(final Object record, final boolean first) throws Exception
    {
        try
        {
            if (first)
            {
                function.processElement1(record, context, output);
            }
            else
            {
                function.processElement2(record, context, output);
            }
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
