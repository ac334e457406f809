/**
 * The backend-independent keyed snapshot format ({@link io.ringflow.state.snapshot.KeyedSnapshotFormat}): entries of
 * (state index, key bytes, optional sub-key bytes, value bytes), grouped by key group, with a header of
 * {@link io.ringflow.state.snapshot.StateMeta} per state.
 *
 * <p>What the value bytes hold depends on the state's {@link io.ringflow.state.keyed.StateKind}: the codec's bytes
 * of the value (VALUE, REDUCING, a MAP entry's map value) or accumulator (AGGREGATING), or a whole list in
 * {@link io.ringflow.state.snapshot.ListCodec}'s format (LIST). When the state was declared with a time-to-live
 * ({@link io.ringflow.state.snapshot.StateMeta#timeToLive()}, format version 2), each value starts with the 8-byte
 * timestamp of {@link io.ringflow.state.snapshot.TtlValues}, so a restore keeps every entry's expiry; entries expired
 * at the barrier are not written. Both keyed backends store their values in exactly these bytes (the Chronicle
 * backend keeps a MAP state's entries of one key together in one stored value, and splits them into one snapshot entry
 * per user key when it writes a snapshot), which is why a snapshot of either restores into the other.
 */
package io.ringflow.state.snapshot;
