package io.ringflow.engine.api.functions;

import io.ringflow.state.keyed.AggregatingState;
import io.ringflow.state.keyed.AggregatingStateDescriptor;
import io.ringflow.state.keyed.ListState;
import io.ringflow.state.keyed.ListStateDescriptor;
import io.ringflow.state.keyed.LongValueState;
import io.ringflow.state.keyed.MapState;
import io.ringflow.state.keyed.MapStateDescriptor;
import io.ringflow.state.keyed.ReducingState;
import io.ringflow.state.keyed.ReducingStateDescriptor;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;

/**
 * What a function may learn about the subtask running it, and where it gets its keyed state.
 *
 * <p>Keyed state is scoped to the key of the record being processed; only functions applied to a keyed stream have
 * it. Declare each state once (in {@code open}) and keep the handle in a field: it is valid for the life of the
 * subtask, is used on the task thread only, and is snapshotted with every checkpoint. A name declared again with
 * another kind or type is an error, and so is state used outside the processing of a record.
 */
public interface RuntimeContext extends SubtaskInfo
{
    /**
     * @param descriptor the state's declaration.
     * @param <T>        the value type.
     * @return one value per key.
     * @throws IllegalStateException when the operator's input is not keyed, or the name is declared otherwise.
     */
    <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor);

    /**
     * The unboxed form of {@code getState} for a {@code long} per key: {@code value()}, {@code update(long)} and
     * {@code add(long)} neither box nor allocate, so a counter or a sum on the record path costs no garbage. The same
     * state as {@code getState(descriptor)} (checkpoints hold a {@code ValueState<Long>}), so both may be used.
     *
     * @param descriptor the state's declaration, of type {@code Long}; a key without a value reads its default, or 0.
     * @return one {@code long} per key.
     * @throws IllegalStateException when the operator's input is not keyed, or the name is declared otherwise.
     */
    LongValueState getLongState(ValueStateDescriptor<Long> descriptor);

    /**
     * @param descriptor the state's declaration.
     * @param <UK>       the user key type.
     * @param <UV>       the user value type.
     * @return a map per key.
     * @throws IllegalStateException when the operator's input is not keyed, or the name is declared otherwise.
     */
    <UK, UV> MapState<UK, UV> getMapState(MapStateDescriptor<UK, UV> descriptor);

    /**
     * @param descriptor the state's declaration.
     * @param <T>        the element type.
     * @return a list per key.
     * @throws IllegalStateException when the operator's input is not keyed, or the name is declared otherwise.
     */
    <T> ListState<T> getListState(ListStateDescriptor<T> descriptor);

    /**
     * @param descriptor the state's declaration, with its reduce function.
     * @param <T>        the value type.
     * @return one value per key, folded with the function.
     * @throws IllegalStateException when the operator's input is not keyed, or the name is declared otherwise.
     */
    <T> ReducingState<T> getReducingState(ReducingStateDescriptor<T> descriptor);

    /**
     * @param descriptor the state's declaration, with its aggregate function.
     * @param <IN>       the type added.
     * @param <ACC>      the accumulator type (what is stored).
     * @param <OUT>      the result type.
     * @return one accumulator per key.
     * @throws IllegalStateException when the operator's input is not keyed, or the name is declared otherwise.
     */
    <IN, ACC, OUT> AggregatingState<IN, OUT> getAggregatingState(AggregatingStateDescriptor<IN, ACC, OUT> descriptor);
}
