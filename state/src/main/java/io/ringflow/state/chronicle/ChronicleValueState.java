package io.ringflow.state.chronicle;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;

/**
 * A {@link ValueState} kept in a {@link StateMap}: one stored value per key, the value as its codec encodes it
 * (after the time-to-live timestamp, when there is one).
 *
 * <p>Thread contract: the task thread only.
 *
 * @param <T> the value type.
 */
final class ChronicleValueState<T> extends ChronicleCellState<T> implements ValueState<T>
{
    private final T defaultValue;

    /**
     * @param store        the store, which holds the current key.
     * @param map          the state's map.
     * @param descriptor   the declaration.
     * @param codec        the value codec.
     * @param maxEntrySize the largest encoded key plus value accepted.
     */
    ChronicleValueState(
        final ChronicleKeyedStateStore store, final StateMap map, final ValueStateDescriptor<T> descriptor,
        final Codec<T> codec, final int maxEntrySize)
    {
        super(store, map, descriptor, codec, codec, maxEntrySize);
        this.defaultValue = descriptor.defaultValue();
    }

    @Override
    public T value()
    {
        final T value = readCell(true);
        return value != null ? value : defaultValue;
    }

    @Override
    public void update(final T value)
    {
        if (value == null)
        {
            clear();
            return;
        }
        writeCell(value);
    }
}
