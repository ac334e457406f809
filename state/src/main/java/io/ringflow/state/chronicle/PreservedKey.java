package io.ringflow.state.chronicle;

import java.util.Arrays;

/**
 * A stored key (in {@link StoredKeyLayout}) as the key of a snapshot's map of preserved values, compared by content.
 *
 * <p>Two uses: an immutable copy, stored in the map ({@link #copyOf}), and a reusable probe that wraps a slot's bytes
 * without copying them, to look a key up without allocating ({@link #wrap}). A probe belongs to one thread and must
 * never be stored.
 */
final class PreservedKey
{
    private byte[] bytes;
    private int length;
    private int hash;

    /** A probe; {@link #wrap} it before use. */
    PreservedKey()
    {
    }

    private PreservedKey(final byte[] bytes)
    {
        this.bytes = bytes;
        this.length = bytes.length;
        this.hash = hash(bytes, bytes.length);
    }

    /**
     * @param bytes a stored key's bytes, which the result owns.
     * @return the key.
     */
    static PreservedKey of(final byte[] bytes)
    {
        return new PreservedKey(bytes);
    }

    /**
     * @param key a stored key.
     * @return an immutable copy of it.
     */
    static PreservedKey copyOf(final EncodedBytes key)
    {
        return new PreservedKey(key.toByteArray());
    }

    /**
     * Points this probe at {@code key}'s bytes, until the slot changes.
     *
     * @param key a stored key.
     * @return this probe.
     */
    PreservedKey wrap(final EncodedBytes key)
    {
        bytes = key.array();
        length = key.length();
        hash = hash(bytes, length);
        return this;
    }

    /** @return the stored key's bytes; only the first {@link #length()} are meaningful. Do not modify. */
    byte[] bytes()
    {
        return bytes;
    }

    /** @return how many bytes the key has. */
    int length()
    {
        return length;
    }

    /** @return the key's key group. */
    int keyGroup()
    {
        return StoredKeyLayout.keyGroup(bytes);
    }

    /** @return the hash of a key's first {@code length} bytes, as {@link #hashCode()} gives it. */
    static int hash(final byte[] bytes, final int length)
    {
        return hash(bytes, 0, length);
    }

    /** @return the hash of the {@code length} bytes from {@code offset}, as {@link #hashCode()} gives it for them. */
    static int hash(final byte[] bytes, final int offset, final int length)
    {
        int h = 1;
        for (int i = offset, end = offset + length; i < end; i++)
        {
            h = 31 * h + bytes[i];
        }
        return h;
    }

    @Override
    public int hashCode()
    {
        return hash;
    }

    @Override
    public boolean equals(final Object other)
    {
        if (this == other)
        {
            return true;
        }
        if (!(other instanceof PreservedKey))
        {
            return false;
        }
        final PreservedKey that = (PreservedKey)other;
        return hash == that.hash && Arrays.equals(bytes, 0, length, that.bytes, 0, that.length);
    }

    @Override
    public String toString()
    {
        return "PreservedKey{length=" + length + ", keyGroup=" + keyGroup() + '}';
    }
}
