package io.ringflow.state.chronicle;

import io.ringflow.state.codec.CodecBuffer;

/**
 * The layout of a map state's stored value in the Chronicle backend: every entry of one key, in one Chronicle Map
 * value, so that one lookup yields the key's whole map and iterating it never scans other keys.
 *
 * <pre>
 *   stored value:
 *   +-------------------+---------+---------+-----+
 *   | entry count       | entry 0 | entry 1 | ... |      the count is at least 1: an empty map is no value
 *   | (int, LE)         |         |         |     |
 *   +-------------------+---------+---------+-----+
 *
 *   entry:
 *   +-----------------+------------------+--------------+---------------------------------------------+
 *   | user key length | user key bytes   | value length | value bytes                                 |
 *   | (int, LE)       | (user key codec) | (int, LE)    | [TTL timestamp (8, LE)] value codec's bytes |
 *   +-----------------+------------------+--------------+---------------------------------------------+
 * </pre>
 *
 * An entry's user key bytes and value bytes are exactly a snapshot entry's sub-key and value, so a flush splits a
 * stored value into snapshot entries without decoding anything, and a restore appends snapshot entries to the stored
 * value of their key. Entries are in no particular order; user keys are compared by their encoded bytes.
 *
 * <p>Little-endian, like the codecs. Stateless static helpers; any thread.
 */
final class MapBlobLayout
{
    /** Bytes of the entry count; where the first entry starts. */
    static final int COUNT_LENGTH = Integer.BYTES;
    /** Bytes of each of an entry's two lengths. */
    static final int LENGTH_LENGTH = Integer.BYTES;

    private MapBlobLayout()
    {
    }

    /**
     * @param userKeyLength the user key's length.
     * @param valueLength   the value's length, timestamp included.
     * @return the bytes the entry takes.
     */
    static int entryLength(final int userKeyLength, final int valueLength)
    {
        return LENGTH_LENGTH + userKeyLength + LENGTH_LENGTH + valueLength;
    }

    /** @return the entry count of the stored value in {@code bytes}. */
    static int count(final byte[] bytes)
    {
        return getInt(bytes, 0);
    }

    /** @return the length of the user key of the entry at {@code entry}. */
    static int userKeyLength(final byte[] bytes, final int entry)
    {
        return getInt(bytes, entry);
    }

    /** @return where the user key of the entry at {@code entry} starts. */
    static int userKeyOffset(final int entry)
    {
        return entry + LENGTH_LENGTH;
    }

    /** @return the length of the value of the entry at {@code entry}. */
    static int valueLength(final byte[] bytes, final int entry)
    {
        return getInt(bytes, entry + LENGTH_LENGTH + userKeyLength(bytes, entry));
    }

    /** @return where the value of the entry at {@code entry} starts. */
    static int valueOffset(final byte[] bytes, final int entry)
    {
        return entry + LENGTH_LENGTH + userKeyLength(bytes, entry) + LENGTH_LENGTH;
    }

    /** @return where the entry after the one at {@code entry} starts. */
    static int next(final byte[] bytes, final int entry)
    {
        return valueOffset(bytes, entry) + valueLength(bytes, entry);
    }

    /**
     * @param bytes         a stored value.
     * @param length        its length.
     * @param userKey       an encoded user key.
     * @param userKeyLength its length.
     * @return where the entry of that user key starts, or -1 when there is none.
     */
    static int find(final byte[] bytes, final int length, final byte[] userKey, final int userKeyLength)
    {
        final int count = count(bytes);
        int entry = COUNT_LENGTH;
        for (int i = 0; i < count && entry < length; i++)
        {
            if (userKeyLength(bytes, entry) == userKeyLength &&
                java.util.Arrays.equals(bytes, userKeyOffset(entry), userKeyOffset(entry) + userKeyLength,
                userKey, 0, userKeyLength))
            {
                return entry;
            }
            entry = next(bytes, entry);
        }
        return -1;
    }

    /**
     * Checks that a stored value's entries fill it exactly, so the helpers above stay within it.
     *
     * @param bytes  a stored value.
     * @param length its length.
     * @return null when it is well formed, else what is wrong.
     */
    static String problem(final byte[] bytes, final int length)
    {
        if (length < COUNT_LENGTH)
        {
            return "a map value of " + length + " bytes has no entry count";
        }
        final int count = count(bytes);
        if (count < 1)
        {
            return "a map value holds " + count + " entries";
        }
        long entry = COUNT_LENGTH;
        for (int i = 0; i < count; i++)
        {
            if (entry + LENGTH_LENGTH > length)
            {
                return "entry " + i + " of a map value runs past its end";
            }
            final int userKeyLength = getInt(bytes, (int)entry);
            if (userKeyLength < 0 || entry + LENGTH_LENGTH + userKeyLength + LENGTH_LENGTH > length)
            {
                return "the user key of entry " + i + " of a map value runs past its end";
            }
            final int valueLength = getInt(bytes, (int)entry + LENGTH_LENGTH + userKeyLength);
            entry += 2L * LENGTH_LENGTH + userKeyLength;
            if (valueLength < 0 || entry + valueLength > length)
            {
                return "the value of entry " + i + " of a map value runs past its end";
            }
            entry += valueLength;
        }
        return entry == length ? null : "a map value of " + count + " entries ends " + (length - entry) +
            " bytes before its stored value does";
    }

    /**
     * Appends an entry at {@code at}; the caller counts it.
     *
     * @return where the entry after it starts.
     */
    static int putEntry(
        final CodecBuffer into, final int at, final byte[] userKey, final int userKeyOffset,
        final int userKeyLength, final byte[] value, final int valueOffset, final int valueLength)
    {
        into.putInt(at, userKeyLength);
        into.putBytes(at + LENGTH_LENGTH, userKey, userKeyOffset, userKeyLength);
        final int valueLengthAt = at + LENGTH_LENGTH + userKeyLength;
        into.putInt(valueLengthAt, valueLength);
        into.putBytes(valueLengthAt + LENGTH_LENGTH, value, valueOffset, valueLength);
        return valueLengthAt + LENGTH_LENGTH + valueLength;
    }

    /**
     * Appends an entry at {@code at} from a snapshot's bytes; the caller counts it.
     *
     * @return where the entry after it starts.
     */
    static int putEntry(
        final CodecBuffer into, final int at, final CodecBuffer from, final int userKeyOffset,
        final int userKeyLength, final int valueOffset, final int valueLength)
    {
        into.putInt(at, userKeyLength);
        into.putBytes(at + LENGTH_LENGTH, from, userKeyOffset, userKeyLength);
        final int valueLengthAt = at + LENGTH_LENGTH + userKeyLength;
        into.putInt(valueLengthAt, valueLength);
        into.putBytes(valueLengthAt + LENGTH_LENGTH, from, valueOffset, valueLength);
        return valueLengthAt + LENGTH_LENGTH + valueLength;
    }

    /**
     * @param into  a stored value.
     * @param count its entry count.
     */
    static void putCount(final CodecBuffer into, final int count)
    {
        into.putInt(0, count);
    }

    /** Reads a little-endian int from an array. */
    static int getInt(final byte[] bytes, final int at)
    {
        return (bytes[at] & 0xFF) | (bytes[at + 1] & 0xFF) << 8 | (bytes[at + 2] & 0xFF) << 16 |
            (bytes[at + 3] & 0xFF) << 24;
    }
}
