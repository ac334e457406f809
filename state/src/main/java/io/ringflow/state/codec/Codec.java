package io.ringflow.state.codec;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Turns values of one type into bytes and back. Codecs are how records cross a ring channel (written straight into
 * an off-heap slot) and how state is written into snapshots; Java serialization is never used.
 *
 * <p>Contract:
 * <ul>
 *   <li>{@link #encode} writes at {@code offset} and returns the number of bytes written. It must not write at or past
 *   {@code buffer.capacity()}: when the value does not fit it throws {@link IndexOutOfBoundsException} (Agrona's bounds
 *   checks do this for you) and the caller reports the value as too large. It must never write a truncated value.</li>
 *   <li>{@link #decode} reads exactly the {@code length} bytes that {@code encode} wrote.</li>
 *   <li>Codecs are stateless or thread-confined: one instance may be used by several threads at once.</li>
 *   <li>Encoding must not allocate in steady state; decoding allocates only the value it returns.</li>
 * </ul>
 *
 * @param <T> the type encoded
 */
public interface Codec<T>
{
    /**
     * @return the type this codec encodes; used in error messages and to check codecs on restore.
     */
    Class<T> type();

    /**
     * Format version of the bytes this codec writes. Restoring state written with another version is refused.
     *
     * @return the format version, 1 unless the codec says otherwise.
     */
    default int version()
    {
        return 1;
    }

    /**
     * The most bytes {@link #encode} can write for any value, when that is known in advance: lets a job refuse, at
     * submission, a record type that can never fit in a ring slot.
     *
     * @return the bound in bytes, or -1 when it depends on the value (strings, arrays, user codecs).
     */
    default int maxEncodedLength()
    {
        return -1;
    }

    /**
     * Writes {@code value} into {@code buffer} at {@code offset}.
     *
     * @param value  the value, never null.
     * @param buffer the destination; its capacity is the hard limit.
     * @param offset where to start writing.
     * @return the number of bytes written.
     * @throws IndexOutOfBoundsException when the encoded value does not fit below {@code buffer.capacity()}.
     */
    int encode(T value, MutableDirectBuffer buffer, int offset);

    /**
     * Reads a value written by {@link #encode}.
     *
     * @param buffer the source.
     * @param offset where the encoded value starts.
     * @param length how many bytes {@link #encode} wrote.
     * @return the decoded value.
     */
    T decode(DirectBuffer buffer, int offset, int length);
}
