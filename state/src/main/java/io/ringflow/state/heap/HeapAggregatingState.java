package io.ringflow.state.heap;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.keyed.AggregateFunction;
import io.ringflow.state.keyed.AggregatingState;
import io.ringflow.state.keyed.AggregatingStateDescriptor;

/**
 * An {@link AggregatingState} on the heap: one accumulator object per key. The function may change an accumulator in
 * place, so a barrier encodes each accumulator (through the accumulator type's codec, resolved then) instead of
 * sharing it with the snapshot.
 *
 * <p>Thread contract: the task thread only.
 *
 * @param <IN>  the input type.
 * @param <ACC> the accumulator type.
 * @param <OUT> the result type.
 */
final class HeapAggregatingState<IN, ACC, OUT> extends HeapCellState<ACC> implements AggregatingState<IN, OUT>
{
    private final AggregateFunction<IN, ACC, OUT> function;
    private final AggregatingStateDescriptor<IN, ACC, OUT> aggregating;
    private final CodecBuffer scratch = CodecBuffer.growable(64);
    private Codec<ACC> codec;

    HeapAggregatingState(final HeapKeyedStateStore store, final AggregatingStateDescriptor<IN, ACC, OUT> descriptor)
    {
        super(store, descriptor);
        this.function = descriptor.function();
        this.aggregating = descriptor;
    }

    @Override
    public OUT get()
    {
        final ACC accumulator = read(requireKey(), true);
        return accumulator == null ? null : function.getResult(accumulator);
    }

    @Override
    public void add(final IN value)
    {
        if (value == null)
        {
            throw new NullPointerException("state '" + descriptor.name() + "': a value added must not be null");
        }
        final Object key = requireKey();
        ACC accumulator = read(key, false);
        if (accumulator == null)
        {
            accumulator = function.createAccumulator();
        }
        write(key, function.add(value, accumulator));
    }

    @Override
    boolean changesInPlace()
    {
        return true;
    }

    @Override
    Object freezeValue(final ACC value)
    {
        if (codec == null)
        {
            codec = store.codecs().codecFor(aggregating.valueType());
        }
        final int length = HeapKeyedStateStore.encode(codec, value, scratch, 0);
        return scratch.toByteArray(0, length);
    }
}
