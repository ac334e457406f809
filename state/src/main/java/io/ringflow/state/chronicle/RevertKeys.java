package io.ringflow.state.chronicle;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;

/**
 * The stored keys of one state that a revert rewrites ({@link ChronicleKeyedStateStore#revertTo}), each once, with
 * two marks per key, laid out by key group.
 *
 * <p>A revert scans the checkpoint's snapshot, which is read one key group at a time, and probes this set for every
 * entry it reads: ten million probes at ten million keys, of which only the changed keys hit. Each key group has its
 * own open-addressing table (offsets into one array of key bytes, lengths, hashes, marks; at most two thirds full)
 * and its own stretch of key bytes, so while one key group is scanned the probes stay within that group's share of
 * the set (for 10-byte keys, about 26 KB of table and 10 KB of key bytes a thousand keys) instead of missing the cache on a hash set of objects spread over
 * the heap, which was two fifths of a revert's time at a million changed keys. A stored key of an 8-byte key is hashed
 * from that long, so a scan probes it with {@link #slotOfLong}, without building the stored key.
 *
 * <p>Built whole from its sources ({@link #of}), then only marked: no key is added or removed after. Thread contract:
 * one thread (the task's, during a revert).
 */
final class RevertKeys
{
    /** Marked on a key the scan found in the snapshot (a key with one entry is then done). */
    static final int FOUND = 1;
    /** Marked on a counter a hot-key front holds unboxed, to be overwritten there. */
    static final int IN_FRONT = 2;

    /** A stored key of an 8-byte key (a {@code Long}'s, with the built-in codec): hashed and probed as a long. */
    private static final int LONG_KEY_LENGTH = StoredKeyLayout.KEY_OFFSET + Long.BYTES;
    /** A codec's bytes are little-endian: the key's long as {@link io.ringflow.state.codec.CodecBuffer} reads it. */
    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class,
        ByteOrder.LITTLE_ENDIAN);

    /** A key group's filter has eight bits for each slot of its table: 2^3, so a power of two bits too. */
    private static final int FILTER_BITS_A_SLOT_LOG2 = 3;
    private static final int FILTER_BITS_A_SLOT = 1 << FILTER_BITS_A_SLOT_LOG2;

    /** The largest array a JVM allocates. */
    private static final long MAX_ARRAY = Integer.MAX_VALUE - 8;

    private final int keyGroups;
    /** By key group, then one more: the group's first slot; a group's table ends where the next one starts. */
    private final int[] tableStart;
    /** By slot: the key's offset in {@link #keyBytes} plus 1, or 0 for an empty slot. */
    private final int[] offsets;
    private final int[] lengths;
    private final int[] hashes;
    private final byte[] marks;
    /** The keys' bytes, key group by key group; a key group's stretch has room for its keys with repeats. */
    private final byte[] keyBytes;
    /**
     * A Bloom filter with one hash function in front of each key group's table, eight bits a slot (about 16 bits a
     * key): a clear bit means the key is not in the set, so the probe of a key the set does not hold, nearly every
     * entry a revert's scan reads, is one read of a word of this array instead of a walk of about five slots of a
     * table two thirds full (a third of a revert's time at 300,000 changed keys in 10 million, measured). A key
     * group's filter is its own stretch of bits, from eight times its first slot, so while a scan reads one key group
     * its probes stay in that group's few kilobytes, like its table's; one filter over the whole set, with the group
     * mixed into the bit, put a third of a revert's time in cache misses at 0.3-0.5 M changed keys (measured).
     */
    private final long[] filter;
    private int size;

    private RevertKeys(final int keyGroups, final int[] tableStart, final byte[] keyBytes)
    {
        this.keyGroups = keyGroups;
        this.tableStart = tableStart;
        final int slots = tableStart[keyGroups];
        // a table has one to three slots a key: 16 filter bits a key is FILTER_BITS_A_SLOT a slot
        this.filter = new long[(int)(((long)slots * FILTER_BITS_A_SLOT + Long.SIZE - 1) / Long.SIZE)];
        this.offsets = new int[slots];
        this.lengths = new int[slots];
        this.hashes = new int[slots];
        this.marks = new byte[slots];
        this.keyBytes = keyBytes;
    }

    /**
     * @param sources        sets of stored keys; a key may be in several.
     * @param maxParallelism the store's number of key groups: every key's group is below it.
     * @return every key of the sources, once, none marked.
     * @throws IllegalStateException when the keys' bytes or tables would not fit in arrays.
     * @throws IllegalArgumentException when a key is shorter than its key group or of a key group past the last.
     */
    static RevertKeys of(final List<ChangedKeySet> sources, final int maxParallelism)
    {
        // first pass: per key group, how many keys and bytes, repeats included (an upper bound of each)
        final long[] counts = new long[maxParallelism];
        final long[] bytes = new long[maxParallelism];
        for (final ChangedKeySet source : sources)
        {
            source.forEachKey((array, offset, length) ->
            {
                final int group = keyGroupOf(array, offset, length, maxParallelism);
                counts[group]++;
                bytes[group] += length;
            });
        }
        final int[] tableStart = new int[maxParallelism + 1];
        final int[] bytesStart = new int[maxParallelism];
        long slots = 0;
        long totalBytes = 0;
        for (int group = 0; group < maxParallelism; group++)
        {
            tableStart[group] = (int)slots;
            bytesStart[group] = (int)totalBytes;
            slots += counts[group] == 0 ? 0 : tableSize(counts[group]);
            totalBytes += bytes[group];
            if (slots > MAX_ARRAY || totalBytes > MAX_ARRAY)
            {
                throw new IllegalStateException("too many changed keys to revert in place: more than " +
                    MAX_ARRAY + " table slots or key bytes (see fits)");
            }
        }
        tableStart[maxParallelism] = (int)slots;
        final RevertKeys keys = new RevertKeys(maxParallelism, tableStart, new byte[(int)totalBytes]);
        // second pass: each key into its group's table and stretch of bytes, once
        for (final ChangedKeySet source : sources)
        {
            source.forEachKey((array, offset, length) -> keys.add(array, offset, length, bytesStart));
        }
        return keys;
    }

    /**
     * Whether {@link #of} can hold keys from sources of these totals, repeats included: its tables and key bytes
     * each fit in an array. A revert checks this before it starts ({@link ChronicleKeyedStateStore#canRevertTo}), so
     * a store it does not hold for is restored in full instead of failing every restart.
     *
     * @param keys           keys in all sources, repeats included.
     * @param keyBytes       their bytes, at most.
     * @param maxParallelism the store's number of key groups.
     */
    static boolean fits(final long keys, final long keyBytes, final int maxParallelism)
    {
        // a key group's table is a power of two below three slots a key, and at least two slots
        return keys * 3 + 2L * maxParallelism <= MAX_ARRAY && keyBytes <= MAX_ARRAY;
    }

    /** @return how many keys, each counted once. */
    int size()
    {
        return size;
    }

    /**
     * @param key    a stored key, from index 0 (its key group first).
     * @param length how many bytes it has.
     * @return its slot, or -1 when it is not in the set.
     */
    int slotOf(final byte[] key, final int length)
    {
        if (length < StoredKeyLayout.KEY_OFFSET)
        {
            return -1;
        }
        final int group = StoredKeyLayout.keyGroup(key);
        return group < keyGroups ? find(group, key, 0, length, hashOf(key, 0, length)) : -1;
    }

    /**
     * {@link #slotOf} for the stored key of an 8-byte key, without building it: one long compared a slot, no bytes
     * hashed or copied (a revert asks this for every entry of the snapshots it reads).
     *
     * @param keyGroup the key's key group.
     * @param key      its 8 bytes as a little-endian long (as a codec buffer reads them).
     * @return its slot, or -1 when it is not in the set.
     */
    int slotOfLong(final int keyGroup, final long key)
    {
        if (keyGroup < 0 || keyGroup >= keyGroups)
        {
            return -1;
        }
        final int hash = longHash(key);
        final int start = tableStart[keyGroup];
        final int tableSize = tableStart[keyGroup + 1] - start;
        if (tableSize == 0 || !mayHold(start, tableSize, hash))
        {
            return -1;
        }
        final int mask = tableSize - 1;
        for (int probe = spread(hash) & mask; ; probe = (probe + 1) & mask)
        {
            final int slot = start + probe;
            final int at = offsets[slot] - 1;
            if (at < 0)
            {
                return -1;
            }
            // a table holds only its own key group's keys, so the long decides
            if (hashes[slot] == hash && lengths[slot] == LONG_KEY_LENGTH &&
                (long)LONG_LE.get(keyBytes, at + StoredKeyLayout.KEY_OFFSET) == key)
            {
                return slot;
            }
        }
    }

    /** @return whether the key in {@code slot} carries {@code mark}. */
    boolean marked(final int slot, final int mark)
    {
        return (marks[slot] & mark) != 0;
    }

    /** Puts {@code mark} on the key in {@code slot}. */
    void mark(final int slot, final int mark)
    {
        marks[slot] |= (byte)mark;
    }

    /** Receives one key of the set where it lies, for as long as the call lasts. */
    @FunctionalInterface
    interface KeyVisitor
    {
        /**
         * @param bytes  the array holding the key (its key group first); read only, and only during the call.
         * @param offset where the key starts.
         * @param length how many bytes it has.
         * @param slot   its slot, for {@link #marked} and {@link #mark}.
         */
        void accept(byte[] bytes, int offset, int length, int slot);
    }

    /**
     * Hands every key that does not carry {@code skipMarked} to {@code visitor}, key group by key group; 0 hands every
     * key. The visitor may mark keys.
     */
    void forEach(final int skipMarked, final KeyVisitor visitor)
    {
        for (int slot = 0; slot < offsets.length; slot++)
        {
            if (offsets[slot] != 0 && (marks[slot] & skipMarked) == 0)
            {
                visitor.accept(keyBytes, offsets[slot] - 1, lengths[slot], slot);
            }
        }
    }

    private void add(final byte[] array, final int offset, final int length, final int[] bytesNext)
    {
        final int group = StoredKeyLayout.keyGroup(array, offset);
        final int hash = hashOf(array, offset, length);
        if (find(group, array, offset, length, hash) >= 0)
        {
            return;
        }
        final int start = tableStart[group];
        final int mask = tableStart[group + 1] - start - 1;
        int slot = start + (spread(hash) & mask);
        while (offsets[slot] != 0)
        {
            slot = start + ((slot - start + 1) & mask);
        }
        final long bit = filterBit(start, mask + 1, hash);
        filter[(int)(bit >>> 6)] |= 1L << bit;
        final int at = bytesNext[group];
        System.arraycopy(array, offset, keyBytes, at, length);
        bytesNext[group] = at + length;
        offsets[slot] = at + 1;
        lengths[slot] = length;
        hashes[slot] = hash;
        size++;
    }

    /**
     * @param start     the key group's first slot.
     * @param tableSize its table's slots, a power of two, not 0.
     * @return false when no key of the group with {@code hash} is in the set; true when one may be.
     */
    private boolean mayHold(final int start, final int tableSize, final int hash)
    {
        final long bit = filterBit(start, tableSize, hash);
        return (filter[(int)(bit >>> 6)] & 1L << bit) != 0;
    }

    /**
     * @return the filter's bit of a key of the key group whose table starts at {@code start}: within the group's
     *     stretch of {@code tableSize * 8} bits, picked by the top bits of its hash, mixed.
     */
    private static long filterBit(final int start, final int tableSize, final int hash)
    {
        final int bitsLog2 = Integer.numberOfTrailingZeros(tableSize) + FILTER_BITS_A_SLOT_LOG2;
        return ((long)start << FILTER_BITS_A_SLOT_LOG2) +
            ((hash & 0xFFFF_FFFFL) * 0x9E3779B97F4A7C15L >>> (64 - bitsLog2));
    }

    private int find(final int group, final byte[] key, final int offset, final int length, final int hash)
    {
        final int start = tableStart[group];
        final int tableSize = tableStart[group + 1] - start;
        if (tableSize == 0 || !mayHold(start, tableSize, hash))
        {
            return -1;
        }
        final int mask = tableSize - 1;
        for (int probe = spread(hash) & mask; ; probe = (probe + 1) & mask)
        {
            final int slot = start + probe;
            final int at = offsets[slot] - 1;
            if (at < 0)
            {
                return -1;
            }
            if (hashes[slot] == hash && lengths[slot] == length &&
                Arrays.equals(keyBytes, at, at + length, key, offset, offset + length))
            {
                return slot;
            }
        }
    }

    private static int keyGroupOf(final byte[] array, final int offset, final int length, final int maxParallelism)
    {
        if (length < StoredKeyLayout.KEY_OFFSET)
        {
            throw new IllegalArgumentException("a stored key of " + length + " bytes has no key group");
        }
        final int group = StoredKeyLayout.keyGroup(array, offset);
        if (group >= maxParallelism)
        {
            throw new IllegalArgumentException("a stored key of key group " + group + " in a store of " +
                maxParallelism + " key groups");
        }
        return group;
    }

    /** @return the smallest power of two at least half again as large as {@code keys} (at most two thirds full). */
    private static long tableSize(final long keys)
    {
        final long wanted = Math.max(2, keys + (keys + 1) / 2);
        return Long.highestOneBit(wanted - 1) << 1;
    }

    /**
     * The hash of a stored key within its key group's table: of the long for an 8-byte key (so {@link #slotOfLong}
     * needs no bytes), else of every byte.
     */
    private static int hashOf(final byte[] array, final int offset, final int length)
    {
        return length == LONG_KEY_LENGTH ? longHash((long)LONG_LE.get(array, offset + StoredKeyLayout.KEY_OFFSET)) :
            PreservedKey.hash(array, offset, length);
    }

    private static int longHash(final long key)
    {
        final long h = key * 0x9E3779B97F4A7C15L;
        return (int)(h ^ (h >>> 32));
    }

    /** Mixes the high bits of a hash into the low ones that pick a slot. */
    private static int spread(final int hash)
    {
        final int h = hash * 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}
