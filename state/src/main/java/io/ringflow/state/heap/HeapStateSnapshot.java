package io.ringflow.state.heap;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.codec.LongCodec;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.KeyGroups;
import io.ringflow.state.keyed.StateDescriptor;
import io.ringflow.state.keyed.StateKind;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.snapshot.KeyedSnapshotWriter;
import io.ringflow.state.snapshot.KeyedStateSnapshot;
import io.ringflow.state.snapshot.ListCodec;
import io.ringflow.state.snapshot.StateCompatibility;
import io.ringflow.state.snapshot.StateMeta;
import io.ringflow.state.snapshot.TtlValues;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The asynchronous part of a heap store snapshot: encodes the frozen copies by key group, with the time-to-live
 * prefix where the state has one, and carries restored states not declared yet unchanged.
 *
 * <p>Thread contract: created on the task thread; {@link #writeTo} runs on a flusher and touches nothing the task
 * thread changes (codec registries are thread-safe).
 */
final class HeapStateSnapshot implements KeyedStateSnapshot
{
    /** The encoded accumulators of a frozen aggregating state, written as they are. */
    private static final Codec<Object> PRE_ENCODED = new Codec<>()
    {
        @Override
        public Class<Object> type()
        {
            return Object.class;
        }

        @Override
        public int encode(final Object value, final CodecBuffer buffer, final int offset)
        {
            final byte[] bytes = (byte[])value;
            buffer.putBytes(offset, bytes, 0, bytes.length);
            return bytes.length;
        }

        @Override
        public Object decode(final CodecBuffer buffer, final int offset, final int length)
        {
            throw new UnsupportedOperationException("only encodes");
        }
    };

    /**
     * The entries on their way into the snapshot file, in parallel arrays (no object per entry): decoded objects of a
     * frozen state, or raw bytes of a carried one. Sorted by key group with a counting sort: the flusher's cost per
     * entry is a hash, two array writes and the encoding.
     */
    private static final class EntryTable
    {
        int size;
        int[] keyGroups = new int[1024];
        int[] states = new int[1024];
        Object[] keys = new Object[1024];
        Object[] userKeys = new Object[1024];
        Object[] values = new Object[1024];
        long[] timestamps = new long[1024];
        /** Per entry, the raw key, user key and value of a carried state, or null. */
        byte[][][] raw = new byte[1024][][];

        void add(final int keyGroup, final int state, final Object key, final Object userKey, final Object value,
            final long timestamp, final byte[][] rawEntry)
        {
            if (size == keyGroups.length)
            {
                final int capacity = size * 2;
                keyGroups = java.util.Arrays.copyOf(keyGroups, capacity);
                states = java.util.Arrays.copyOf(states, capacity);
                keys = java.util.Arrays.copyOf(keys, capacity);
                userKeys = java.util.Arrays.copyOf(userKeys, capacity);
                values = java.util.Arrays.copyOf(values, capacity);
                timestamps = java.util.Arrays.copyOf(timestamps, capacity);
                raw = java.util.Arrays.copyOf(raw, capacity);
            }
            keyGroups[size] = keyGroup;
            states[size] = state;
            keys[size] = key;
            userKeys[size] = userKey;
            values[size] = value;
            timestamps[size] = timestamp;
            raw[size] = rawEntry;
            size++;
        }

        /**
         * @param range the key groups the entries fall in.
         * @return entry indexes ordered by key group, stable within a group (a counting sort).
         */
        int[] orderByKeyGroup(final KeyGroupRange range)
        {
            final int[] starts = new int[range.size() + 1];
            for (int i = 0; i < size; i++)
            {
                starts[keyGroups[i] - range.start() + 1]++;
            }
            for (int g = 1; g < starts.length; g++)
            {
                starts[g] += starts[g - 1];
            }
            final int[] order = new int[size];
            for (int i = 0; i < size; i++)
            {
                order[starts[keyGroups[i] - range.start()]++] = i;
            }
            return order;
        }
    }

    /**
     * The unboxed entries of one {@code ValueState<Long>}, sorted by key group with a counting sort (one pass to
     * count, one to scatter), so the writer reads them sequentially.
     */
    private static final class SortedLongs
    {
        final int stateIndex;
        final long[] keys;
        final long[] values;
        /** Per key group of the range, where its entries start; one more at the end. */
        private final int[] starts;
        private final int firstGroup;

        private SortedLongs(final int stateIndex, final int size, final KeyGroupRange range)
        {
            this.stateIndex = stateIndex;
            this.keys = new long[size];
            this.values = new long[size];
            this.starts = new int[range.size() + 1];
            this.firstGroup = range.start();
        }

        static SortedLongs of(final int stateIndex, final org.agrona.collections.Long2LongHashMap map,
            final KeyGroupRange range, final int maxParallelism)
        {
            final SortedLongs sorted = new SortedLongs(stateIndex, map.size(), range);
            final int[] groupOf = new int[map.size()];
            final int[] next = {0};
            map.forEachLong((key, value) ->
            {
                final int keyGroup = KeyGroups.keyGroupOfHash(Long.hashCode(key), maxParallelism);
                if (!range.contains(keyGroup))
                {
                    throw new IllegalStateException("key " + key + " of key group " + keyGroup + " is outside " +
                        "this subtask's " + range);
                }
                groupOf[next[0]++] = keyGroup - range.start();
                sorted.starts[keyGroup - range.start() + 1]++;
            });
            for (int g = 1; g < sorted.starts.length; g++)
            {
                sorted.starts[g] += sorted.starts[g - 1];
            }
            final int[] fill = java.util.Arrays.copyOf(sorted.starts, sorted.starts.length - 1);
            next[0] = 0;
            map.forEachLong((key, value) ->
            {
                final int at = fill[groupOf[next[0]++]]++;
                sorted.keys[at] = key;
                sorted.values[at] = value;
            });
            return sorted;
        }

        int from(final int keyGroup)
        {
            return starts[keyGroup - firstGroup];
        }

        int count(final int keyGroup)
        {
            return starts[keyGroup - firstGroup + 1] - starts[keyGroup - firstGroup];
        }
    }

    private final CodecRegistry codecs;
    private final int maxParallelism;
    private final KeyGroupRange keyGroups;
    private List<HeapFrozenState> frozen;
    private List<HeapRestoredState> carried;

    HeapStateSnapshot(final CodecRegistry codecs, final int maxParallelism, final KeyGroupRange keyGroups,
        final List<HeapFrozenState> frozen, final List<HeapRestoredState> carried)
    {
        this.codecs = codecs;
        this.maxParallelism = maxParallelism;
        this.keyGroups = keyGroups;
        this.frozen = frozen;
        this.carried = carried;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void writeTo(final OutputStream out) throws IOException
    {
        final EntryTable entries = new EntryTable();
        final List<SortedLongs> primitives = new ArrayList<>();
        final Class<?>[] keyClass = new Class<?>[1];
        for (int i = 0; i < frozen.size(); i++)
        {
            final int stateIndex = i;
            final String stateName = frozen.get(i).descriptor.name();
            final org.agrona.collections.Long2LongHashMap longs = frozen.get(i).primitiveLongs();
            if (longs != null && !longs.isEmpty())
            {
                if (keyClass[0] != null && keyClass[0] != Long.class)
                {
                    throw new IllegalStateException("state '" + stateName + "' holds keys of types " +
                        keyClass[0].getName() + " and java.lang.Long: a keyed operator's keys must all have one " +
                        "type to be snapshotted");
                }
                keyClass[0] = Long.class;
                primitives.add(SortedLongs.of(stateIndex, longs, keyGroups, maxParallelism));
            }
            frozen.get(i).forEach((key, userKey, value, timestamp) ->
            {
                if (keyClass[0] == null)
                {
                    keyClass[0] = key.getClass();
                }
                else if (keyClass[0] != key.getClass())
                {
                    throw new IllegalStateException("state '" + stateName + "' holds keys of types " +
                        keyClass[0].getName() + " and " + key.getClass().getName() +
                        ": a keyed operator's keys must all have one type to be snapshotted");
                }
                final int keyGroup = KeyGroups.keyGroupOf(key, maxParallelism);
                if (!keyGroups.contains(keyGroup))
                {
                    throw new IllegalStateException("state '" + stateName + "' holds key " + key + " of key group " +
                        keyGroup + ", outside this subtask's " + keyGroups);
                }
                entries.add(keyGroup, stateIndex, key, userKey, value, timestamp, null);
            });
        }
        final Codec<Object> keyCodec = keyClass[0] == null ? null : (Codec<Object>)codecs.codecFor(keyClass[0]);
        final List<StateMeta> metas = new ArrayList<>();
        final List<Codec<Object>> valueEncoders = new ArrayList<>();
        final List<Codec<Object>> userKeyEncoders = new ArrayList<>();
        for (final HeapFrozenState state : frozen)
        {
            final StateDescriptor descriptor = state.descriptor;
            final Codec<Object> valueCodec = (Codec<Object>)codecs.codecFor(descriptor.valueType());
            final Codec<Object> userKeyCodec = descriptor.kind() == StateKind.MAP ?
                (Codec<Object>)codecs.codecFor(descriptor.userKeyType()) : null;
            metas.add(StateCompatibility.meta(descriptor, state.ttl, keyClass[0], keyCodec, valueCodec,
                userKeyCodec));
            userKeyEncoders.add(userKeyCodec);
            switch (descriptor.kind())
            {
                case LIST -> valueEncoders.add((Codec<Object>)(Codec<?>)new ListCodec<>(valueCodec));
                case AGGREGATING -> valueEncoders.add(PRE_ENCODED);
                default -> valueEncoders.add(valueCodec);
            }
        }
        for (final HeapRestoredState state : carried)
        {
            final int stateIndex = metas.size();
            metas.add(state.meta);
            state.forEachRaw((keyGroup, key, userKey, value) -> entries.add(
                keyGroup, stateIndex, null, null, null, 0, new byte[][] {key, userKey, value}));
        }
        final int[] order = entries.orderByKeyGroup(keyGroups);
        // unboxed longs are written in the built-in Long format; a user codec registered for Long gets boxed values
        final boolean builtInLongs = codecs.codecFor(Long.class) == LongCodec.INSTANCE;
        final KeyedSnapshotWriter writer = new KeyedSnapshotWriter(out, maxParallelism, keyGroups, metas);
        final CodecBuffer keyBuffer = CodecBuffer.growable(64);
        final CodecBuffer userKeyBuffer = CodecBuffer.growable(64);
        final CodecBuffer valueBuffer = CodecBuffer.growable(256);
        int start = 0;
        for (int keyGroup = keyGroups.start(); keyGroup <= keyGroups.end(); keyGroup++)
        {
            int end = start;
            while (end < order.length && entries.keyGroups[order[end]] == keyGroup)
            {
                end++;
            }
            int total = end - start;
            for (final SortedLongs longs : primitives)
            {
                total += longs.count(keyGroup);
            }
            if (total == 0)
            {
                continue;
            }
            writer.startKeyGroup(keyGroup, total);
            for (final SortedLongs longs : primitives)
            {
                // a ValueState<Long> without time-to-live, read in key-group order from its sorted arrays
                for (int at = longs.from(keyGroup), until = at + longs.count(keyGroup); at < until; at++)
                {
                    final int keyLength = builtInLongs ? LongCodec.write(keyBuffer, 0, longs.keys[at]) :
                        HeapKeyedStateStore.encode(keyCodec, longs.keys[at], keyBuffer, 0);
                    final int valueLength = builtInLongs ? LongCodec.write(valueBuffer, 0, longs.values[at]) :
                        HeapKeyedStateStore.encode(valueEncoders.get(longs.stateIndex), longs.values[at],
                            valueBuffer, 0);
                    writer.entry(longs.stateIndex, keyBuffer, 0, keyLength, null, 0, 0, valueBuffer, 0,
                        valueLength);
                }
            }
            for (int e = start; e < end; e++)
            {
                final int entry = order[e];
                final int stateIndex = entries.states[entry];
                final byte[][] rawEntry = entries.raw[entry];
                if (rawEntry != null)
                {
                    final byte[] userKey = rawEntry[1];
                    writer.entry(stateIndex, CodecBuffer.wrap(rawEntry[0]), 0, rawEntry[0].length,
                        userKey == null ? null : CodecBuffer.wrap(userKey), 0, userKey == null ? 0 : userKey.length,
                        CodecBuffer.wrap(rawEntry[2]), 0, rawEntry[2].length);
                    continue;
                }
                final int keyLength = HeapKeyedStateStore.encode(keyCodec, entries.keys[entry], keyBuffer, 0);
                final Codec<Object> userKeyCodec = userKeyEncoders.get(stateIndex);
                final int userKeyLength = userKeyCodec == null ? 0 :
                    HeapKeyedStateStore.encode(userKeyCodec, entries.userKeys[entry], userKeyBuffer, 0);
                final boolean ttl = metas.get(stateIndex).timeToLive();
                final int prefix = ttl ? TtlValues.PREFIX_LENGTH : 0;
                final int valueLength = prefix + HeapKeyedStateStore.encode(valueEncoders.get(stateIndex),
                    entries.values[entry], valueBuffer, prefix);
                if (ttl)
                {
                    TtlValues.putTimestamp(valueBuffer, 0, entries.timestamps[entry]);
                }
                writer.entry(stateIndex, keyBuffer, 0, keyLength,
                    userKeyCodec == null ? null : userKeyBuffer, 0, userKeyLength, valueBuffer, 0, valueLength);
            }
            start = end;
        }
        writer.finish();
    }

    @Override
    public void release()
    {
        frozen = List.of();
        carried = List.of();
    }
}
