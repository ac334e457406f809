package io.ringflow.engine.api;

import io.ringflow.engine.api.functions.KeySelector;
import io.ringflow.engine.api.functions.KeyedProcessFunction;
import io.ringflow.engine.graph.Descriptions;
import io.ringflow.engine.graph.StreamGraph;
import io.ringflow.engine.graph.StreamNode;
import io.ringflow.engine.graph.TypeExtraction;
import io.ringflow.engine.graph.UserFunction;

import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A stream partitioned by key. The next operator receives all records of a key in one subtask and may keep keyed
 * state for it.
 *
 * @param <K> the key type.
 * @param <T> the record type.
 */
public final class KeyedStream<K, T> extends DataStream<T>
{
    private final KeySelector<T, K> keySelector;

    KeyedStream(final JobEnvironment env, final List<Input> inputs, final KeySelector<T, K> keySelector)
    {
        super(env, inputs);
        this.keySelector = keySelector;
    }

    /** @return the key selector. */
    public KeySelector<T, K> keySelector()
    {
        return keySelector;
    }

    /**
     * Processes the stream with a function that gets a fresh instance per subtask.
     *
     * @param factory creates the function, e.g. {@code CountPerApp::new}.
     * @param <O>     the output type.
     * @return the function's output stream.
     */
    public <O> DataStream<O> process(final Supplier<? extends KeyedProcessFunction<K, T, O>> factory)
    {
        Objects.requireNonNull(factory, "factory");
        final KeyedProcessFunction<K, T, O> probe = Objects.requireNonNull(factory.get(), "factory returned null");
        return process(UserFunction.perSubtask(factory, probe), probe);
    }

    /**
     * Processes the stream with one function instance; fine at parallelism 1, or when the function keeps no
     * fields. Otherwise pass a factory: {@link #process(Supplier)}.
     *
     * @param function the function.
     * @param <O>      the output type.
     * @return the function's output stream.
     */
    public <O> DataStream<O> process(final KeyedProcessFunction<K, T, O> function)
    {
        return process(UserFunction.shared(function), function);
    }

    private <O> DataStream<O> process(
        final UserFunction<KeyedProcessFunction<K, T, O>> function, final KeyedProcessFunction<K, T, O> probe)
    {
        final StreamNode node = addOneInput(new Descriptions.KeyedProcessOp(function, keySelector));
        StreamGraph.setOutputType(node, TypeExtraction.typeArgument(probe, KeyedProcessFunction.class, 2));
        return new DataStream<>(env, node);
    }
}
