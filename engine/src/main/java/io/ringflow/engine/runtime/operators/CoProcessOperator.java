package io.ringflow.engine.runtime.operators;

import io.ringflow.engine.api.functions.CoProcessFunction;
import io.ringflow.engine.api.functions.KeySelector;
import io.ringflow.engine.channel.SlotDescriptor;
import io.ringflow.engine.runtime.task.NullKeyException;
import io.ringflow.engine.runtime.task.StreamOperator;
import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.keyed.KeyGroups;

/**
 * Runs a {@link CoProcessFunction}. When both inputs are keyed, keyed state is scoped to the key of the record being
 * processed, extracted with that input's key selector.
 */
public final class CoProcessOperator extends StreamOperator
{
    private final CoProcessFunction<Object, Object, Object> function;
    private final KeySelector<Object, Object> keySelector1;
    private final KeySelector<Object, Object> keySelector2;
    private KeyedStateStore state;

    /**
     * @param function     this subtask's own instance.
     * @param keySelector1 key of the first input, or null when not keyed.
     * @param keySelector2 key of the second input, or null when not keyed.
     */
    @SuppressWarnings("unchecked")
    public CoProcessOperator(
        final CoProcessFunction<?, ?, ?> function, final KeySelector<?, ?> keySelector1, final KeySelector<?, ?> keySelector2)
    {
        this.function = (CoProcessFunction<Object, Object, Object>)function;
        this.keySelector1 = (KeySelector<Object, Object>)keySelector1;
        this.keySelector2 = (KeySelector<Object, Object>)keySelector2;
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
        if (keySelector1 == null)
        {
            function.processElement1(record, output);
            return;
        }
        scopeState(keySelector1, record, keyGroup);
        try
        {
            function.processElement1(record, output);
        }
        finally
        {
            // as in KeyedProcessOperator: state used outside a record must fail, not touch this record's key
            state.setCurrentKey(null);
        }
    }

    @Override
    public void processElement(final Object record, final int keyGroup, final long key) throws Exception
    {
        if (keySelector1 == null)
        {
            function.processElement1(record, output);
            return;
        }
        // the producer extracted the key and sent it: no key selector, no box, no hash
        state.setCurrentKey(key, keyGroup);
        try
        {
            function.processElement1(record, output);
        }
        finally
        {
            state.setCurrentKey(null);
        }
    }

    @Override
    public void processElement2(final Object record, final int keyGroup, final long key) throws Exception
    {
        if (keySelector2 == null)
        {
            function.processElement2(record, output);
            return;
        }
        state.setCurrentKey(key, keyGroup);
        try
        {
            function.processElement2(record, output);
        }
        finally
        {
            state.setCurrentKey(null);
        }
    }

    @Override
    public void processElement2(final Object record) throws Exception
    {
        processElement2(record, SlotDescriptor.NO_KEY_GROUP);
    }

    @Override
    public void processElement2(final Object record, final int keyGroup) throws Exception
    {
        if (keySelector2 == null)
        {
            function.processElement2(record, output);
            return;
        }
        scopeState(keySelector2, record, keyGroup);
        try
        {
            function.processElement2(record, output);
        }
        finally
        {
            state.setCurrentKey(null);
        }
    }

    /** Scopes keyed state to the record's key, with the key group the producer sent when there is one. */
    private void scopeState(final KeySelector<Object, Object> selector, final Object record, final int keyGroup)
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
