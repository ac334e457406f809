package io.ringflow.engine.api;

import io.ringflow.engine.api.eventtime.WatermarkStrategy;
import io.ringflow.engine.api.functions.CoProcessFunction;
import io.ringflow.engine.api.functions.FilterFunction;
import io.ringflow.engine.api.functions.FlatMapFunction;
import io.ringflow.engine.api.functions.KeySelector;
import io.ringflow.engine.api.functions.MapFunction;
import io.ringflow.engine.api.functions.RichFilterFunction;
import io.ringflow.engine.api.functions.RichFlatMapFunction;
import io.ringflow.engine.api.functions.RichMapFunction;
import io.ringflow.engine.api.sink.Sink;
import io.ringflow.engine.graph.Descriptions;
import io.ringflow.engine.graph.OperatorDescription;
import io.ringflow.engine.graph.PartitionKind;
import io.ringflow.engine.graph.StreamGraph;
import io.ringflow.engine.graph.StreamNode;
import io.ringflow.engine.graph.TypeExtraction;
import io.ringflow.engine.graph.UserFunction;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A stream of records of type {@code T}: the output of one operator, or a union of several, with a partitioning
 * that applies to whatever consumes it next. Operator settings ({@link #name}, {@link #uid},
 * {@link #setParallelism}, {@link #returns}) apply to the operator that produced the stream.
 *
 * @param <T> the record type.
 */
public class DataStream<T>
{
    final JobEnvironment env;
    /** The producing operators (more than one for a union), each with the partitioning its edge will get. */
    final List<Input> inputs;

    DataStream(final JobEnvironment env, final StreamNode node)
    {
        this(env, List.of(new Input(node, null, null)));
    }

    DataStream(final JobEnvironment env, final List<Input> inputs)
    {
        this.env = env;
        this.inputs = List.copyOf(inputs);
    }

    /** One producing node and how records leave it for the next operator. */
    static final class Input
    {
        final StreamNode node;
        final PartitionKind partition;
        final KeySelector<Object, Object> keySelector;

        /** The producing node's side output this input reads, or null for its main output. */
        final io.ringflow.engine.api.functions.OutputTag<?> sideOutput;

        Input(final StreamNode node, final PartitionKind partition, final KeySelector<Object, Object> keySelector)
        {
            this(node, partition, keySelector, null);
        }

        Input(final StreamNode node, final PartitionKind partition, final KeySelector<Object, Object> keySelector,
            final io.ringflow.engine.api.functions.OutputTag<?> sideOutput)
        {
            this.sideOutput = sideOutput;
            this.node = node;
            this.partition = partition;
            this.keySelector = keySelector;
        }
    }

    // ---------------------------------------------------------------- operators

    /**
     * @param function one record out per record in.
     * @param <R>      the output type.
     * @return the mapped stream.
     */
    public <R> DataStream<R> map(final MapFunction<T, R> function)
    {
        final StreamNode node = addOneInput(new Descriptions.MapOp(UserFunction.shared(function)));
        StreamGraph.setOutputType(node, outputTypeOf(function, MapFunction.class, 1));
        return new DataStream<>(env, node);
    }

    /**
     * Like {@link #map(MapFunction)}, with a function per subtask: for a {@link RichMapFunction} or any function that
     * keeps fields.
     *
     * @param factory makes each subtask's function, e.g. {@code Enricher::new}.
     * @param <R>     the output type.
     * @return the mapped stream.
     */
    public <R> DataStream<R> map(final Supplier<? extends MapFunction<T, R>> factory)
    {
        final MapFunction<T, R> probe = probe(factory);
        final StreamNode node = addOneInput(new Descriptions.MapOp(UserFunction.perSubtask(factory, probe)));
        StreamGraph.setOutputType(node, outputTypeOf(probe, MapFunction.class, 1));
        return new DataStream<>(env, node);
    }

    /**
     * @param function keeps the records for which it returns true.
     * @return the filtered stream, of the same type.
     */
    public DataStream<T> filter(final FilterFunction<T> function)
    {
        final StreamNode node = addOneInput(new Descriptions.FilterOp(UserFunction.shared(function)));
        StreamGraph.setOutputType(node, singleInputType());
        return new DataStream<>(env, node);
    }

    /**
     * Like {@link #filter(FilterFunction)}, with a function per subtask: for a {@link RichFilterFunction} or any
     * function that keeps fields.
     *
     * @param factory makes each subtask's function.
     * @return the filtered stream, of the same type.
     */
    public DataStream<T> filter(final Supplier<? extends FilterFunction<T>> factory)
    {
        final StreamNode node = addOneInput(new Descriptions.FilterOp(UserFunction.perSubtask(factory,
            probe(factory))));
        StreamGraph.setOutputType(node, singleInputType());
        return new DataStream<>(env, node);
    }

    /**
     * The output type of a flatMap lambda is erased; declare it with {@link #returns} unless the function is a
     * class with concrete type arguments.
     *
     * @param function zero or more records out per record in.
     * @param <R>      the output type.
     * @return the resulting stream.
     */
    public <R> DataStream<R> flatMap(final FlatMapFunction<T, R> function)
    {
        final StreamNode node = addOneInput(new Descriptions.FlatMapOp(UserFunction.shared(function)));
        StreamGraph.setOutputType(node, TypeExtraction.typeArgument(function, FlatMapFunction.class, 1));
        return new DataStream<>(env, node);
    }

    /**
     * Like {@link #flatMap(FlatMapFunction)}, with a function per subtask: for a {@link RichFlatMapFunction} or any
     * function that keeps fields.
     *
     * @param factory makes each subtask's function.
     * @param <R>     the output type.
     * @return the resulting stream.
     */
    public <R> DataStream<R> flatMap(final Supplier<? extends FlatMapFunction<T, R>> factory)
    {
        final FlatMapFunction<T, R> probe = probe(factory);
        final StreamNode node = addOneInput(new Descriptions.FlatMapOp(UserFunction.perSubtask(factory, probe)));
        StreamGraph.setOutputType(node, TypeExtraction.typeArgument(probe, FlatMapFunction.class, 1));
        return new DataStream<>(env, node);
    }

    /**
     * Gives the records of this stream event-time timestamps and generates watermarks from them, as
     * {@code strategy} says. Put it right after the source: it is chained into the source's task, one watermark
     * generator per source subtask. Watermarks from upstream of it are dropped (except the end of the input).
     *
     * @param strategy timestamps, watermarks, idleness; see {@link WatermarkStrategy}.
     * @return the same records, with timestamps, followed by watermarks.
     */
    public DataStream<T> assignTimestampsAndWatermarks(final WatermarkStrategy<T> strategy)
    {
        Objects.requireNonNull(strategy, "strategy");
        final StreamNode node = addOneInput(new Descriptions.TimestampsAndWatermarksOp(strategy));
        StreamGraph.setOutputType(node, singleInputType());
        return new DataStream<>(env, node);
    }

    /**
     * Partitions the stream by key: records with equal keys go to the same subtask of the next operator, and keyed
     * state there is scoped to the key.
     *
     * @param keySelector extracts a non-null key with a stable hash code.
     * @param <K>         the key type.
     * @return the keyed stream.
     */
    @SuppressWarnings("unchecked")
    public <K> KeyedStream<K, T> keyBy(final KeySelector<T, K> keySelector)
    {
        Objects.requireNonNull(keySelector, "keySelector");
        final List<Input> keyed = new ArrayList<>();
        for (final Input input : inputs)
        {
            keyed.add(new Input(input.node, PartitionKind.KEY_HASH, (KeySelector<Object, Object>)keySelector,
                input.sideOutput));
        }
        return new KeyedStream<>(env, keyed, keySelector);
    }

    /** @return this stream, spread round robin over the next operator's subtasks. */
    public DataStream<T> rebalance()
    {
        return withPartition(PartitionKind.REBALANCE);
    }

    /** @return this stream, every record sent to every subtask of the next operator. */
    public DataStream<T> broadcast()
    {
        return withPartition(PartitionKind.BROADCAST);
    }

    /** @return this stream, subtask i to subtask i of the next operator (equal parallelism required). */
    public DataStream<T> forward()
    {
        return withPartition(PartitionKind.FORWARD);
    }

    /**
     * @param others streams of the same type.
     * @return one stream carrying the records of all, interleaved in arrival order.
     */
    @SafeVarargs
    public final DataStream<T> union(final DataStream<T>... others)
    {
        final List<Input> all = new ArrayList<>(inputs);
        for (final DataStream<T> other : others)
        {
            if (other.env != env)
            {
                throw new InvalidJobException("cannot union streams of different environments");
            }
            all.addAll(other.inputs);
        }
        return new DataStream<>(env, all);
    }

    /**
     * @param other the second input.
     * @param <T2>  its type.
     * @return both inputs, to be processed together by a {@link CoProcessFunction}.
     */
    public <T2> ConnectedStreams<T, T2> connect(final DataStream<T2> other)
    {
        if (other.env != env)
        {
            throw new InvalidJobException("cannot connect streams of different environments");
        }
        return new ConnectedStreams<>(env, this, other);
    }

    /**
     * Ends the stream in a sink.
     *
     * @param sink the sink.
     * @return the sink operator, to name or configure.
     */
    public DataStreamSink sinkTo(final Sink<T> sink)
    {
        return new DataStreamSink(addOneInput(new Descriptions.SinkOp(sink)));
    }

    // ---------------------------------------------------------------- settings of the producing operator

    /**
     * @param name the display name of the operator that produced this stream.
     * @return this stream.
     */
    public DataStream<T> name(final String name)
    {
        StreamGraph.setName(singleNode("name"), name);
        return this;
    }

    /**
     * @param uid the stable id of the operator that produced this stream; state is matched to operators by uid on
     *            restore, so set it on every stateful operator.
     * @return this stream.
     */
    public DataStream<T> uid(final String uid)
    {
        StreamGraph.setUid(singleNode("uid"), uid);
        return this;
    }

    /**
     * @param parallelism the number of subtasks of the operator that produced this stream.
     * @return this stream.
     */
    public DataStream<T> setParallelism(final int parallelism)
    {
        setParallelism(singleNode("setParallelism"), parallelism);
        return this;
    }

    /**
     * Declares the record type of this stream when it cannot be read from the function (generic lambdas,
     * flatMap).
     *
     * @param type the record type.
     * @return this stream.
     */
    public DataStream<T> returns(final Class<T> type)
    {
        StreamGraph.setOutputType(singleNode("returns"), Objects.requireNonNull(type, "type"));
        return this;
    }

    /**
     * Runs the operator that produced this stream in its own task: fused neither with its upstream nor with its
     * downstream.
     *
     * @return this stream.
     */
    public DataStream<T> disableChaining()
    {
        StreamGraph.setChainable(singleNode("disableChaining"), false);
        return this;
    }

    // ---------------------------------------------------------------- internals

    /** @return one function the factory made, to learn its type; the factory must not return null. */
    static <F> F probe(final Supplier<? extends F> factory)
    {
        Objects.requireNonNull(factory, "factory");
        return Objects.requireNonNull(factory.get(), "the function factory returned null");
    }

    /** Sets a node's parallelism; a value below 1 is an invalid job, refused at once naming the operator. */
    static void setParallelism(final StreamNode node, final int parallelism)
    {
        if (parallelism < 1)
        {
            throw new InvalidJobException("parallelism of " + node.describe() + " must be at least 1, was " +
                parallelism);
        }
        StreamGraph.setParallelism(node, parallelism);
    }

    /** Adds an operator that consumes this stream (every input of a union) on its first input. */
    StreamNode addOneInput(final OperatorDescription description)
    {
        final StreamNode node = env.graph().addNode(description, description.defaultName());
        for (final Input input : inputs)
        {
            env.graph().addEdge(input.node, node, 0, input.partition, input.keySelector, input.sideOutput);
        }
        return node;
    }

    /** @return the record type of this stream: the first known output type of its inputs (a union has one type). */
    Class<?> singleInputType()
    {
        for (final Input input : inputs)
        {
            if (input.sideOutput != null)
            {
                return input.sideOutput.type();
            }
            if (input.node.outputType() != null)
            {
                return input.node.outputType();
            }
        }
        return null;
    }

    static Class<?> outputTypeOf(final Object function, final Class<?> functionType, final int typeArgIndex)
    {
        final Class<?> declared = TypeExtraction.typeArgument(function, functionType, typeArgIndex);
        return declared != null ? declared : TypeExtraction.lambdaReturnType(function);
    }

    StreamNode singleNode(final String setting)
    {
        if (inputs.size() != 1)
        {
            throw new InvalidJobException(setting + "(...) applies to one operator, but this stream is a union of " +
                inputs.size() + "; set it on each input before union(...)");
        }
        return inputs.get(0).node;
    }

    /**
     * The records the operator producing this stream sent to side output {@code tag} ({@code ctx.output(tag, x)} in
     * a process function; late records of a window with {@code sideOutputLateData(tag)}).
     *
     * @param tag the side output.
     * @param <X> its record type.
     * @return the side output's stream.
     */
    public <X> DataStream<X> getSideOutput(final io.ringflow.engine.api.functions.OutputTag<X> tag)
    {
        Objects.requireNonNull(tag, "tag");
        final StreamNode node = singleNode("getSideOutput");
        if (node.kind() == io.ringflow.engine.graph.NodeKind.SINK)
        {
            throw new InvalidJobException("getSideOutput(" + tag.id() + "): " + node.describe() + " is a sink");
        }
        return new DataStream<>(env, List.of(new Input(node, null, null, tag)));
    }

    private DataStream<T> withPartition(final PartitionKind partition)
    {
        final List<Input> changed = new ArrayList<>();
        for (final Input input : inputs)
        {
            changed.add(new Input(input.node, partition, null, input.sideOutput));
        }
        return new DataStream<>(env, changed);
    }
}
