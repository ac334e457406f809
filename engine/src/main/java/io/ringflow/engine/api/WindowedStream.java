package io.ringflow.engine.api;

import io.ringflow.engine.api.functions.KeySelector;
import io.ringflow.engine.api.functions.OutputTag;
import io.ringflow.engine.api.windowing.ProcessWindowFunction;
import io.ringflow.engine.api.windowing.Trigger;
import io.ringflow.engine.api.windowing.WindowAssigner;
import io.ringflow.engine.api.windowing.WindowResultFunction;
import io.ringflow.engine.graph.Descriptions;
import io.ringflow.engine.graph.StreamGraph;
import io.ringflow.engine.graph.StreamNode;
import io.ringflow.engine.graph.TypeExtraction;
import io.ringflow.engine.graph.UserFunction;
import io.ringflow.state.keyed.AggregateFunction;
import io.ringflow.state.keyed.ReduceFunction;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A keyed stream cut into windows ({@code keyedStream.window(assigner)}); configure the trigger, lateness and late
 * data, then give the function that turns each window into results:
 *
 * <pre>{@code
 * views.keyBy(PageView::app)
 *      .window(WindowAssigner.tumblingEventTime(Duration.ofMinutes(1)))
 *      .allowedLateness(Duration.ofSeconds(10))
 *      .sideOutputLateData(LATE)
 *      .aggregate(new CountViews(), (app, window, count) -> new AppCount(app, window.start(), count))
 * }</pre>
 *
 * @param <T> the record type.
 * @param <K> the key type.
 */
public final class WindowedStream<T, K>
{
    private final KeyedStream<K, T> input;
    private final WindowAssigner assigner;
    private Trigger trigger = Trigger.afterEndOfWindow();
    private long allowedLatenessMillis;
    private OutputTag<T> lateTag;

    WindowedStream(final KeyedStream<K, T> input, final WindowAssigner assigner)
    {
        this.input = input;
        this.assigner = Objects.requireNonNull(assigner, "assigner");
    }

    /** @param value when windows fire (default: at their end). @return this */
    public WindowedStream<T, K> trigger(final Trigger value)
    {
        trigger = Objects.requireNonNull(value, "trigger");
        return this;
    }

    /**
     * @param value how long after its end an event-time window still takes (late) records, firing again for each;
     *              its state is kept that long. Not negative; default zero.
     * @return this
     */
    public WindowedStream<T, K> allowedLateness(final Duration value)
    {
        if (value == null || value.isNegative())
        {
            throw new InvalidJobException("allowedLateness must be zero or positive, was " + value);
        }
        if (!assigner.isEventTime() && !value.isZero())
        {
            throw new InvalidJobException("allowedLateness applies to event-time windows; " + assigner +
                " are in processing time, where no record is late");
        }
        allowedLatenessMillis = value.toMillis();
        return this;
    }

    /**
     * @param tag where records too late for every window go (read it with {@code getSideOutput(tag)} on the
     *            result); without one they are dropped and counted.
     * @return this
     */
    public WindowedStream<T, K> sideOutputLateData(final OutputTag<T> tag)
    {
        lateTag = Objects.requireNonNull(tag, "tag");
        return this;
    }

    /**
     * @param function folds the records of a window, one value per window in state; emitted as is.
     * @return the windows' reduced values.
     */
    public DataStream<T> reduce(final ReduceFunction<T> function)
    {
        Objects.requireNonNull(function, "function");
        final StreamNode node = add(function, null, null, null, inputType(), "reduce");
        StreamGraph.setOutputType(node, inputType());
        return new DataStream<>(input.env, node);
    }

    /**
     * @param function folds the records of a window.
     * @param result   makes the emitted record from key, window and reduced value.
     * @param <R>      the result type.
     * @return the windows' results.
     */
    public <R> DataStream<R> reduce(final ReduceFunction<T> function, final WindowResultFunction<K, T, R> result)
    {
        Objects.requireNonNull(function, "function");
        Objects.requireNonNull(result, "result");
        final StreamNode node = add(function, null, null, result, inputType(), "reduce");
        StreamGraph.setOutputType(node, resultType(result));
        return new DataStream<>(input.env, node);
    }

    /**
     * @param function aggregates a window's records incrementally, one accumulator per window in state; a named class
     *                 (its accumulator type is read from its declaration). Session windows need its {@code merge}.
     * @param <A>      the accumulator type.
     * @param <R>      the result type.
     * @return the windows' aggregates.
     */
    public <A, R> DataStream<R> aggregate(final AggregateFunction<T, A, R> function)
    {
        final StreamNode node = add(null, function, null, null, accumulatorType(function), "aggregate");
        StreamGraph.setOutputType(node, TypeExtraction.typeArgument(function, AggregateFunction.class, 2));
        return new DataStream<>(input.env, node);
    }

    /**
     * @param function aggregates a window's records incrementally.
     * @param result   makes the emitted record from key, window and aggregate.
     * @param <A>      the accumulator type.
     * @param <V>      the aggregate's type.
     * @param <R>      the result type.
     * @return the windows' results.
     */
    public <A, V, R> DataStream<R> aggregate(final AggregateFunction<T, A, V> function,
        final WindowResultFunction<K, V, R> result)
    {
        Objects.requireNonNull(result, "result");
        final StreamNode node = add(null, function, null, result, accumulatorType(function), "aggregate");
        StreamGraph.setOutputType(node, resultType(result));
        return new DataStream<>(input.env, node);
    }

    /**
     * @param factory makes each subtask's function, which sees whole windows (every record kept in state).
     * @param <R>     the result type.
     * @return the windows' results.
     */
    public <R> DataStream<R> process(final Supplier<? extends ProcessWindowFunction<T, R, K>> factory)
    {
        final ProcessWindowFunction<T, R, K> probe = DataStream.probe(factory);
        final StreamNode node = add(null, null, UserFunction.perSubtask(factory, probe), null, inputType(),
            probe.getClass().getSimpleName());
        StreamGraph.setOutputType(node, TypeExtraction.typeArgument(probe, ProcessWindowFunction.class, 1));
        return new DataStream<>(input.env, node);
    }

    /**
     * @param function one instance for every subtask (fine at parallelism 1, or without fields).
     * @param <R>      the result type.
     * @return the windows' results.
     */
    public <R> DataStream<R> process(final ProcessWindowFunction<T, R, K> function)
    {
        Objects.requireNonNull(function, "function");
        final StreamNode node = add(null, null, UserFunction.shared(function), null, inputType(),
            function.getClass().getSimpleName());
        StreamGraph.setOutputType(node, TypeExtraction.typeArgument(function, ProcessWindowFunction.class, 1));
        return new DataStream<>(input.env, node);
    }

    @SuppressWarnings("unchecked")
    private StreamNode add(final ReduceFunction<T> reduce, final AggregateFunction<T, ?, ?> aggregate,
        final UserFunction<? extends ProcessWindowFunction<T, ?, K>> process,
        final WindowResultFunction<K, ?, ?> result, final Class<?> valueType, final String functionName)
    {
        if (aggregate != null && assigner.isMerging() && !overridesMerge(aggregate))
        {
            throw new InvalidJobException("session windows merge, so their aggregate function must implement " +
                "merge(a, b); " + aggregate.getClass().getName() + " does not");
        }
        return input.addOneInput(new Descriptions.WindowOp(assigner, trigger, allowedLatenessMillis, lateTag,
            (KeySelector<Object, Object>)input.keySelector(), reduce, aggregate, process, result, valueType,
            inputType(), functionName));
    }

    private static boolean overridesMerge(final AggregateFunction<?, ?, ?> function)
    {
        try
        {
            return function.getClass().getMethod("merge", Object.class, Object.class).getDeclaringClass() !=
                AggregateFunction.class;
        }
        catch (final NoSuchMethodException ex)
        {
            return false;
        }
    }

    private Class<?> inputType()
    {
        final Class<?> type = input.singleInputType();
        if (type == null)
        {
            throw new InvalidJobException("a window keeps records or values of the stream's type in state and " +
                "needs to know it: declare it with returns(...) on the operator before keyBy");
        }
        return type;
    }

    private static Class<?> accumulatorType(final AggregateFunction<?, ?, ?> function)
    {
        Objects.requireNonNull(function, "function");
        final Class<?> type = TypeExtraction.typeArgument(function, AggregateFunction.class, 1);
        if (type == null)
        {
            throw new InvalidJobException("the accumulator type of " + function.getClass().getName() + " is not " +
                "known: declare the aggregate function as a class that names its type arguments");
        }
        return type;
    }

    private static Class<?> resultType(final WindowResultFunction<?, ?, ?> result)
    {
        final Class<?> declared = TypeExtraction.typeArgument(result, WindowResultFunction.class, 2);
        return declared != null ? declared : TypeExtraction.lambdaReturnType(result);
    }
}
