package io.ringflow.state.snapshot;

import io.ringflow.state.codec.CodecBuffer;

import java.util.Arrays;

/**
 * The deltas' merged entries of one key group for states without user keys (value, list, reducing, aggregating):
 * per (state, key), its last value, or that it was removed. Keys and values are appended to one byte array, and an
 * open-addressing table finds a (state, key)'s latest record, so merging a delta entry costs a probe and a copy, with
 * no object per entry; the arrays are reused from one key group to the next.
 *
 * <p>Records come out in the order they were appended; a key set again appends a new record and retires its older
 * one, so a key comes out once, where it was last set.
 *
 * <p>Thread contract: one thread (the merge's).
 */
final class MergedValues
{
    private static final int REMOVED = -1;

    private byte[] arena = new byte[4_096];
    private CodecBuffer arenaBuffer = CodecBuffer.wrap(arena);
    private int arenaUsed;

    /** By record: its state, where its key and value start in the arena, their lengths ({@link #REMOVED} for none). */
    private int[] states = new int[256];
    private int[] keyOffsets = new int[256];
    private int[] keyLengths = new int[256];
    private int[] valueOffsets = new int[256];
    private int[] valueLengths = new int[256];
    /** By record: retired by a later record of the same key. */
    private boolean[] retired = new boolean[256];
    private int records;

    /** By slot: the latest record of a (state, key) plus one, 0 when empty. */
    private int[] slots = new int[512];
    /** By slot: the (state, key)'s hash. */
    private int[] hashes = new int[512];

    /** Forgets every record; keeps the arrays. */
    void clear()
    {
        if (records > 0)
        {
            Arrays.fill(slots, 0);
        }
        records = 0;
        arenaUsed = 0;
    }

    /** @return whether no record is held. */
    boolean isEmpty()
    {
        return records == 0;
    }

    /**
     * Sets a (state, key)'s value, or removes it.
     *
     * @param hash        the state's and key's hash, the same for {@link #put} and {@link #contains}.
     * @param valueLength the value's length, or a negative one to remove the key.
     */
    void put(final int state, final int hash, final CodecBuffer bytes, final int keyOffset, final int keyLength,
        final int valueOffset, final int valueLength)
    {
        final int value = Math.max(0, valueLength);
        ensureArena(keyLength + value);
        final int keyAt = arenaUsed;
        bytes.getBytes(keyOffset, arena, keyAt, keyLength);
        arenaUsed += keyLength;
        final int slot = find(state, hash, arena, keyAt, keyLength);
        final int held = slots[slot];
        final int record;
        if (held != 0)
        {
            // the key's bytes are already in the arena: the new record shares them
            arenaUsed = keyAt;
            final int older = held - 1;
            retired[older] = true;
            record = append(state, keyOffsets[older], keyLength);
        }
        else
        {
            record = append(state, keyAt, keyLength);
        }
        if (valueLength < 0)
        {
            valueOffsets[record] = 0;
            valueLengths[record] = REMOVED;
        }
        else
        {
            bytes.getBytes(valueOffset, arena, arenaUsed, valueLength);
            valueOffsets[record] = arenaUsed;
            valueLengths[record] = valueLength;
            arenaUsed += valueLength;
        }
        if (held != 0)
        {
            slots[slot] = record + 1;
            return;
        }
        slots[slot] = record + 1;
        hashes[slot] = hash;
        if ((records + 1L) * 2 > slots.length)
        {
            rehash(slots.length * 2);
        }
    }

    /**
     * @param key       a probe's bytes, from index 0.
     * @param keyLength how many.
     * @return whether a delta set or removed the (state, key).
     */
    boolean contains(final int state, final int hash, final byte[] key, final int keyLength)
    {
        return records > 0 && slots[find(state, hash, key, 0, keyLength)] != 0;
    }

    /** Receives a merged value: the key and value lie in {@code bytes}. */
    interface Visitor
    {
        void entry(int state, CodecBuffer bytes, int keyOffset, int keyLength, int valueOffset, int valueLength);
    }

    /** Hands every (state, key) with a value to {@code visitor}, in the order of its last setting. */
    void forEach(final Visitor visitor)
    {
        for (int record = 0; record < records; record++)
        {
            if (!retired[record] && valueLengths[record] != REMOVED)
            {
                visitor.entry(states[record], arenaBuffer, keyOffsets[record], keyLengths[record],
                    valueOffsets[record], valueLengths[record]);
            }
        }
    }

    /** @return the slot holding the (state, key), or the empty slot where it would go. */
    private int find(final int state, final int hash, final byte[] key, final int offset, final int length)
    {
        final int mask = slots.length - 1;
        for (int slot = spread(hash) & mask; ; slot = (slot + 1) & mask)
        {
            final int held = slots[slot];
            if (held == 0)
            {
                return slot;
            }
            final int record = held - 1;
            if (hashes[slot] == hash && states[record] == state && keyLengths[record] == length &&
                Arrays.equals(arena, keyOffsets[record], keyOffsets[record] + length, key, offset, offset + length))
            {
                return slot;
            }
        }
    }

    private int append(final int state, final int keyOffset, final int keyLength)
    {
        if (records == states.length)
        {
            final int grown = records * 2;
            states = Arrays.copyOf(states, grown);
            keyOffsets = Arrays.copyOf(keyOffsets, grown);
            keyLengths = Arrays.copyOf(keyLengths, grown);
            valueOffsets = Arrays.copyOf(valueOffsets, grown);
            valueLengths = Arrays.copyOf(valueLengths, grown);
            retired = Arrays.copyOf(retired, grown);
        }
        final int record = records++;
        states[record] = state;
        keyOffsets[record] = keyOffset;
        keyLengths[record] = keyLength;
        retired[record] = false;
        return record;
    }

    private void rehash(final int size)
    {
        final int[] oldSlots = slots;
        final int[] oldHashes = hashes;
        slots = new int[size];
        hashes = new int[size];
        final int mask = size - 1;
        for (int i = 0; i < oldSlots.length; i++)
        {
            if (oldSlots[i] != 0)
            {
                int slot = spread(oldHashes[i]) & mask;
                while (slots[slot] != 0)
                {
                    slot = (slot + 1) & mask;
                }
                slots[slot] = oldSlots[i];
                hashes[slot] = oldHashes[i];
            }
        }
    }

    private void ensureArena(final int more)
    {
        if ((long)arenaUsed + more > Integer.MAX_VALUE - 8)
        {
            throw new IllegalStateException("the deltas of one key group hold more than " + (Integer.MAX_VALUE - 8) +
                " bytes of values; merge a shorter chain");
        }
        if (arenaUsed + more > arena.length)
        {
            arena = Arrays.copyOf(arena, (int)Math.min(Integer.MAX_VALUE - 8,
                Math.max((long)arenaUsed + more, arena.length * 2L)));
            arenaBuffer = CodecBuffer.wrap(arena);
        }
    }

    /** Mixes the high bits of a polynomial hash into the low ones that pick a slot. */
    static int spread(final int hash)
    {
        final int h = hash * 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}
