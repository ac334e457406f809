package io.ringflow.state.chronicle;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.keyed.AggregateFunction;
import io.ringflow.state.keyed.AggregatingState;
import io.ringflow.state.keyed.AggregatingStateDescriptor;

/**
 * An {@link AggregatingState} kept in a {@link StateMap}: one stored value per key, the accumulator as its codec
 * encodes it. {@link #add} decodes the accumulator (or creates one), adds, and encodes it again, so an accumulator
 * the function changes in place is never shared with a snapshot.
 *
 * <p>Thread contract: the task thread only.
 *
 * @param <IN>  the input type.
 * @param <ACC> the accumulator type.
 * @param <OUT> the result type.
 */
final class ChronicleAggregatingState<IN, ACC, OUT> extends ChronicleCellState<ACC>
    implements AggregatingState<IN, OUT>
{
    /** The declaration's function; replaced by {@link #rebind}. */
    private AggregateFunction<IN, ACC, OUT> function;

    ChronicleAggregatingState(
        final ChronicleKeyedStateStore store, final StateMap map,
        final AggregatingStateDescriptor<IN, ACC, OUT> descriptor, final Codec<ACC> codec, final int maxEntrySize)
    {
        super(store, map, descriptor, codec, codec, maxEntrySize);
        this.function = descriptor.function();
    }

    @Override
    @SuppressWarnings("unchecked")
    void rebind(final io.ringflow.state.keyed.StateDescriptor redeclared)
    {
        super.rebind(redeclared);
        function = ((AggregatingStateDescriptor<IN, ACC, OUT>)redeclared).function();
    }

    @Override
    public OUT get()
    {
        final ACC accumulator = readCell(true);
        return accumulator == null ? null : function.getResult(accumulator);
    }

    @Override
    public void add(final IN value)
    {
        if (value == null)
        {
            throw new NullPointerException("state '" + descriptor.name() + "': a value added must not be null");
        }
        ACC accumulator = readCell(false);
        if (accumulator == null)
        {
            accumulator = function.createAccumulator();
        }
        writeCell(function.add(value, accumulator));
    }
}
