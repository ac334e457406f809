package io.ringflow.state.heap;

import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.keyed.AggregatingState;
import io.ringflow.state.keyed.AggregatingStateDescriptor;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.KeyGroups;
import io.ringflow.state.keyed.ListState;
import io.ringflow.state.keyed.LongValueState;
import io.ringflow.state.keyed.ListStateDescriptor;
import io.ringflow.state.keyed.MapState;
import io.ringflow.state.keyed.MapStateDescriptor;
import io.ringflow.state.keyed.ReducingState;
import io.ringflow.state.keyed.ReducingStateDescriptor;
import io.ringflow.state.keyed.StateDescriptor;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;
import io.ringflow.state.snapshot.KeyedSnapshotReader;
import io.ringflow.state.snapshot.KeyedStateSnapshot;
import io.ringflow.state.snapshot.StateCompatibility;
import io.ringflow.state.snapshot.StateMeta;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The on-heap reference store: one hash map of cells per declared state. Simple and obviously right; the off-heap
 * Chronicle Map store must agree with it.
 *
 * <p>Layout per kind: a value, reducing or aggregating state keeps one object per key ({@code ValueState<Long>}
 * without time-to-live keeps them unboxed, see {@link HeapLongValueState}); a list state one {@code ArrayList} per
 * key; a map state one {@code HashMap} of user keys per key. With a time-to-live each value (each map value of a map
 * state) is wrapped with its timestamp ({@link HeapTimestamped}).
 *
 * <p>Snapshots: the synchronous part copies each state's cells (for {@code long} keys and values, one array copy),
 * so it is O(number of entries); lists and maps are copied one level deep, and accumulators, which aggregate functions
 * may change in place, are encoded. The copy is encoded and written by the flusher, which leaves out entries that had
 * expired at the barrier. Values are not copied deeply: a value, user key or element handed to a state must not be
 * mutated afterwards (records and boxed primitives cannot be).
 *
 * <p>Codecs are looked up when a snapshot is written (for an aggregating state, when it is taken) or a restored state
 * is declared, so a state whose type has no codec works until then.
 *
 * <p>Thread contract: confined to one task thread, like every {@link KeyedStateStore}, except the snapshots it
 * returns, which are written by a flusher.
 */
public final class HeapKeyedStateStore implements KeyedStateStore
{
    private final CodecRegistry codecs;
    private final int maxParallelism;
    private final KeyGroupRange keyGroups;
    private final Map<String, HeapState> states = new LinkedHashMap<>();
    /** Restored entries of states not declared yet, by state name; decoded when the state is declared. */
    private final Map<String, HeapRestoredState> restored = new HashMap<>();
    private Object currentKey;
    /** The current key when set unboxed ({@link #longKey}); boxed only when asked for. */
    private long currentLongKey;
    private boolean longKey;

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
        longKey = false;
    }

    @Override
    public void setCurrentKey(final Object key, final int keyGroup)
    {
        assert keyGroup == KeyGroups.keyGroupOf(key, maxParallelism) : "key " + key + " is in key group " +
            KeyGroups.keyGroupOf(key, maxParallelism) + ", not " + keyGroup;
        currentKey = key;
        longKey = false;
    }

    @Override
    public void setCurrentKey(final long key, final int keyGroup)
    {
        assert keyGroup == KeyGroups.keyGroupOfHash(Long.hashCode(key), maxParallelism) : "key " + key +
            " is in key group " + KeyGroups.keyGroupOfHash(Long.hashCode(key), maxParallelism) + ", not " + keyGroup;
        currentLongKey = key;
        currentKey = null;
        longKey = true;
    }

    @Override
    public boolean sharesValueObjects()
    {
        // map and list values are shared with the snapshots taken since they were stored
        return true;
    }

    @Override
    public Object currentKey()
    {
        return longKey ? Long.valueOf(currentLongKey) : currentKey;
    }

    /** @return whether the current key was set unboxed: {@link #currentLongKey()} is it. Task thread. */
    boolean hasLongKey()
    {
        return longKey;
    }

    /** @return the current key, set unboxed; valid when {@link #hasLongKey()}. Task thread. */
    long currentLongKey()
    {
        return currentLongKey;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> ValueState<T> getValueState(final ValueStateDescriptor<T> descriptor)
    {
        return declare(descriptor, () -> descriptor.type() == Long.class && !descriptor.isTimeToLiveEnabled() ?
            new HeapLongValueState(this, (ValueStateDescriptor<Long>)descriptor) :
            new HeapValueState<>(this, descriptor));
    }

    @Override
    public LongValueState getLongValueState(final ValueStateDescriptor<Long> descriptor)
    {
        final ValueState<Long> state = getValueState(descriptor);
        return state instanceof HeapLongValueState unboxed ? unboxed.longView() :
            LongValueState.over(state, LongValueState.defaultOf(descriptor));
    }

    @Override
    public <UK, UV> MapState<UK, UV> getMapState(final MapStateDescriptor<UK, UV> descriptor)
    {
        return declare(descriptor, () -> new HeapMapState<>(this, descriptor));
    }

    @Override
    public <T> ListState<T> getListState(final ListStateDescriptor<T> descriptor)
    {
        return declare(descriptor, () -> new HeapListState<>(this, descriptor));
    }

    @Override
    public <T> ReducingState<T> getReducingState(final ReducingStateDescriptor<T> descriptor)
    {
        return declare(descriptor, () -> new HeapReducingState<>(this, descriptor));
    }

    @Override
    public <IN, ACC, OUT> AggregatingState<IN, OUT> getAggregatingState(
        final AggregatingStateDescriptor<IN, ACC, OUT> descriptor)
    {
        return declare(descriptor, () -> new HeapAggregatingState<>(this, descriptor));
    }

    /**
     * The one declaration path: the same state again, or a new one filled with its restored entries. A state whose
     * restored entries do not match is not declared, and its entries stay restored.
     */
    @SuppressWarnings("unchecked")
    private <S> S declare(final StateDescriptor descriptor, final Supplier<HeapState> create)
    {
        final HeapState existing = states.get(descriptor.name());
        if (existing != null)
        {
            StateCompatibility.checkRedeclared(existing.descriptor, descriptor);
            return (S)existing;
        }
        final HeapState state = create.get();
        final HeapRestoredState entries = restored.get(descriptor.name());
        if (entries != null)
        {
            entries.decodeInto(state, codecs);
            restored.remove(descriptor.name());
        }
        states.put(descriptor.name(), state);
        return (S)state;
    }

    @Override
    public KeyedStateSnapshot snapshot(final long checkpointId)
    {
        final List<HeapFrozenState> frozen = new ArrayList<>(states.size());
        for (final HeapState state : states.values())
        {
            frozen.add(state.freeze());
        }
        // restored states never declared since are carried over unchanged, so a job that stops using a state for a
        // while does not lose it
        return new HeapStateSnapshot(codecs, maxParallelism, keyGroups, frozen, new ArrayList<>(restored.values()));
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
            snapshot.checkRestorableInto(maxParallelism);
            final List<StateMeta> metas = snapshot.states();
            snapshot.read(keyGroups, (keyGroup, stateIndex, bytes, keyOffset, keyLength, subKeyOffset, subKeyLength,
                valueOffset, valueLength) ->
            {
                final StateMeta meta = metas.get(stateIndex);
                final HeapRestoredState state =
                    restored.computeIfAbsent(meta.name(), name -> new HeapRestoredState(meta));
                state.check(meta);
                state.add(keyGroup, copy(bytes, keyOffset, keyLength),
                    subKeyLength < 0 ? null : copy(bytes, subKeyOffset, subKeyLength),
                    copy(bytes, valueOffset, valueLength));
            });
        }
    }

    @Override
    public long entryCount()
    {
        long count = 0;
        for (final HeapState state : states.values())
        {
            count += state.size();
        }
        for (final HeapRestoredState state : restored.values())
        {
            count += state.size();
        }
        return count;
    }

    /** @return the codecs, for states that encode at a barrier. */
    CodecRegistry codecs()
    {
        return codecs;
    }

    /**
     * Encodes into a growable buffer, which grows until the value fits.
     *
     * @param codec  the codec.
     * @param value  the value, non-null.
     * @param buffer where to encode, {@link CodecBuffer#growable growable}.
     * @param offset where the encoding starts.
     * @param <T>    the value type.
     * @return the encoded length.
     * @throws IllegalStateException when the value needs more than a buffer can hold (about 2 GiB).
     */
    static <T> int encode(final Codec<T> codec, final T value, final CodecBuffer buffer, final int offset)
    {
        final int length = codec.encode(value, buffer, offset);
        if (buffer.overflowed())
        {
            buffer.clearOverflow();
            throw new IllegalStateException(codec + " encoded a value larger than a buffer can hold");
        }
        return length;
    }

    private static byte[] copy(final CodecBuffer bytes, final int offset, final int length)
    {
        return bytes.toByteArray(offset, length);
    }
}
