package io.ringflow.state.snapshot;

import io.ringflow.state.keyed.StateKind;

/**
 * The backend-independent format of a keyed state snapshot: what every keyed state backend writes and every backend
 * can restore, so a snapshot of the heap backend restores into Chronicle Map and back. Entries are grouped by key
 * group and an index at the end locates each group, so one key group can be read without the others (rescaling reads
 * only the groups a new subtask owns).
 *
 * <pre>
 *   header: magic "RFKS" (int) | version (int) | type (int; v3: 0 full, 1 delta) | max parallelism (int)
 *           | first key group (int) | last key group (int)
 *           state count (int) | per state: name (string) | kind code (byte) | key type (string) | key codec version
 *           (int) | value type (string) | value codec version (int) | user key type (string, "" when none; v2) |
 *           user key codec version (int; v2) | flags (byte, bit 0: values carry a TTL timestamp; v2)
 *   groups: per non-empty key group, ascending: key group (int) | entry count (int) | entries
 *   entry:  state index (int) | key length (int) | key bytes | sub-key length (int, -1 when none) | sub-key bytes |
 *           value length (int; -1 in a delta's tombstone, then no bytes and sub-key length -1) | value bytes
 *   index:  per group: key group (int) | offset of the group from the file start (long)
 *   footer: group count (int) | offset of the index (long) | magic "RFKE" (int)
 *   string: length (int) | UTF-8 bytes
 * </pre>
 *
 * All integers of the framing big-endian; keys, sub-keys and values are as their codecs write them (little-endian).
 * Length and checksum of the whole file are checked by the checkpoint storage from the handle in the metadata before
 * a reader sees the bytes; the reader still checks every length against the bounds of the file, so a bug elsewhere
 * cannot make it read out of bounds or allocate absurd amounts.
 *
 * <p><b>Entries per kind</b> ({@link StateKind}): VALUE, REDUCING and AGGREGATING states have one entry per key, no
 * sub-key, the value (for AGGREGATING, the accumulator) as its codec writes it. A MAP state has one entry per (key,
 * user key): the user key is the sub-key, the map value the value. A LIST state has one entry per key whose value is
 * the whole list in {@link ListCodec}'s format (element count, then length-prefixed elements). A key with an empty map
 * or list has no entry.
 *
 * <p><b>Time-to-live</b> (version 2). When a state's flags say so ({@link StateMeta#timeToLive()}), each of its values
 * starts with an 8-byte timestamp ({@link TtlValues}): per entry, so per user key for a MAP state and per key for
 * every other kind. Entries already expired at the barrier are left out. The time-to-live itself is not written: it
 * belongs to the declaration and may change between runs; a restore refuses to mix a TTL snapshot and a declaration
 * without TTL, or the reverse, because the values would be read at the wrong offset.
 *
 * <p><b>Deltas</b> (version 3, type 1). An incremental checkpoint writes, for a subtask, only the (state, key) pairs
 * that changed since a base checkpoint: per changed key either its entries as of the barrier or a tombstone saying it
 * has none (a MAP state's changed key is written as a tombstone followed by all of its user keys, so a delta never
 * needs the base to tell which user keys went away). A delta is meaningful only on top of its chain: a full
 * snapshot, then every delta since, in order; {@link KeyedSnapshotChain} merges a chain into one full snapshot, which
 * is what a store restores. Within a key group a delta's entries are applied in file order.
 *
 * <p><b>Versions.</b> Version 1 had no user key type, user key codec version or flags; it is still read (every state
 * without user keys or TTL). Version 2 had no type (always full); it is still read. Version 3 is written.
 */
public final class KeyedSnapshotFormat
{
    /** First four bytes of a keyed snapshot. */
    public static final int MAGIC = 0x52464B53;
    /** Last four bytes of a keyed snapshot. */
    public static final int END_MAGIC = 0x52464B45;
    /** The version this code writes. */
    public static final int VERSION = 3;
    /** Snapshot type (version 3): every entry as of the barrier. */
    public static final int TYPE_FULL = 0;
    /** Snapshot type (version 3): the entries that changed since a base snapshot, and tombstones. */
    public static final int TYPE_DELTA = 1;
    /** Value length of a tombstone entry in a delta. */
    public static final int TOMBSTONE = -1;
    /** The oldest version this code reads. */
    public static final int OLDEST_READABLE_VERSION = 1;
    /** Bit of a state's flags: its values start with a {@link TtlValues} timestamp. */
    public static final int FLAG_TIME_TO_LIVE = 1;
    /** Bytes of the footer: group count, index offset, end magic. */
    static final int FOOTER_LENGTH = 4 + 8 + 4;

    private KeyedSnapshotFormat()
    {
    }
}
