package io.ringflow.state.codec;

/**
 * Turns values of one type into bytes and back. Codecs are how records cross a ring channel (written straight into
 * an off-heap slot) and how state is written into snapshots; Java serialization is never used.
 *
 * <p>Contract:
 * <ul>
 *   <li>{@link #encode} writes at {@code offset} as if room were unlimited and returns the number of bytes it wrote.
 *   It does not check for room itself: a {@link CodecBuffer} never writes at or past its capacity. When the value
 *   does not fit a fixed window (a ring slot), the window drops the writes that would go past its end and marks
 *   itself {@link CodecBuffer#overflowed() overflowed}; a {@link CodecBuffer#growable growable} buffer grows
 *   instead. "Does not fit" is never an exception.</li>
 *   <li>Whoever hands a codec a fixed window checks {@link CodecBuffer#overflowed()} after every {@code encode} (with
 *   the mark cleared before it) and treats the value as not fitting when it is set: the bytes in the window are then
 *   not a value, and the returned count is meaningless (a codec that knows its size may stop before writing
 *   anything). A codec must never write a truncated value on its own (cut a string to the room left, say): the
 *   overflow mark is the only way "did not fit" is told, so a window that did not overflow holds the whole value,
 *   and a caller can never mistake a truncated value for a complete one.</li>
 *   <li>{@link #decode} reads exactly the {@code length} bytes that {@code encode} wrote; reading past the buffer
 *   (corrupt input) throws {@link IndexOutOfBoundsException}.</li>
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
     * Writes {@code value} into {@code buffer} at {@code offset}, as if room were unlimited.
     *
     * @param value  the value, never null.
     * @param buffer the destination; a fixed window drops writes past its capacity and marks itself
     *               {@link CodecBuffer#overflowed() overflowed}, which the caller checks.
     * @param offset where to start writing.
     * @return the number of bytes written; meaningful only when the buffer did not overflow.
     */
    int encode(T value, CodecBuffer buffer, int offset);

    /**
     * Reads a value written by {@link #encode}.
     *
     * @param buffer the source.
     * @param offset where the encoded value starts.
     * @param length how many bytes {@link #encode} wrote.
     * @return the decoded value.
     */
    T decode(CodecBuffer buffer, int offset, int length);
}
