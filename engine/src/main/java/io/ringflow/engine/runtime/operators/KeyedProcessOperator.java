package io.ringflow.engine.runtime.operators;

import io.ringflow.engine.api.functions.KeySelector;
import io.ringflow.engine.api.functions.KeyedProcessFunction;
import io.ringflow.engine.channel.SlotDescriptor;
import io.ringflow.engine.runtime.task.NullKeyException;
import io.ringflow.engine.runtime.task.StreamOperator;
import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.keyed.KeyGroups;

/**
 * Runs a {@link KeyedProcessFunction}: extracts each record's key (the same key selector that partitioned it),
 * scopes keyed state to it, and calls the function. The context object is reused across records.
 */
public final class KeyedProcessOperator extends StreamOperator implements KeyedProcessFunction.Context<Object>
{
    private final KeyedProcessFunction<Object, Object, Object> function;
    private final KeySelector<Object, Object> keySelector;
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
    }

    @Override
    public void open() throws Exception
    {
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
        process(record);
    }

    @Override
    public void processElement(final Object record, final int keyGroup, final long key) throws Exception
    {
        // the producer extracted the key and sent it: no key selector, no box, no hash
        state.setCurrentKey(key, keyGroup);
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

    @Override
    public Object getCurrentKey()
    {
        return state.currentKey();
    }

    @Override
    public long currentProcessingTime()
    {
        return System.currentTimeMillis();
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
