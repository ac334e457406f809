/**
 * The Chronicle Map keyed state backend: {@link io.ringflow.state.chronicle.ChronicleKeyedStateStore}, configured by
 * {@link io.ringflow.state.chronicle.ChronicleStateConfig}.
 *
 * <p>One Chronicle Map per state holds keys (prefixed by their key group, see {@code StoredKeyLayout}) and values as
 * their codecs encode them, through reusable {@code EncodedBytes} slots: one stored value per key for every kind (a
 * list whole, a map state's entries of one key together, see {@code MapBlobLayout}), with a time-to-live timestamp
 * first when the state has one. Snapshots are copy-on-write: the barrier
 * registers a {@code PendingStateSnapshot} per state; the task thread preserves old values under the segment lock
 * before changing them, until the flusher, reading segment by segment under the same locks, has passed their
 * segment. The class comment of the store gives the protocol and the argument that each snapshot is exactly the state
 * at its barrier; {@code docs/state.md} gives sizing and trade-offs.
 *
 * <h2>Hot-key front</h2>
 *
 * A value state without a time-to-live keeps up to C keys on the heap (from {@code hotFrontBytesPerState}, 64 MiB by
 * default, or {@code hotKeysPerState}),
 * decoded, in a write-back {@code HotKeyFront} before its map (0 turns it off): keys in the front are read and updated
 * with no Chronicle call and no allocation. Only writes enter (while there is room); reads of other keys go to the
 * map and do not enter; a clear removes a key from both; so a front value is always newer than the key's map entry.
 * <p><b>Turnover:</b> hits and misses are counted over windows of 65,536 accesses; a window that ends with a front of
 * at most 65,536 keys full and more misses than hits writes every entry back through the map's write path (copy-on-write and change
 * tracking apply) and empties the front, letting hotter keys in.
 * <p><b>Snapshot overlay:</b> at the barrier each non-empty front gives a {@code FrontOverlay}: an O(1) view of a
 * {@code CopyOnWriteLongTable} for {@code Long} counters, else a copy (O(C)); the flusher
 * encodes it, skips the map's live or preserved entries for its keys and emits its entries instead. A delta's changed
 * keys are the map's change sets since the base plus the overlay's keys, the overlay winning: a key leaves the front
 * only by a write back or a clear, both recorded as changes, so no change is missed.
 * <p><b>Trade-offs:</b> the synchronous part of a snapshot grows by O(C) per value state of other types than
 * {@code Long} counters, not with the number of keys; the heap holds at most C entries per value state; and, as in the
 * heap store, a
 * value must not be mutated after it is handed to {@code update}.
 */
package io.ringflow.state.chronicle;
