package io.ringflow.engine.api;

import io.ringflow.engine.api.functions.CoProcessFunction;
import io.ringflow.engine.api.functions.KeySelector;
import io.ringflow.engine.graph.NodeKind;
import io.ringflow.engine.graph.StreamGraph;
import io.ringflow.engine.graph.StreamNode;
import io.ringflow.engine.graph.TypeExtraction;
import io.ringflow.engine.runtime.operators.CoProcessOperator;

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
        final KeySelector<?, ?> key1 = keyOf(first);
        final KeySelector<?, ?> key2 = keyOf(second);
        if ((key1 == null) != (key2 == null))
        {
            throw new InvalidJobException("connect(...): either both inputs are keyed or neither is");
        }
        final StreamNode node = env.graph().addNode(NodeKind.TWO_INPUT,
            probe.getClass().getSimpleName().isEmpty() ? "CoProcess" : probe.getClass().getSimpleName(),
            subtask -> new CoProcessOperator(factory.get(), key1, key2));
        for (final DataStream.Input input : first.inputs)
        {
            env.graph().addEdge(input.node, node, 0, input.partition, input.keySelector);
        }
        for (final DataStream.Input input : second.inputs)
        {
            env.graph().addEdge(input.node, node, 1, input.partition, input.keySelector);
        }
        StreamGraph.setKeyedState(node, key1 != null);
        StreamGraph.setOutputType(node, TypeExtraction.typeArgument(probe, CoProcessFunction.class, 2));
        return new DataStream<>(env, node);
    }

    /**
     * @param function one instance for every subtask (see {@link KeyedStream#process(KeyedProcessFunction)}).
     * @param <O>      the output type.
     * @return the function's output stream.
     */
    public <O> DataStream<O> process(final CoProcessFunction<T1, T2, O> function)
    {
        Objects.requireNonNull(function, "function");
        final DataStream<O> out = process(() -> function);
        env.graph().markSharedFunction(out.singleNode("process"), function);
        return out;
    }

    private static KeySelector<?, ?> keyOf(final DataStream<?> stream)
    {
        return stream instanceof KeyedStream ? ((KeyedStream<?, ?>)stream).keySelector() : null;
    }
}
