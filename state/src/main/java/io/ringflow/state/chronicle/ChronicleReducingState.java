package io.ringflow.state.chronicle;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.keyed.ReduceFunction;
import io.ringflow.state.keyed.ReducingState;
import io.ringflow.state.keyed.ReducingStateDescriptor;

/**
 * A {@link ReducingState} kept in a {@link StateMap}: one stored value per key, the folded value as its codec
 * encodes it. {@link #add} decodes, folds and encodes.
 *
 * <p>Thread contract: the task thread only.
 *
 * @param <T> the value type.
 */
final class ChronicleReducingState<T> extends ChronicleCellState<T> implements ReducingState<T>
{
    /** The declaration's function; replaced by {@link #rebind}. */
    private ReduceFunction<T> function;

    ChronicleReducingState(
        final ChronicleKeyedStateStore store, final StateMap map, final ReducingStateDescriptor<T> descriptor,
        final Codec<T> codec, final int maxEntrySize)
    {
        super(store, map, descriptor, codec, codec, maxEntrySize);
        this.function = descriptor.function();
    }

    @Override
    @SuppressWarnings("unchecked")
    void rebind(final io.ringflow.state.keyed.StateDescriptor redeclared)
    {
        super.rebind(redeclared);
        function = ((ReducingStateDescriptor<T>)redeclared).function();
    }

    @Override
    public T get()
    {
        return readCell(true);
    }

    @Override
    public void add(final T value)
    {
        if (value == null)
        {
            throw new NullPointerException("state '" + descriptor.name() + "': a value added must not be null");
        }
        final T current = readCell(false);
        writeCell(current == null ? value : function.reduce(current, value));
    }
}
