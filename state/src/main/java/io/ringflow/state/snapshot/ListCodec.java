package io.ringflow.state.snapshot;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The value of a LIST state entry, in both keyed backends and in snapshots: the element count, then each element
 * framed by its length.
 *
 * <pre>
 *   +-----------------+------------------+-------------------+-----+
 *   | element count   | element 0 length | element 0 bytes   | ... |
 *   | (int, LE)       | (int, LE)        | (element codec's) |     |
 *   +-----------------+------------------+-------------------+-----+
 * </pre>
 *
 * Little-endian, like the codecs. An element is appended without decoding the others: add 1 to the count and write
 * the length and bytes at the end ({@link #appendElement}). A list is never empty when stored: the empty list is
 * stored as no entry.
 *
 * <p>Stateless apart from its element codec; thread-safe when that codec is.
 *
 * @param <T> the element type.
 */
public final class ListCodec<T> implements Codec<List<T>>
{
    /** Bytes of the element count. */
    public static final int COUNT_LENGTH = Integer.BYTES;
    /** Bytes of an element's length. */
    public static final int ELEMENT_LENGTH = Integer.BYTES;

    private final Codec<T> elements;

    /** @param elements the element codec. */
    public ListCodec(final Codec<T> elements)
    {
        this.elements = Objects.requireNonNull(elements, "elements");
    }

    /** @return the element codec. */
    public Codec<T> elementCodec()
    {
        return elements;
    }

    @Override
    @SuppressWarnings("unchecked")
    public Class<List<T>> type()
    {
        return (Class<List<T>>)(Class<?>)List.class;
    }

    /** {@inheritDoc} The version of the list framing, always 1; snapshots record the element codec's version. */
    @Override
    public int version()
    {
        return 1;
    }

    /**
     * {@inheritDoc}
     *
     * @throws NullPointerException when an element is null.
     */
    @Override
    public int encode(final List<T> value, final CodecBuffer buffer, final int offset)
    {
        buffer.putInt(offset, value.size());
        int position = offset + COUNT_LENGTH;
        for (final T element : value)
        {
            position += appendAt(element, buffer, position);
        }
        return position - offset;
    }

    /**
     * Appends one element to an encoded list of {@code length} bytes at {@code offset}: writes its length and bytes
     * at the end, then counts it. When the element does not fit a fixed window, the window is marked
     * {@link CodecBuffer#overflowed() overflowed} and the element is not counted: the list (its first {@code length}
     * bytes) is unchanged, and can be copied into a larger window and appended to again.
     *
     * @param element the element, non-null.
     * @param buffer  holds the encoded list.
     * @param offset  where the list starts.
     * @param length  the list's length in bytes.
     * @return the list's new length; meaningless when the element did not fit.
     * @throws IllegalStateException when {@code buffer} is already marked overflowed: clear the mark first, or an
     *                               element that fits could not be told from one that does not.
     */
    public int appendElement(final T element, final CodecBuffer buffer, final int offset, final int length)
    {
        if (buffer.overflowed())
        {
            throw new IllegalStateException("appending to a list in a buffer already marked overflowed");
        }
        final int appended = appendAt(element, buffer, offset + length);
        if (buffer.overflowed())
        {
            // a fixed window too small: the count stays, so the list's bytes are unchanged and the caller can retry
            return length + appended;
        }
        buffer.putInt(offset, buffer.getInt(offset) + 1);
        return length + appended;
    }

    private int appendAt(final T element, final CodecBuffer buffer, final int at)
    {
        Objects.requireNonNull(element, "a list element must not be null");
        // the length is written after the bytes, both past the list's end: a codec that runs out of room leaves the
        // list's own bytes as they were
        final int elementLength = elements.encode(element, buffer, at + ELEMENT_LENGTH);
        buffer.putInt(at, elementLength);
        return ELEMENT_LENGTH + elementLength;
    }

    /**
     * {@inheritDoc}
     *
     * @return a new, mutable list.
     * @throws IllegalArgumentException when a count or length does not fit in {@code length} bytes.
     */
    @Override
    public List<T> decode(final CodecBuffer buffer, final int offset, final int length)
    {
        if (length < COUNT_LENGTH)
        {
            throw new IllegalArgumentException("an encoded list of " + length + " bytes has no element count");
        }
        final int count = buffer.getInt(offset);
        final int end = offset + length;
        if (count < 0 || count > (length - COUNT_LENGTH) / ELEMENT_LENGTH)
        {
            throw new IllegalArgumentException("an encoded list of " + length + " bytes claims " + count +
                " elements");
        }
        final List<T> list = new ArrayList<>(count);
        int position = offset + COUNT_LENGTH;
        for (int i = 0; i < count; i++)
        {
            if (end - position < ELEMENT_LENGTH)
            {
                throw new IllegalArgumentException("element " + i + " of an encoded list runs past its end");
            }
            final int elementLength = buffer.getInt(position);
            position += ELEMENT_LENGTH;
            if (elementLength < 0 || elementLength > end - position)
            {
                throw new IllegalArgumentException("element " + i + " of an encoded list claims " + elementLength +
                    " bytes, more than are left");
            }
            list.add(elements.decode(buffer, position, elementLength));
            position += elementLength;
        }
        if (position != end)
        {
            throw new IllegalArgumentException("an encoded list of " + count + " elements ends " + (end - position) +
                " bytes before its value does");
        }
        return list;
    }
}
