package io.ringflow.engine.api;

import io.ringflow.engine.api.functions.CoProcessFunction;
import io.ringflow.engine.api.functions.KeySelector;
import io.ringflow.engine.graph.Descriptions;
import io.ringflow.engine.graph.StreamGraph;
import io.ringflow.engine.graph.StreamNode;
import io.ringflow.engine.graph.TypeExtraction;
import io.ringflow.engine.graph.UserFunction;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * Two streams to be processed by one two-input operator. When both are keyed, keyed state is shared by key across
 * the two inputs.
 *
 * @param <T1> the first input's type.
 * @param <T2> the second input's type.
 */
public final class ConnectedStreams<T1, T2>
{
    private final JobEnvironment env;
    private final DataStream<T1> first;
    private final DataStream<T2> second;

    ConnectedStreams(final JobEnvironment env, final DataStream<T1> first, final DataStream<T2> second)
    {
        this.env = env;
        this.first = first;
        this.second = second;
    }

    /**
     * @param factory creates the function of each subtask.
     * @param <O>     the output type.
     * @return the function's output stream.
     */
    public <O> DataStream<O> process(final Supplier<? extends CoProcessFunction<T1, T2, O>> factory)
    {
        Objects.requireNonNull(factory, "factory");
        final CoProcessFunction<T1, T2, O> probe = Objects.requireNonNull(factory.get(), "factory returned null");
        return process(UserFunction.perSubtask(factory, probe), probe);
    }

    /**
     * @param function one instance for every subtask (see {@link KeyedStream#process(KeyedProcessFunction)}).
     * @param <O>      the output type.
     * @return the function's output stream.
     */
    public <O> DataStream<O> process(final CoProcessFunction<T1, T2, O> function)
    {
        return process(UserFunction.shared(function), function);
    }

    /**
     * Processes two keyed streams with a function that has the key, timers and side outputs
     * ({@link KeyedCoProcessFunction}); both inputs must be keyed, by keys of the same type.
     *
     * @param factory creates the function of each subtask.
     * @param <K>     the key type.
     * @param <O>     the output type.
     * @return the function's output stream.
     */
    public <K, O> DataStream<O> process(
        final io.ringflow.engine.api.functions.KeyedCoProcessFunction.Factory<K, T1, T2, O> factory)
    {
        Objects.requireNonNull(factory, "factory");
        final io.ringflow.engine.api.functions.KeyedCoProcessFunction<K, T1, T2, O> probe =
            Objects.requireNonNull(factory.create(), "factory returned null");
        final KeySelector<?, ?> key1 = keyOf(first);
        final KeySelector<?, ?> key2 = keyOf(second);
        if (key1 == null || key2 == null)
        {
            throw new InvalidJobException("connect(...).process(KeyedCoProcessFunction) needs both inputs keyed: " +
                "apply keyBy(...) to each before connect");
        }
        final Descriptions.KeyedCoProcessOp description = new Descriptions.KeyedCoProcessOp(
            UserFunction.perSubtask(factory::create, probe), key1, key2);
        final StreamNode node = env.graph().addNode(description, description.defaultName());
        for (final DataStream.Input input : first.inputs)
        {
            env.graph().addEdge(input.node, node, 0, input.partition, input.keySelector, input.sideOutput);
        }
        for (final DataStream.Input input : second.inputs)
        {
            env.graph().addEdge(input.node, node, 1, input.partition, input.keySelector, input.sideOutput);
        }
        StreamGraph.setOutputType(node, TypeExtraction.typeArgument(probe,
            io.ringflow.engine.api.functions.KeyedCoProcessFunction.class, 3));
        return new DataStream<>(env, node);
    }

    private <O> DataStream<O> process(
        final UserFunction<CoProcessFunction<T1, T2, O>> function, final CoProcessFunction<T1, T2, O> probe)
    {
        final KeySelector<?, ?> key1 = keyOf(first);
        final KeySelector<?, ?> key2 = keyOf(second);
        if ((key1 == null) != (key2 == null))
        {
            throw new InvalidJobException("connect(...): either both inputs are keyed or neither is");
        }
        final Descriptions.CoProcessOp description = new Descriptions.CoProcessOp(function, key1, key2);
        final StreamNode node = env.graph().addNode(description, description.defaultName());
        for (final DataStream.Input input : first.inputs)
        {
            env.graph().addEdge(input.node, node, 0, input.partition, input.keySelector, input.sideOutput);
        }
        for (final DataStream.Input input : second.inputs)
        {
            env.graph().addEdge(input.node, node, 1, input.partition, input.keySelector, input.sideOutput);
        }
        StreamGraph.setOutputType(node, TypeExtraction.typeArgument(probe, CoProcessFunction.class, 2));
        return new DataStream<>(env, node);
    }

    private static KeySelector<?, ?> keyOf(final DataStream<?> stream)
    {
        return stream instanceof KeyedStream ? ((KeyedStream<?, ?>)stream).keySelector() : null;
    }
}
