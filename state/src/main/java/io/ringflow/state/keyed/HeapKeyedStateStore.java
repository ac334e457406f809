package io.ringflow.state.keyed;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.snapshot.KeyedSnapshotReader;
import io.ringflow.state.snapshot.KeyedSnapshotWriter;
import io.ringflow.state.snapshot.KeyedStateSnapshot;
import io.ringflow.state.snapshot.StateKind;
import io.ringflow.state.snapshot.StateMeta;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The on-heap reference store: one hash map per declared state. Simple and obviously right; the off-heap Chronicle
 * Map store must agree with it.
 *
 * <p>Snapshots: the synchronous part copies each state's map (for {@code long} keys and values, one array copy), so
 * it is O(number of entries); the copy is encoded and written by the flusher. Values are not copied deeply: a value
 * object handed to {@link ValueState#update} must not be mutated afterwards (records and boxed primitives cannot be).
 *
 * <p>Thread contract: confined to one task thread, like every {@link KeyedStateStore}, except the snapshots it
 * returns, which are written by a flusher.
 */
public final class HeapKeyedStateStore implements KeyedStateStore
{
    private final CodecRegistry codecs;
    private final int maxParallelism;
    private final KeyGroupRange keyGroups;
    private final Map<String, HeapState<?>> states = new LinkedHashMap<>();
    /** Restored entries of states not declared yet, by state name; decoded when the state is declared. */
    private final Map<String, RestoredState> restored = new HashMap<>();
    private Object currentKey;

    /** A store for every key group of the default maximum parallelism, with the built-in codecs. */
    public HeapKeyedStateStore()
    {
        this(CodecRegistry.withBuiltIns(), KeyGroups.DEFAULT_MAX_PARALLELISM,
            new KeyGroupRange(0, KeyGroups.DEFAULT_MAX_PARALLELISM - 1));
    }

    /**
     * @param codecs         codecs for keys and values in snapshots.
     * @param maxParallelism the job's number of key groups.
     * @param keyGroups      the key groups this store's subtask owns.
     */
    public HeapKeyedStateStore(final CodecRegistry codecs, final int maxParallelism, final KeyGroupRange keyGroups)
    {
        this.codecs = codecs;
        this.maxParallelism = maxParallelism;
        this.keyGroups = keyGroups;
    }

    @Override
    public void setCurrentKey(final Object key)
    {
        currentKey = key;
    }

    @Override
    public Object currentKey()
    {
        return currentKey;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> ValueState<T> getValueState(final ValueStateDescriptor<T> descriptor)
    {
        final HeapState<?> existing = states.get(descriptor.name());
        if (existing != null)
        {
            if (existing.descriptor.type() != descriptor.type())
            {
                throw new IllegalStateException("state '" + descriptor.name() + "' is already declared with type " +
                    existing.descriptor.type().getName() + "; cannot declare it again with type " +
                    descriptor.type().getName());
            }
            return (ValueState<T>)existing;
        }
        final HeapState<T> state = descriptor.type() == Long.class ?
            (HeapState<T>)new HeapLongValueState(this, (ValueStateDescriptor<Long>)descriptor) :
            new HeapValueState<>(this, descriptor);
        final RestoredState entries = restored.remove(descriptor.name());
        if (entries != null)
        {
            entries.decodeInto(state, codecs);
        }
        states.put(descriptor.name(), state);
        return state;
    }

    @Override
    public KeyedStateSnapshot snapshot(final long checkpointId)
    {
        final List<FrozenState> frozen = new ArrayList<>(states.size());
        for (final HeapState<?> state : states.values())
        {
            frozen.add(state.freeze());
        }
        // restored states never declared since are carried over unchanged, so a job that stops using a state for a
        // while does not lose it
        final List<RestoredState> carried = new ArrayList<>(restored.values());
        return new HeapSnapshot(frozen, carried);
    }

    @Override
    public void restore(final List<KeyedSnapshotReader> snapshots)
    {
        if (!states.isEmpty())
        {
            throw new IllegalStateException("restore must happen before any state is declared");
        }
        for (final KeyedSnapshotReader snapshot : snapshots)
        {
            if (snapshot.maxParallelism() != maxParallelism)
            {
                throw new IllegalStateException("the keyed snapshot was written with " + snapshot.maxParallelism() +
                    " key groups (max parallelism) and cannot be restored into a job with " + maxParallelism);
            }
            final List<StateMeta> metas = snapshot.states();
            snapshot.read(keyGroups, (keyGroup, stateIndex, bytes, keyOffset, keyLength, subKeyOffset, subKeyLength,
                valueOffset, valueLength) ->
            {
                final StateMeta meta = metas.get(stateIndex);
                final RestoredState state = restored.computeIfAbsent(meta.name(), name -> new RestoredState(meta));
                state.check(meta);
                state.add(keyGroup, copy(bytes, keyOffset, keyLength), copy(bytes, valueOffset, valueLength));
            });
        }
    }

    private static byte[] copy(final UnsafeBuffer bytes, final int offset, final int length)
    {
        final byte[] copy = new byte[length];
        bytes.getBytes(offset, copy);
        return copy;
    }

    @Override
    public long entryCount()
    {
        long count = 0;
        for (final HeapState<?> state : states.values())
        {
            count += state.size();
        }
        for (final RestoredState state : restored.values())
        {
            count += state.keys.size();
        }
        return count;
    }

    /** What every heap state shares: its declaration and the current key of its store. */
    private abstract static class HeapState<T> implements ValueState<T>
    {
        final HeapKeyedStateStore store;
        final ValueStateDescriptor<T> descriptor;

        HeapState(final HeapKeyedStateStore store, final ValueStateDescriptor<T> descriptor)
        {
            this.store = store;
            this.descriptor = descriptor;
        }

        abstract int size();

        /** @return a copy of the entries as they are now, which later changes do not affect. Task thread. */
        abstract FrozenState freeze();

        /** Puts a restored entry, outside the processing of any record. */
        abstract void putRestored(Object key, T value);

        final Object requireKey()
        {
            final Object key = store.currentKey;
            if (key == null)
            {
                throw new IllegalStateException("state '" + descriptor.name() +
                    "' used outside the processing of a keyed record: there is no current key");
            }
            return key;
        }
    }

    /**
     * Keys that are {@link Long}s, the common case, live in an open-addressing primitive map (no key objects, no
     * nodes: one cache-friendly probe per access); any other key type in a {@link HashMap}.
     */
    private static final class HeapValueState<T> extends HeapState<T>
    {
        private final Long2ObjectHashMap<T> longKeyed = new Long2ObjectHashMap<>();
        private final HashMap<Object, T> otherKeyed = new HashMap<>();

        HeapValueState(final HeapKeyedStateStore store, final ValueStateDescriptor<T> descriptor)
        {
            super(store, descriptor);
        }

        @Override
        public T value()
        {
            final Object key = requireKey();
            final T value = key instanceof Long ? longKeyed.get(((Long)key).longValue()) : otherKeyed.get(key);
            return value != null ? value : descriptor.defaultValue();
        }

        @Override
        public void update(final T value)
        {
            if (value == null)
            {
                clear();
                return;
            }
            final Object key = requireKey();
            if (key instanceof Long)
            {
                longKeyed.put(((Long)key).longValue(), value);
            }
            else
            {
                otherKeyed.put(key, value);
            }
        }

        @Override
        public void clear()
        {
            final Object key = requireKey();
            if (key instanceof Long)
            {
                longKeyed.remove(((Long)key).longValue());
            }
            else
            {
                otherKeyed.remove(key);
            }
        }

        @Override
        int size()
        {
            return longKeyed.size() + otherKeyed.size();
        }

        @Override
        FrozenState freeze()
        {
            final Long2ObjectHashMap<T> longCopy = new Long2ObjectHashMap<>();
            longCopy.putAll(longKeyed);
            final HashMap<Object, T> otherCopy = new HashMap<>(otherKeyed);
            return new FrozenState(descriptor)
            {
                @Override
                void forEach(final BiConsumer<Object, Object> action)
                {
                    longCopy.forEach(action::accept);
                    otherCopy.forEach(action);
                }

                @Override
                int size()
                {
                    return longCopy.size() + otherCopy.size();
                }
            };
        }

        @Override
        void putRestored(final Object key, final T value)
        {
            if (key instanceof Long)
            {
                longKeyed.put(((Long)key).longValue(), value);
            }
            else
            {
                otherKeyed.put(key, value);
            }
        }
    }

    /**
     * A {@code ValueState<Long>} keeps its values unboxed: {@code long} keys in a {@link Long2LongHashMap}, where one
     * probe yields the value with no object to follow. {@link Long#MIN_VALUE} marks an absent value in that map, so
     * the rare key whose value is exactly {@code Long.MIN_VALUE}, and every key that is not a {@code Long}, live in
     * the general {@link HeapValueState} beside it.
     */
    private static final class HeapLongValueState extends HeapState<Long>
    {
        private static final long ABSENT = Long.MIN_VALUE;

        private final Long2LongHashMap values = new Long2LongHashMap(ABSENT);
        private final HeapValueState<Long> others;

        HeapLongValueState(final HeapKeyedStateStore store, final ValueStateDescriptor<Long> descriptor)
        {
            super(store, descriptor);
            others = new HeapValueState<>(store, descriptor);
        }

        @Override
        public Long value()
        {
            final Object key = requireKey();
            if (key instanceof Long)
            {
                final long value = values.get(((Long)key).longValue());
                if (value != ABSENT)
                {
                    return value;
                }
            }
            return others.value();
        }

        @Override
        public void update(final Long value)
        {
            final Object key = requireKey();
            if (value == null || !(key instanceof Long) || value == ABSENT)
            {
                if (key instanceof Long)
                {
                    values.remove(((Long)key).longValue());
                }
                others.update(value);
                return;
            }
            values.put(((Long)key).longValue(), value.longValue());
            if (others.size() != 0)
            {
                others.clear();
            }
        }

        @Override
        public void clear()
        {
            final Object key = requireKey();
            if (key instanceof Long)
            {
                values.remove(((Long)key).longValue());
            }
            if (others.size() != 0)
            {
                others.clear();
            }
        }

        @Override
        int size()
        {
            return values.size() + others.size();
        }

        @Override
        FrozenState freeze()
        {
            final Long2LongHashMap valuesCopy = new Long2LongHashMap(values);
            final FrozenState othersCopy = others.freeze();
            return new FrozenState(descriptor)
            {
                @Override
                void forEach(final BiConsumer<Object, Object> action)
                {
                    valuesCopy.forEach(action::accept);
                    othersCopy.forEach(action);
                }

                @Override
                int size()
                {
                    return valuesCopy.size() + othersCopy.size();
                }
            };
        }

        @Override
        void putRestored(final Object key, final Long value)
        {
            if (key instanceof Long && value != ABSENT)
            {
                values.put(((Long)key).longValue(), value.longValue());
            }
            else
            {
                others.putRestored(key, value);
            }
        }
    }

    /** A state's entries at a barrier: never changed again, read by the flusher. */
    private abstract static class FrozenState
    {
        final ValueStateDescriptor<?> descriptor;

        FrozenState(final ValueStateDescriptor<?> descriptor)
        {
            this.descriptor = descriptor;
        }

        abstract void forEach(BiConsumer<Object, Object> action);

        abstract int size();
    }

    /** One entry on its way into a snapshot file. */
    private record PendingEntry(int keyGroup, int stateIndex, Object key, Object value, byte[] rawKey, byte[] rawValue)
    {
    }

    /**
     * The asynchronous part: encodes the frozen copies by key group. Runs on the flusher; touches nothing the task
     * thread changes.
     */
    private final class HeapSnapshot implements KeyedStateSnapshot
    {
        private List<FrozenState> frozen;
        private List<RestoredState> carried;

        HeapSnapshot(final List<FrozenState> frozen, final List<RestoredState> carried)
        {
            this.frozen = frozen;
            this.carried = carried;
        }

        @Override
        @SuppressWarnings("unchecked")
        public void writeTo(final OutputStream out) throws IOException
        {
            final List<PendingEntry> entries = new ArrayList<>();
            final Class<?>[] keyClass = new Class<?>[1];
            for (int i = 0; i < frozen.size(); i++)
            {
                final int stateIndex = i;
                final String stateName = frozen.get(i).descriptor.name();
                frozen.get(i).forEach((key, value) ->
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
                    entries.add(new PendingEntry(KeyGroups.keyGroupOf(key, maxParallelism), stateIndex, key, value,
                        null, null));
                });
            }
            final List<StateMeta> metas = new ArrayList<>();
            final Codec<Object> keyCodec = keyClass[0] == null ? null : (Codec<Object>)codecs.codecFor(keyClass[0]);
            for (final FrozenState state : frozen)
            {
                final Codec<?> valueCodec = codecs.codecFor(state.descriptor.type());
                metas.add(new StateMeta(state.descriptor.name(), StateKind.VALUE,
                    keyClass[0] == null ? "" : keyClass[0].getName(), keyCodec == null ? 0 : keyCodec.version(),
                    state.descriptor.type().getName(), valueCodec.version()));
            }
            for (final RestoredState state : carried)
            {
                final int stateIndex = metas.size();
                metas.add(state.meta);
                state.forEachRaw((keyGroup, key, value) ->
                    entries.add(new PendingEntry(keyGroup, stateIndex, null, null, key, value)));
            }
            entries.sort(Comparator.comparingInt(PendingEntry::keyGroup));
            final KeyedSnapshotWriter writer = new KeyedSnapshotWriter(out, maxParallelism, keyGroups, metas);
            final ExpandableArrayBuffer keyBuffer = new ExpandableArrayBuffer(64);
            final ExpandableArrayBuffer valueBuffer = new ExpandableArrayBuffer(256);
            final UnsafeBuffer rawKey = new UnsafeBuffer(new byte[0]);
            final UnsafeBuffer rawValue = new UnsafeBuffer(new byte[0]);
            int start = 0;
            while (start < entries.size())
            {
                final int keyGroup = entries.get(start).keyGroup();
                int end = start;
                while (end < entries.size() && entries.get(end).keyGroup() == keyGroup)
                {
                    end++;
                }
                writer.startKeyGroup(keyGroup, end - start);
                for (int e = start; e < end; e++)
                {
                    final PendingEntry entry = entries.get(e);
                    if (entry.rawKey() != null)
                    {
                        rawKey.wrap(entry.rawKey());
                        rawValue.wrap(entry.rawValue());
                        writer.entry(entry.stateIndex(), rawKey, 0, entry.rawKey().length, null, 0, 0,
                            rawValue, 0, entry.rawValue().length);
                        continue;
                    }
                    final Codec<Object> valueCodec =
                        (Codec<Object>)codecs.codecFor(frozen.get(entry.stateIndex()).descriptor.type());
                    final int keyLength = encode(keyCodec, entry.key(), keyBuffer);
                    final int valueLength = encode(valueCodec, entry.value(), valueBuffer);
                    writer.entry(entry.stateIndex(), keyBuffer, 0, keyLength, null, 0, 0, valueBuffer, 0,
                        valueLength);
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

    /** Encodes into a buffer that grows until the value fits. */
    private static int encode(final Codec<Object> codec, final Object value, final ExpandableArrayBuffer buffer)
    {
        while (true)
        {
            try
            {
                return codec.encode(value, buffer, 0);
            }
            catch (final IndexOutOfBoundsException tooSmall)
            {
                if (buffer.capacity() >= 1 << 30)
                {
                    throw tooSmall;
                }
                buffer.checkLimit(buffer.capacity() * 2);
            }
        }
    }

    /** Entries of one state read from snapshots, kept encoded until the state is declared. Task thread. */
    private static final class RestoredState
    {
        /** Visits raw entries. */
        interface RawVisitor
        {
            void entry(int keyGroup, byte[] key, byte[] value);
        }

        final StateMeta meta;
        final List<Integer> keyGroups = new ArrayList<>();
        final List<byte[]> keys = new ArrayList<>();
        final List<byte[]> values = new ArrayList<>();

        RestoredState(final StateMeta meta)
        {
            this.meta = meta;
        }

        void check(final StateMeta other)
        {
            if (!meta.equals(other))
            {
                throw new IllegalStateException("state '" + meta.name() + "' is described differently by two " +
                    "snapshots being restored: " + meta + " and " + other);
            }
        }

        void add(final int keyGroup, final byte[] key, final byte[] value)
        {
            keyGroups.add(keyGroup);
            keys.add(key);
            values.add(value);
        }

        void forEachRaw(final RawVisitor visitor)
        {
            for (int i = 0; i < keys.size(); i++)
            {
                visitor.entry(keyGroups.get(i), keys.get(i), values.get(i));
            }
        }

        @SuppressWarnings("unchecked")
        <T> void decodeInto(final HeapState<T> state, final CodecRegistry codecs)
        {
            final ValueStateDescriptor<T> descriptor = state.descriptor;
            if (meta.kind() != StateKind.VALUE)
            {
                throw new IllegalStateException("state '" + meta.name() + "' was saved as " + meta.kind() +
                    " state and is now declared as VALUE state");
            }
            if (!meta.valueType().equals(descriptor.type().getName()))
            {
                throw new IllegalStateException("state '" + meta.name() + "' was saved with values of type " +
                    meta.valueType() + " and is now declared with type " + descriptor.type().getName());
            }
            final Codec<T> valueCodec = codecs.codecFor(descriptor.type());
            if (valueCodec.version() != meta.valueCodecVersion())
            {
                throw new IllegalStateException("state '" + meta.name() + "' was saved by codec version " +
                    meta.valueCodecVersion() + " of " + meta.valueType() + ", and the codec now registered is version " +
                    valueCodec.version() + ": register a codec that reads version " + meta.valueCodecVersion());
            }
            if (keys.isEmpty())
            {
                return;
            }
            final Class<?> keyClass;
            try
            {
                // loaded, never initialised: the name only selects a registered codec
                keyClass = Class.forName(meta.keyType(), false, Thread.currentThread().getContextClassLoader());
            }
            catch (final ClassNotFoundException ex)
            {
                throw new IllegalStateException("state '" + meta.name() + "' has keys of type " + meta.keyType() +
                    ", which is not on the class path", ex);
            }
            final Codec<Object> keyCodec = (Codec<Object>)codecs.codecFor(keyClass);
            if (keyCodec.version() != meta.keyCodecVersion())
            {
                throw new IllegalStateException("state '" + meta.name() + "' was saved by codec version " +
                    meta.keyCodecVersion() + " of its key type " + meta.keyType() + ", the codec now registered is " +
                    "version " + keyCodec.version());
            }
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[0]);
            for (int i = 0; i < keys.size(); i++)
            {
                buffer.wrap(keys.get(i));
                final Object key = keyCodec.decode(buffer, 0, keys.get(i).length);
                buffer.wrap(values.get(i));
                state.putRestored(key, valueCodec.decode(buffer, 0, values.get(i).length));
            }
        }
    }
}
