package io.ringflow.state.chronicle;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.keyed.ListState;
import io.ringflow.state.keyed.ListStateDescriptor;
import io.ringflow.state.snapshot.ListCodec;
import io.ringflow.state.snapshot.TtlValues;

import java.util.Collections;
import java.util.List;

/**
 * A {@link ListState} kept in a {@link StateMap}: one stored value per key, the whole list in {@link ListCodec}'s
 * format (after the time-to-live timestamp, when there is one). {@link #add} appends the element's bytes to a copy of
 * the stored bytes without decoding the other elements, then stores the copy: O(list size) bytes copied per add,
 * which suits the short lists keyed state usually holds; a list is bounded by the maximum entry size.
 *
 * <p>Thread contract: the task thread only.
 *
 * @param <T> the element type.
 */
final class ChronicleListState<T> extends ChronicleCellState<List<T>> implements ListState<T>
{
    private final ListCodec<T> listCodec;

    ChronicleListState(
        final ChronicleKeyedStateStore store, final StateMap map, final ListStateDescriptor<T> descriptor,
        final Codec<T> elementCodec, final int maxEntrySize)
    {
        this(store, map, descriptor, elementCodec, new ListCodec<>(elementCodec), maxEntrySize);
    }

    private ChronicleListState(
        final ChronicleKeyedStateStore store, final StateMap map, final ListStateDescriptor<T> descriptor,
        final Codec<T> elementCodec, final ListCodec<T> listCodec, final int maxEntrySize)
    {
        super(store, map, descriptor, elementCodec, listCodec, maxEntrySize);
        this.listCodec = listCodec;
    }

    @Override
    public Iterable<T> get()
    {
        final List<T> list = readCell(true);
        return list == null ? List.of() : Collections.unmodifiableList(list);
    }

    @Override
    public void add(final T element)
    {
        checkElement(element);
        append(List.of(element));
    }

    @Override
    public void addAll(final List<T> elements)
    {
        checkElements(elements);
        if (!elements.isEmpty())
        {
            append(elements);
        }
    }

    @Override
    public void update(final List<T> elements)
    {
        if (elements == null || elements.isEmpty())
        {
            clear();
            return;
        }
        checkElements(elements);
        writeCell(elements);
    }

    /** Appends to a copy of the stored list (or a new one) in {@link #write}, then stores it. */
    private void append(final List<T> elements)
    {
        final EncodedBytes key = currentKey();
        final int keyLength = key.length() - StoredKeyLayout.KEY_OFFSET;
        int length;
        if (readStored(key, false) == null)
        {
            write.ensureCapacity(prefix + ListCodec.COUNT_LENGTH);
            write.buffer().putInt(prefix, 0);
            length = prefix + ListCodec.COUNT_LENGTH;
        }
        else
        {
            write.copyFrom(read.array(), 0, read.length());
            length = read.length();
        }
        for (final T element : elements)
        {
            while (true)
            {
                final CodecBuffer buffer = write.buffer();
                buffer.clearOverflow();
                final int appended = listCodec.appendElement(element, buffer, prefix, length - prefix);
                if (!buffer.overflowed())
                {
                    length = prefix + appended;
                    break;
                }
                // the element did not fit: the list is unchanged, grow and append it again
                buffer.clearOverflow();
                if (write.capacity() >= maxEntrySize)
                {
                    throw tooLarge("the list", -1, keyLength);
                }
                write.ensureCapacity((int)Math.min(maxEntrySize, 2L * write.capacity()));
            }
        }
        if (keyLength + length > maxEntrySize)
        {
            throw tooLarge("the list", length, keyLength);
        }
        if (ttl != null)
        {
            TtlValues.putTimestamp(write.buffer(), 0, now());
        }
        write.length(length);
        map.put(key, write);
    }

    private void checkElements(final List<T> elements)
    {
        if (elements == null)
        {
            throw new NullPointerException("state '" + descriptor.name() + "': the list of elements must not be null");
        }
        for (final T element : elements)
        {
            checkElement(element);
        }
    }

    private void checkElement(final T element)
    {
        if (element == null)
        {
            throw new NullPointerException("state '" + descriptor.name() + "': a list element must not be null");
        }
    }
}
