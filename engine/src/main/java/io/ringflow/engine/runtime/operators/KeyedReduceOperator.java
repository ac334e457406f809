package io.ringflow.engine.runtime.operators;

import io.ringflow.engine.api.functions.KeySelector;
import io.ringflow.engine.api.functions.RichFunction;
import io.ringflow.engine.channel.SlotDescriptor;
import io.ringflow.engine.runtime.task.NullKeyException;
import io.ringflow.engine.runtime.task.StreamOperator;
import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.keyed.KeyGroups;
import io.ringflow.state.keyed.ReduceFunction;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;

/**
 * A rolling reduce per key: folds each record into its key's value so far (kept in a value state named
 * {@value #STATE_NAME}), stores the result and emits it. The first record of a key is its value as is.
 */
public final class KeyedReduceOperator extends StreamOperator
{
    /** The name of the keyed state that holds each key's value so far. */
    public static final String STATE_NAME = "reduced";

    private final ReduceFunction<Object> function;
    private final KeySelector<Object, Object> keySelector;
    private final Class<Object> type;
    private KeyedStateStore store;
    private ValueState<Object> reduced;

    /**
     * @param function    this subtask's reduce function.
     * @param keySelector the key of the input.
     * @param type        the record type.
     */
    @SuppressWarnings("unchecked")
    public KeyedReduceOperator(final ReduceFunction<?> function, final KeySelector<?, ?> keySelector,
        final Class<?> type)
    {
        this.function = (ReduceFunction<Object>)function;
        this.keySelector = (KeySelector<Object, Object>)keySelector;
        this.type = (Class<Object>)type;
    }

    @Override
    public void open() throws Exception
    {
        store = runtime.keyedStateStore();
        reduced = runtime.getState(new ValueStateDescriptor<>(STATE_NAME, type));
        if (function instanceof RichFunction rich)
        {
            rich.open(runtime);
        }
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
        final int group = keyGroup != SlotDescriptor.NO_KEY_GROUP ? keyGroup :
            KeyGroups.keyGroupOf(key, runtime.maxParallelism());
        if (key instanceof Long)
        {
            store.setCurrentKey(((Long)key).longValue(), group);
        }
        else
        {
            store.setCurrentKey(key, group);
        }
        reduce(record);
    }

    @Override
    public boolean prefetchesKeys()
    {
        return store != null && store.prefetches();
    }

    @Override
    public long prefetchKey(final long key)
    {
        return store.prefetch(key);
    }

    @Override
    public void processElement(final Object record, final int keyGroup, final long key) throws Exception
    {
        // the producer extracted the key and sent it: no key selector, no box, no hash
        store.setCurrentKey(key, keyGroup);
        reduce(record);
    }

    private void reduce(final Object record) throws Exception
    {
        try
        {
            final Object before = reduced.value();
            final Object after = before == null ? record : function.reduce(before, record);
            if (after == null)
            {
                throw new NullPointerException("the reduce function of operator '" + runtime.operatorName() +
                    "' returned null");
            }
            reduced.update(after);
            output.collect(after);
        }
        finally
        {
            // state used outside a record must fail, not touch this record's key
            store.setCurrentKey(null);
        }
    }

    @Override
    public void close() throws Exception
    {
        if (function instanceof RichFunction rich)
        {
            rich.close();
        }
    }

    @Override
    protected Object listener()
    {
        return function;
    }
}
