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
 */
package io.ringflow.state.chronicle;
