package io.ringflow.engine.api;

import io.ringflow.engine.api.functions.KeySelector;
import io.ringflow.engine.api.functions.KeyedProcessFunction;
import io.ringflow.engine.graph.Descriptions;
import io.ringflow.engine.graph.StreamGraph;
import io.ringflow.engine.graph.StreamNode;
import io.ringflow.engine.graph.TypeExtraction;
import io.ringflow.engine.graph.UserFunction;
import io.ringflow.state.keyed.ReduceFunction;

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

    /**
     * A rolling reduce: each record is folded into its key's value so far, which is kept in keyed state and emitted.
     * The first record of a key is its value as is. As in Flink, the function gets the value so far and the record,
     * and must return a new value (never null, never changed afterwards).
     *
     * @param function folds two values; shared by the subtasks, so it must keep no per-subtask fields.
     * @return the stream of each key's running value, of the same type.
     */
    public DataStream<T> reduce(final ReduceFunction<T> function)
    {
        return reduce(UserFunction.shared(function), "Reduce");
    }

    /**
     * Sums a numeric component of a stream of Java records, per key: emits the key's first record with that
     * component replaced by the sum so far (the other components stay those of the first record), as Flink's
     * {@code sum(field)} does.
     *
     * @param field the record component to sum.
     * @return the stream of running sums.
     * @throws InvalidJobException when the type is not a record or has no such numeric component.
     */
    public DataStream<T> sum(final String field)
    {
        return aggregate(FieldAggregation.Kind.SUM, Objects.requireNonNull(field, "field"));
    }

    /** @return a stream of numbers ({@code Long}, {@code Integer}, {@code Double}, ...) summed per key. */
    public DataStream<T> sum()
    {
        return aggregate(FieldAggregation.Kind.SUM, null);
    }

    /**
     * @param field the record component.
     * @return per key, the first record with {@code field} replaced by its minimum so far.
     */
    public DataStream<T> min(final String field)
    {
        return aggregate(FieldAggregation.Kind.MIN, Objects.requireNonNull(field, "field"));
    }

    /** @return a stream of numbers reduced to its minimum per key. */
    public DataStream<T> min()
    {
        return aggregate(FieldAggregation.Kind.MIN, null);
    }

    /**
     * @param field the record component.
     * @return per key, the first record with {@code field} replaced by its maximum so far.
     */
    public DataStream<T> max(final String field)
    {
        return aggregate(FieldAggregation.Kind.MAX, Objects.requireNonNull(field, "field"));
    }

    /** @return a stream of numbers reduced to its maximum per key. */
    public DataStream<T> max()
    {
        return aggregate(FieldAggregation.Kind.MAX, null);
    }

    /**
     * @param field the record component.
     * @return per key, the record with the smallest {@code field} so far (the earlier one on a tie).
     */
    public DataStream<T> minBy(final String field)
    {
        return aggregate(FieldAggregation.Kind.MIN_BY, Objects.requireNonNull(field, "field"));
    }

    /**
     * @param field the record component.
     * @return per key, the record with the largest {@code field} so far (the earlier one on a tie).
     */
    public DataStream<T> maxBy(final String field)
    {
        return aggregate(FieldAggregation.Kind.MAX_BY, Objects.requireNonNull(field, "field"));
    }

    @SuppressWarnings("unchecked")
    private DataStream<T> aggregate(final FieldAggregation.Kind kind, final String field)
    {
        final FieldAggregation<T> aggregation = FieldAggregation.of(kind, (Class<T>)singleInputType(), field);
        return reduce(UserFunction.shared(aggregation), aggregation.operatorName());
    }

    /**
     * Cuts the stream into windows per key.
     *
     * @param assigner which windows each record belongs to (tumbling, sliding, session; event or processing time).
     * @return the windowed stream, to configure and give a window function.
     */
    public WindowedStream<T, K> window(final io.ringflow.engine.api.windowing.WindowAssigner assigner)
    {
        return new WindowedStream<>(this, assigner);
    }

    private DataStream<T> reduce(final UserFunction<ReduceFunction<T>> function, final String name)
    {
        final Class<?> type = singleInputType();
        if (type == null)
        {
            throw new InvalidJobException(name + " keeps each key's value in state and needs the stream's record " +
                "type: declare it with returns(...) on the operator before keyBy");
        }
        final StreamNode node = addOneInput(new Descriptions.KeyedReduceOp(function, keySelector, type, name));
        StreamGraph.setOutputType(node, type);
        return new DataStream<>(env, node);
    }

    private <O> DataStream<O> process(
        final UserFunction<KeyedProcessFunction<K, T, O>> function, final KeyedProcessFunction<K, T, O> probe)
    {
        final StreamNode node = addOneInput(new Descriptions.KeyedProcessOp(function, keySelector));
        StreamGraph.setOutputType(node, TypeExtraction.typeArgument(probe, KeyedProcessFunction.class, 2));
        return new DataStream<>(env, node);
    }
}
