package io.ringflow.state.snapshot;

import io.ringflow.state.checkpoint.CorruptCheckpointException;
import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.StateKind;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Merges the keyed state chain of one subtask, a full snapshot followed by the deltas of incremental checkpoints
 * (oldest first), or a round of deltas that together rewrote the whole state (their full snapshot dropped,
 * {@link io.ringflow.state.backend.KeyedStateStore#incrementalSnapshot(long, long, int)}), into one full snapshot, which any keyed state store restores: stores never see a delta, so every
 * backend restores incremental checkpoints, whichever backend wrote them.
 *
 * <p>The merge goes one key group at a time (a merged reader merges each key group as it is read), with the result of
 * applying the chain's entries in order: an entry sets its (state, key, user key), a tombstone removes the (state, key)
 * with all of its user keys. Memory: the deltas' entries of one key group, as heap objects; the full snapshot's
 * entries are handed on in place, from the buffer its reader loaded. States are matched by name; a chain is written by
 * one run of one subtask, so its states are described the same way in every file that has them, and descriptions that
 * differ are refused, naming the state.
 *
 * <p>Thread contract: none; a pure function of its inputs.
 */
public final class KeyedSnapshotChain
{
    private KeyedSnapshotChain()
    {
    }

    /**
     * @param chain  a full snapshot then its deltas, oldest first, all of one subtask (same key groups).
     * @param wanted the key groups to keep; the others are skipped unread.
     * @return the chain's state as one full snapshot, restricted to {@code wanted}; the full snapshot itself when the
     *     chain has no delta. A merged reader merges each key group when it is read (memory: the deltas'
     *     entries of one key group), and owns the chain's readers: closing it closes them. Its {@link KeyedSnapshotReader#keyGroups}
     *     may name a key group whose every entry a delta removed (reading it visits nothing).
     * @throws CorruptCheckpointException when the chain holds a full snapshot after its first file, or its files
     *                                    disagree on key groups, max parallelism or states.
     */
    public static KeyedSnapshotReader merge(final List<KeyedSnapshotReader> chain, final KeyGroupRange wanted)
    {
        final KeyedSnapshotReader base = fullBase(chain);
        if (chain.size() == 1 && !base.isDelta())
        {
            return base;
        }
        final Plan plan = plan(chain, wanted);
        return mergedReader(base.file() + " (with " + (chain.size() - 1) + " incremental part(s), last " +
            chain.get(chain.size() - 1).file() + ")", List.copyOf(chain), plan, true);
    }

    /**
     * @param file       the merged reader's name, for messages.
     * @param chain      the chain, its full snapshot first.
     * @param plan       its plan.
     * @param ownsChain  whether closing the merged reader closes the chain's readers.
     * @return a reader that merges each key group of {@code chain} when it is read.
     */
    private static KeyedSnapshotReader mergedReader(final String file, final List<KeyedSnapshotReader> chain,
        final Plan plan, final boolean ownsChain)
    {
        final KeyedSnapshotReader base = chain.get(0);
        final GroupMerge merge = new GroupMerge(plan.states());
        return new KeyedSnapshotReader(file, base.maxParallelism(), base.range(), plan.states(), plan.groups(),
            new KeyedSnapshotReader.MergedGroups()
            {
                @Override
                public void readGroup(final int keyGroup, final KeyedSnapshotReader.EntryVisitor visitor)
                {
                    // a chain of deltas only (a round of rewritten slices) merges every file as a delta
                    final boolean deltasOnly = base.isDelta();
                    merge.read(chain, plan.remap(), keyGroup, deltasOnly ? 0 : 1);
                    merge.visit(keyGroup, deltasOnly ? null : base, plan.remap()[0], visitor);
                }

                @Override
                public void skipUnwanted(final KeyedSnapshotReader.KeyFilter filter)
                {
                    merge.filter = filter;
                }

                @Override
                public void close() throws IOException
                {
                    if (ownsChain)
                    {
                        closeAll(chain);
                    }
                }
            });
    }

    private static void closeAll(final List<KeyedSnapshotReader> files) throws IOException
    {
        IOException failed = null;
        for (final KeyedSnapshotReader file : files)
        {
            try
            {
                file.close();
            }
            catch (final IOException ex)
            {
                if (failed == null)
                {
                    failed = ex;
                }
                else
                {
                    failed.addSuppressed(ex);
                }
            }
        }
        if (failed != null)
        {
            throw failed;
        }
    }

    /**
     * {@link #merge}, as the bytes of a full snapshot (held whole: for tools and tests).
     *
     * @param chain  a full snapshot then its deltas, oldest first, all of one subtask (same key groups).
     * @param wanted the key groups to keep; the others are skipped unread.
     * @return the chain's state as the bytes of one full snapshot, restricted to {@code wanted}.
     * @throws CorruptCheckpointException as {@link #merge} does.
     */
    public static byte[] mergeToBytes(final List<KeyedSnapshotReader> chain, final KeyGroupRange wanted)
    {
        final KeyedSnapshotReader base = fullBase(chain);
        final Plan plan = plan(chain, wanted);
        // the chain's readers stay the caller's
        final KeyedSnapshotReader merged = mergedReader(base.file(), chain, plan, false);
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        try
        {
            final KeyedSnapshotWriter writer = new KeyedSnapshotWriter(out, base.maxParallelism(), base.range(),
                plan.states());
            final int[] count = new int[1];
            for (final int group : plan.groups())
            {
                // the writer wants a key group's count first: merged once to count, once to write
                count[0] = 0;
                merged.readGroup(group, (g, state, bytes, ko, kl, so, sl, vo, vl) -> count[0]++);
                if (count[0] == 0)
                {
                    continue;
                }
                writer.startKeyGroup(group, count[0]);
                merged.readGroup(group, (g, state, bytes, keyOffset, keyLength, subKeyOffset, subKeyLength,
                    valueOffset, valueLength) ->
                {
                    try
                    {
                        writer.entry(state, bytes, keyOffset, keyLength, subKeyLength < 0 ? null : bytes,
                            subKeyOffset, Math.max(0, subKeyLength), bytes, valueOffset, valueLength);
                    }
                    catch (final IOException impossible)
                    {
                        throw new UncheckedIOException("writing to memory failed", impossible);
                    }
                });
            }
            writer.finish();
        }
        catch (final IOException impossible)
        {
            throw new UncheckedIOException("writing to memory failed", impossible);
        }
        return out.toByteArray();
    }

    /**
     * What a merge of a chain needs before it reads any entry.
     *
     * @param states the merged states, by name, in the order they first appear in the chain.
     * @param remap  per file of the chain, per state index of the file, the merged state's index.
     * @param groups the key groups in {@code wanted} that some file of the chain holds, ascending.
     */
    private record Plan(List<StateMeta> states, int[][] remap, int[] groups)
    {
    }

    private static Plan plan(final List<KeyedSnapshotReader> chain, final KeyGroupRange wanted)
    {
        final KeyedSnapshotReader base = fullBase(chain);
        final List<StateMeta> states = new ArrayList<>();
        final Map<String, Integer> stateIndexes = new HashMap<>();
        final int[][] remap = new int[chain.size()][];
        final TreeSet<Integer> groups = new TreeSet<>();
        for (int f = 0; f < chain.size(); f++)
        {
            final KeyedSnapshotReader file = chain.get(f);
            checkLink(base, file, f);
            final List<StateMeta> metas = file.states();
            remap[f] = new int[metas.size()];
            for (int i = 0; i < metas.size(); i++)
            {
                final StateMeta meta = metas.get(i);
                final Integer known = stateIndexes.get(meta.name());
                if (known == null)
                {
                    stateIndexes.put(meta.name(), states.size());
                    remap[f][i] = states.size();
                    states.add(meta);
                    continue;
                }
                if (!states.get(known).equals(meta))
                {
                    throw new CorruptCheckpointException(file.file(), "state '" + meta.name() + "' is described as " +
                        meta + ", an earlier file of its chain says " + states.get(known));
                }
                remap[f][i] = known;
            }
            for (final int group : file.keyGroups())
            {
                if (wanted.contains(group))
                {
                    groups.add(group);
                }
            }
        }
        return new Plan(states, remap, groups.stream().mapToInt(Integer::intValue).toArray());
    }

    /**
     * @return the chain's first file: a full snapshot, or a delta when the chain is a round of deltas that rewrote
     *     every slice of the state (its full snapshot dropped; the checkpoint's metadata, checked by its checksum,
     *     vouches for that: a file does not say which round it belongs to).
     */
    private static KeyedSnapshotReader fullBase(final List<KeyedSnapshotReader> chain)
    {
        if (chain.isEmpty())
        {
            throw new IllegalArgumentException("a keyed state chain has at least its full snapshot");
        }
        return chain.get(0);
    }

    private static void checkLink(final KeyedSnapshotReader base, final KeyedSnapshotReader file, final int position)
    {
        if (position > 0 && !file.isDelta())
        {
            throw new CorruptCheckpointException(file.file(), "a full snapshot at position " + position + " of a " +
                "keyed state chain, where only deltas may follow the first");
        }
        if (file.maxParallelism() != base.maxParallelism() || !file.range().equals(base.range()))
        {
            throw new CorruptCheckpointException(file.file(), "its key groups " + file.range() + " of " +
                file.maxParallelism() + " differ from those of its chain's full snapshot " + base.file() + " (" +
                base.range() + " of " + base.maxParallelism() + ")");
        }
    }

    /**
     * Merges one key group of a chain. The deltas' entries are merged first, in order: those of states without user
     * keys into {@link MergedValues} (one byte array and a table, no object per entry), those of map states into heap
     * objects; the full snapshot's entries, nearly all of the group, are then handed on in place unless a delta
     * replaced or removed them, and the deltas' merged entries come last. So a key group costs one pass over the
     * base's bytes plus the deltas' entries, copied once.
     *
     * <p>The merged entries of a key come out together except for a map state's key that both the base and a delta
     * hold: its base user keys (those no delta replaced) come with the base, the deltas' ones at the end. Every
     * restore takes a map state's entries one by one, in any order.
     */
    private static final class GroupMerge implements KeyedSnapshotReader.EntryVisitor
    {
        /** No user key: the one value of a value, list, reducing or aggregating state's key. */
        private static final ByteBuffer NO_USER_KEY = ByteBuffer.allocate(0);
        /** Bits of the hashes of the keys the deltas touched, per key group: most base keys are told apart by it. */
        private static final int TOUCHED_BITS = 1 << 16;

        /** The merged states. */
        private final List<StateMeta> states;
        /** By merged state index: whether it is a map state, whose entries have user keys. */
        private final boolean[] mapStates;
        /** The states without user keys: per (state, key) the deltas' last value, or that they removed it. */
        private final MergedValues values = new MergedValues();
        /**
         * Map states only: per (merged state index, key) a delta set since the last tombstone of the key, in insertion
         * order: a {@code LinkedHashMap<ByteBuffer, byte[]>} from user key to value (or a {@code byte[]}, a value
         * without a user key, which map states do not write).
         */
        private final LinkedHashMap<StateKey, Object> entries = new LinkedHashMap<>();
        /** Map states only: the (state, key)s a delta removed (a tombstone), whose base entries are dropped. */
        private final HashSet<StateKey> cleared = new HashSet<>();
        /**
         * {@link #TOUCHED_BITS} bits: set at a hash of a key in {@link #values}, {@link #entries} or {@link #cleared}.
         */
        private final long[] touched = new long[TOUCHED_BITS / Long.SIZE];
        private final ProbeKey probe = new ProbeKey();
        /** The deltas' merged entries are handed over from here, one at a time. */
        private byte[] scratch = new byte[256];
        private CodecBuffer scratchBuffer = CodecBuffer.wrap(scratch);
        private boolean touchedAny;
        int[] fileStates;
        /** The delta being read, for messages. */
        private String currentFile;
        /** The keys to merge, asked by merged state index; null for all. */
        KeyedSnapshotReader.KeyFilter filter;

        /** @param states the merged states. */
        GroupMerge(final List<StateMeta> states)
        {
            this.states = states;
            mapStates = new boolean[states.size()];
            for (int i = 0; i < mapStates.length; i++)
            {
                mapStates[i] = states.get(i).kind() == StateKind.MAP;
            }
        }

        /**
         * Forgets the last key group, then merges {@code group} of every delta of {@code chain}, in order, from
         * {@code firstDelta} (1 after a full snapshot, 0 for a chain of deltas only).
         */
        void read(final List<KeyedSnapshotReader> chain, final int[][] remap, final int group, final int firstDelta)
        {
            entries.clear();
            cleared.clear();
            values.clear();
            if (touchedAny)
            {
                Arrays.fill(touched, 0L);
                touchedAny = false;
            }
            for (int f = firstDelta; f < chain.size(); f++)
            {
                fileStates = remap[f];
                currentFile = chain.get(f).file();
                chain.get(f).readGroup(group, this);
            }
        }

        @Override
        public void entry(final int keyGroup, final int stateIndex, final CodecBuffer bytes, final int keyOffset,
            final int keyLength, final int subKeyOffset, final int subKeyLength, final int valueOffset,
            final int valueLength)
        {
            final int state = fileStates[stateIndex];
            if (filter != null && !filter.wants(keyGroup, state, bytes, keyOffset, keyLength))
            {
                // every entry of the key is dropped, tombstones too: the merge of the keys kept is unchanged
                return;
            }
            if (!mapStates[state])
            {
                if (subKeyLength >= 0)
                {
                    throw new CorruptCheckpointException(currentFile, "an entry of state '" + states.get(state).name() +
                        "', a " + states.get(state).kind() + " state, has a user key: only map states have them");
                }
                probe.set(state, bytes, keyOffset, keyLength);
                markTouched(probe.hashCode());
                values.put(state, probe.hashCode(), bytes, keyOffset, keyLength, valueOffset, valueLength);
                return;
            }
            final StateKey key = new StateKey(state, copy(bytes, keyOffset, keyLength));
            markTouched(key.hashCode());
            if (valueLength == KeyedSnapshotFormat.TOMBSTONE)
            {
                entries.remove(key);
                cleared.add(key);
                return;
            }
            final byte[] value = copy(bytes, valueOffset, valueLength);
            if (subKeyLength < 0)
            {
                final Object held = entries.get(key);
                if (held instanceof LinkedHashMap<?, ?>)
                {
                    userKeyed(held).put(NO_USER_KEY, value);
                }
                else
                {
                    entries.put(key, value);
                }
                return;
            }
            final ByteBuffer userKey = ByteBuffer.wrap(copy(bytes, subKeyOffset, subKeyLength));
            final Object held = entries.get(key);
            final LinkedHashMap<ByteBuffer, byte[]> values;
            if (held instanceof LinkedHashMap<?, ?>)
            {
                values = userKeyed(held);
            }
            else
            {
                values = new LinkedHashMap<>();
                if (held != null)
                {
                    values.put(NO_USER_KEY, (byte[])held);
                }
                entries.put(key, values);
            }
            values.put(userKey, value);
        }

        private void markTouched(final int hash)
        {
            final int bit = MergedValues.spread(hash) & (TOUCHED_BITS - 1);
            touched[bit >>> 6] |= 1L << bit;
            touchedAny = true;
        }

        private boolean mayBeTouched(final int hash)
        {
            final int bit = MergedValues.spread(hash) & (TOUCHED_BITS - 1);
            return (touched[bit >>> 6] & 1L << bit) != 0;
        }

        @SuppressWarnings("unchecked")
        private static LinkedHashMap<ByteBuffer, byte[]> userKeyed(final Object held)
        {
            return (LinkedHashMap<ByteBuffer, byte[]>)held;
        }

        /** Receives the merged entries of a key group in order; {@code userKey} is {@link #NO_USER_KEY} for none. */
        private interface MergedEntry
        {
            void accept(StateKey key, ByteBuffer userKey, byte[] value) throws IOException;
        }

        private void forEach(final MergedEntry visitor) throws IOException
        {
            for (final Map.Entry<StateKey, Object> entry : entries.entrySet())
            {
                if (entry.getValue() instanceof byte[] value)
                {
                    visitor.accept(entry.getKey(), NO_USER_KEY, value);
                }
                else
                {
                    for (final Map.Entry<ByteBuffer, byte[]> value : userKeyed(entry.getValue()).entrySet())
                    {
                        visitor.accept(entry.getKey(), value.getKey(), value.getValue());
                    }
                }
            }
        }

        /**
         * Hands the merged key group to {@code visitor}: the base's entries that no delta replaced or removed, in
         * place in the base's buffer, then the deltas' merged entries: those without user keys in place in
         * {@link MergedValues}' array, a map state's each copied into a scratch buffer.
         *
         * @param base       the chain's full snapshot, or null for a chain of deltas only.
         * @param baseStates per state index of the base, the merged state's index.
         */
        void visit(final int group, final KeyedSnapshotReader base, final int[] baseStates,
            final KeyedSnapshotReader.EntryVisitor visitor)
        {
            if (base != null)
            {
                visitBase(group, base, baseStates, visitor);
            }
            visitMerged(group, visitor);
        }

        /** The base's entries that no delta replaced or removed, in place. */
        private void visitBase(final int group, final KeyedSnapshotReader base, final int[] baseStates,
            final KeyedSnapshotReader.EntryVisitor visitor)
        {
            base.readGroup(group, (keyGroup, stateIndex, bytes, keyOffset, keyLength, subKeyOffset, subKeyLength,
                valueOffset, valueLength) ->
            {
                final int state = baseStates[stateIndex];
                if (filter != null && !filter.wants(keyGroup, state, bytes, keyOffset, keyLength) ||
                    touchedAny && replacedByDelta(state, bytes, keyOffset, keyLength, subKeyOffset, subKeyLength))
                {
                    return;
                }
                visitor.entry(keyGroup, state, bytes, keyOffset, keyLength, subKeyOffset, subKeyLength, valueOffset,
                    valueLength);
            });
        }

        /** The deltas' merged entries. */
        private void visitMerged(final int group, final KeyedSnapshotReader.EntryVisitor visitor)
        {
            values.forEach((state, buffer, keyOffset, keyLength, valueOffset, valueLength) ->
                visitor.entry(group, state, buffer, keyOffset, keyLength, keyOffset + keyLength, -1, valueOffset,
                    valueLength));
            try
            {
                forEach((key, userKey, value) ->
                {
                    final int keyLength = key.key().length;
                    final int userKeyLength = userKey.capacity();
                    final int length = keyLength + userKeyLength + value.length;
                    if (scratch.length < length)
                    {
                        scratch = new byte[Math.max(length, 2 * scratch.length)];
                        scratchBuffer = CodecBuffer.wrap(scratch);
                    }
                    System.arraycopy(key.key(), 0, scratch, 0, keyLength);
                    System.arraycopy(userKey.array(), 0, scratch, keyLength, userKeyLength);
                    System.arraycopy(value, 0, scratch, keyLength + userKeyLength, value.length);
                    visitor.entry(group, key.state(), scratchBuffer, 0, keyLength, keyLength,
                        userKey == NO_USER_KEY ? -1 : userKeyLength, keyLength + userKeyLength, value.length);
                });
            }
            catch (final IOException impossible)
            {
                throw new UncheckedIOException("a merged entry's visitor cannot throw IOException", impossible);
            }
        }

        /**
         * @return whether a delta replaced or removed the base's entry (state, key, user key): the key was removed,
         *     or a delta set the same user key (or, without one, the key's value).
         */
        private boolean replacedByDelta(final int state, final CodecBuffer bytes, final int keyOffset,
            final int keyLength, final int subKeyOffset, final int subKeyLength)
        {
            probe.set(state, bytes, keyOffset, keyLength);
            if (!mayBeTouched(probe.hashCode()))
            {
                return false;
            }
            if (!mapStates[state])
            {
                return values.contains(state, probe.hashCode(), probe.key, probe.length);
            }
            final Object held = entries.get(probe);
            if (held == null)
            {
                return !cleared.isEmpty() && cleared.contains(probe);
            }
            if (cleared.contains(probe))
            {
                return true;
            }
            if (held instanceof byte[])
            {
                return subKeyLength < 0;
            }
            final ByteBuffer userKey = subKeyLength < 0 ? NO_USER_KEY :
                ByteBuffer.wrap(bytes.toByteArray(subKeyOffset, subKeyLength));
            return userKeyed(held).containsKey(userKey);
        }

        private static byte[] copy(final CodecBuffer bytes, final int offset, final int length)
        {
            return bytes.toByteArray(offset, length);
        }
    }

    /**
     * A base entry's (state, key) looked up among the deltas' keys without a new object: equal to the
     * {@link StateKey} of the same content, with the same hash. Reused for every lookup of one merge.
     */
    private static final class ProbeKey
    {
        private int state;
        private byte[] key = new byte[64];
        private int length;
        private int hash;

        void set(final int state, final CodecBuffer bytes, final int offset, final int length)
        {
            if (key.length < length)
            {
                key = new byte[Math.max(length, 2 * key.length)];
            }
            bytes.getBytes(offset, key, 0, length);
            this.state = state;
            this.length = length;
            int h = 1;
            for (int i = 0; i < length; i++)
            {
                h = 31 * h + key[i];
            }
            this.hash = 31 * state + h;
        }

        @Override
        public int hashCode()
        {
            return hash;
        }

        @Override
        public boolean equals(final Object other)
        {
            return other instanceof StateKey that && hash == that.hashCode() && state == that.state() &&
                Arrays.equals(key, 0, length, that.key(), 0, that.key().length);
        }
    }

    /** A key of one state; keys compare by content. Its bytes are owned and never changed. */
    private static final class StateKey
    {
        private final int state;
        private final byte[] key;
        private final int hash;

        StateKey(final int state, final byte[] key)
        {
            this.state = state;
            this.key = key;
            this.hash = 31 * state + Arrays.hashCode(key);
        }

        int state()
        {
            return state;
        }

        byte[] key()
        {
            return key;
        }

        @Override
        public int hashCode()
        {
            return hash;
        }

        @Override
        public boolean equals(final Object other)
        {
            return other instanceof StateKey that && hash == that.hash && state == that.state &&
                Arrays.equals(key, that.key);
        }
    }
}
