package io.ringflow.state.snapshot;

/**
 * The backend-independent format of a keyed state snapshot: what every keyed state backend writes and every backend
 * can restore, so a snapshot of the heap backend restores into Chronicle Map and back. Entries are grouped by key
 * group and an index at the end locates each group, so one key group can be read without the others (rescaling reads
 * only the groups a new subtask owns).
 *
 * <pre>
 *   header: magic "RFKS" (int) | version (int) | max parallelism (int) | first key group (int) | last key group (int)
 *           state count (int) | per state: name (string) | kind code (byte) | key type (string) | key codec version
 *           (int) | value type (string) | value codec version (int)
 *   groups: per non-empty key group, ascending: key group (int) | entry count (int) | entries
 *   entry:  state index (int) | key length (int) | key bytes | sub-key length (int, -1 when none) | sub-key bytes |
 *           value length (int) | value bytes
 *   index:  per group: key group (int) | offset of the group from the file start (long)
 *   footer: group count (int) | offset of the index (long) | magic "RFKE" (int)
 *   string: length (int) | UTF-8 bytes
 * </pre>
 *
 * All integers big-endian. Length and checksum of the whole file are checked by the checkpoint storage from the
 * handle in the metadata before a reader sees the bytes; the reader still checks every length against the bounds of
 * the file, so a bug elsewhere cannot make it read out of bounds or allocate absurd amounts.
 */
public final class KeyedSnapshotFormat
{
    /** First four bytes of a keyed snapshot. */
    public static final int MAGIC = 0x52464B53;
    /** Last four bytes of a keyed snapshot. */
    public static final int END_MAGIC = 0x52464B45;
    /** The version this code writes and reads. */
    public static final int VERSION = 1;
    /** Bytes of the footer: group count, index offset, end magic. */
    static final int FOOTER_LENGTH = 4 + 8 + 4;

    private KeyedSnapshotFormat()
    {
    }
}
