package io.ringflow.state.chronicle;

import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * The stored keys changed in one interval between snapshots, compactly: each key's bytes are appended once to one
 * byte array (a stop-bit length, then the bytes), and an open-addressing table of offsets and hashes finds them. A
 * 10-byte stored key (key group and a {@code long}) costs 11 bytes of arena and 12 to 24 of table, about a fifth of a
 * {@code HashSet<PreservedKey>} (object, array and node: some 100 bytes), so that state larger than the heap can
 * track the changes of an interval that touches millions of keys.
 *
 * <p>Recording allocates nothing but the arena's and table's growth: {@link #record} copies the key's bytes in. Iteration runs in
 * recording order and yields a new {@link PreservedKey} per key, for the flusher; {@link #contains} takes a
 * {@link PreservedKey}, which may be a reused probe.
 *
 * <p>Thread contract: one thread records (the task's). Once no more keys are recorded (the set is sealed at a
 * barrier and handed over with the snapshot), any number of threads may read it at once.
 */
final class ChangedKeySet extends AbstractSet<PreservedKey>
{
    /** The largest arena: the largest array a JVM allocates. */
    static final int MAX_ARENA_BYTES = Integer.MAX_VALUE - 8;
    private static final int INITIAL_SLOTS = 16;
    private static final int INITIAL_ARENA_BYTES = 256;

    private byte[] arena = new byte[INITIAL_ARENA_BYTES];
    private int arenaUsed;
    /** By slot: the key's offset in the arena plus 1, or 0 for an empty slot. */
    private int[] offsets = new int[INITIAL_SLOTS];
    /** By slot: the key's {@link PreservedKey#hashCode()}. */
    private int[] hashes = new int[INITIAL_SLOTS];
    private int size;

    /**
     * Records a stored key, once. Recording thread.
     *
     * @param key    the key's bytes, from index 0.
     * @param length how many of them.
     * @param hash   {@link PreservedKey#hash(byte[], int) its hash}.
     * @return false only when the key is new and the set cannot grow (its arena would pass
     *     {@link #MAX_ARENA_BYTES}); the set is then unchanged.
     */
    boolean record(final byte[] key, final int length, final int hash)
    {
        return find(key, length, hash) >= 0 || recordAbsent(key, length, hash);
    }

    /**
     * As {@link #record(byte[], int, int)} for a key known not to be in the set (no lookup). Recording thread.
     *
     * @return false when the set cannot grow; it is then unchanged.
     */
    boolean recordAbsent(final byte[] key, final int length, final int hash)
    {
        final int lengthBytes = stopBitLength(length);
        if ((long)arenaUsed + lengthBytes + length > MAX_ARENA_BYTES)
        {
            return false;
        }
        if ((size + 1L) * 3 > offsets.length * 2L)
        {
            rehash(offsets.length * 2);
        }
        ensureArena(arenaUsed + lengthBytes + length);
        final int offset = arenaUsed;
        int at = offset;
        int rest = length;
        while (rest >= 0x80)
        {
            arena[at++] = (byte)(rest | 0x80);
            rest >>>= 7;
        }
        arena[at++] = (byte)rest;
        System.arraycopy(key, 0, arena, at, length);
        arenaUsed = at + length;
        final int slot = freeSlot(hash, offsets);
        offsets[slot] = offset + 1;
        hashes[slot] = hash;
        size++;
        return true;
    }

    @Override
    public boolean add(final PreservedKey key)
    {
        final int before = size;
        if (!record(key.bytes(), key.length(), key.hashCode()))
        {
            throw new IllegalStateException("the change set cannot grow past " + MAX_ARENA_BYTES + " bytes");
        }
        return size > before;
    }

    @Override
    public boolean contains(final Object other)
    {
        return other instanceof PreservedKey key && find(key.bytes(), key.length(), key.hashCode()) >= 0;
    }

    @Override
    public int size()
    {
        return size;
    }

    /** @return at least the bytes of all keys recorded (their lengths' bytes included). */
    long keyBytesAtMost()
    {
        return arenaUsed;
    }

    /** @return the heap bytes of the arena and the table. */
    long memoryBytes()
    {
        return arena.length + (long)offsets.length * 2 * Integer.BYTES;
    }

    @Override
    public Iterator<PreservedKey> iterator()
    {
        return new Iterator<>()
        {
            private int at;
            private int left = size;

            @Override
            public boolean hasNext()
            {
                return left > 0;
            }

            @Override
            public PreservedKey next()
            {
                if (left == 0)
                {
                    throw new NoSuchElementException();
                }
                final int length = storedLength(at);
                at += stopBitLength(length);
                final PreservedKey key = PreservedKey.of(Arrays.copyOfRange(arena, at, at + length));
                at += length;
                left--;
                return key;
            }
        };
    }

    /** Receives a key's bytes where they lie, for as long as the call lasts. */
    @FunctionalInterface
    interface KeyBytes
    {
        /**
         * @param bytes  an array holding the key; read only, and only during the call.
         * @param offset where the key starts in it.
         * @param length how many bytes the key has.
         */
        void accept(byte[] bytes, int offset, int length);
    }

    /**
     * Hands every key to {@code visitor} in recording order, in place: no copy, no object per key. Any thread allowed
     * to read (see the class).
     *
     * @param visitor called once per key.
     */
    void forEachKey(final KeyBytes visitor)
    {
        int at = 0;
        for (int left = size; left > 0; left--)
        {
            final int length = storedLength(at);
            at += stopBitLength(length);
            visitor.accept(arena, at, length);
            at += length;
        }
    }

    /** @return the slot of the key, or -1. */
    private int find(final byte[] key, final int length, final int hash)
    {
        final int mask = offsets.length - 1;
        for (int slot = spread(hash) & mask; ; slot = (slot + 1) & mask)
        {
            final int offset = offsets[slot];
            if (offset == 0)
            {
                return -1;
            }
            if (hashes[slot] == hash && matches(offset - 1, key, length))
            {
                return slot;
            }
        }
    }

    private boolean matches(final int offset, final byte[] key, final int length)
    {
        final int at = offset + stopBitLength(length);
        return storedLength(offset) == length && Arrays.equals(arena, at, at + length, key, 0, length);
    }

    /** @return the stop-bit length that starts at {@code offset} in the arena. */
    private int storedLength(final int offset)
    {
        int at = offset;
        int length = 0;
        int shift = 0;
        byte b;
        do
        {
            b = arena[at++];
            length |= (b & 0x7F) << shift;
            shift += 7;
        }
        while (b < 0);
        return length;
    }

    private void rehash(final int slots)
    {
        final int[] oldOffsets = offsets;
        final int[] oldHashes = hashes;
        offsets = new int[slots];
        hashes = new int[slots];
        for (int slot = 0; slot < oldOffsets.length; slot++)
        {
            if (oldOffsets[slot] != 0)
            {
                final int to = freeSlot(oldHashes[slot], offsets);
                offsets[to] = oldOffsets[slot];
                hashes[to] = oldHashes[slot];
            }
        }
    }

    private void ensureArena(final int bytes)
    {
        if (bytes > arena.length)
        {
            arena = Arrays.copyOf(arena, (int)Math.min(MAX_ARENA_BYTES, Math.max(bytes, arena.length * 2L)));
        }
    }

    private static int freeSlot(final int hash, final int[] offsets)
    {
        final int mask = offsets.length - 1;
        int slot = spread(hash) & mask;
        while (offsets[slot] != 0)
        {
            slot = (slot + 1) & mask;
        }
        return slot;
    }

    /** Mixes the high bits of a polynomial hash into the low ones that pick a slot. */
    static int spread(final int hash)
    {
        final int h = hash * 0x9E3779B9;
        return h ^ (h >>> 16);
    }

    private static int stopBitLength(final int length)
    {
        int bytes = 1;
        for (int rest = length; rest >= 0x80; rest >>>= 7)
        {
            bytes++;
        }
        return bytes;
    }
}
