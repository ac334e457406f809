package io.ringflow.state.chronicle;

import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.keyed.AggregatingState;
import io.ringflow.state.keyed.AggregatingStateDescriptor;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.KeyGroups;
import io.ringflow.state.keyed.ListState;
import io.ringflow.state.keyed.ListStateDescriptor;
import io.ringflow.state.keyed.LongValueState;
import io.ringflow.state.keyed.MapState;
import io.ringflow.state.keyed.MapStateDescriptor;
import io.ringflow.state.keyed.ReducingState;
import io.ringflow.state.keyed.ReducingStateDescriptor;
import io.ringflow.state.keyed.StateDescriptor;
import io.ringflow.state.keyed.StateKind;
import io.ringflow.state.keyed.StateTtlConfig;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;
import io.ringflow.state.snapshot.KeyedSnapshotReader;
import io.ringflow.state.snapshot.KeyedStateSnapshot;
import io.ringflow.state.snapshot.StateCompatibility;
import io.ringflow.state.snapshot.StateMeta;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The off-heap keyed state backend: one Chronicle Map per state, in anonymous off-heap memory or memory-mapped from
 * files (for state larger than the heap). Keys and values are stored as their codecs encode them (keys prefixed by
 * their key group, see {@link StoredKeyLayout}), so the stored bytes are exactly the bytes of a snapshot, and a
 * snapshot of this store restores into the {@link io.ringflow.state.heap.HeapKeyedStateStore heap store} and back.
 * It behaves like the heap store, with two differences, both on misuse: the keys of a store must all have one type
 * (checked at the first access with another type, where the heap store fails only when it is snapshotted), and a
 * state whose value type has no codec fails when it is declared rather than when it is snapshotted.
 *
 * <p><b>Parts.</b> This class is the facade and the state registry (declared and restored states, their maps, held
 * lookups, snapshots taken at the barrier); the rest lives in parts of its own: {@link StoreKeys} (the current key,
 * its encoding, the store's one key type), {@link StateMapFactory} (map creation, sizing check, map files),
 * {@link IncrementalBases} (change tracking and the possible bases of deltas), {@link SnapshotRestore} (restore and
 * the checks of restored states), {@link PendingStateSnapshot} and {@link PendingStateDelta} (what a flusher reads),
 * and each state kind's class.
 *
 * <h2>State kinds</h2>
 *
 * Every kind has one Chronicle Map with one stored value per key, so the copy-on-write protocol below, which works on
 * stored values, is the same for all:
 * <ul>
 *   <li>value, reducing, aggregating: the value, folded value or accumulator as its codec encodes it
 *   ({@link ChronicleCellState});</li>
 *   <li>list: the whole list in {@link io.ringflow.state.snapshot.ListCodec}'s format; an add appends bytes without
 *   decoding the other elements ({@link ChronicleListState});</li>
 *   <li>map: all of the key's entries in one stored value ({@link MapBlobLayout}), so a key's user keys are found and
 *   iterated with one lookup and nothing per key lives on the heap; every change rewrites the key's stored value, and
 *   a key's whole map must fit in {@link ChronicleStateConfig#maxEntrySize()} ({@link ChronicleMapState}). The
 *   flusher splits each stored value into one snapshot entry per user key; a restore joins them again.</li>
 * </ul>
 * With a time-to-live, each stored value (each entry of a map value) starts with its timestamp
 * ({@link io.ringflow.state.snapshot.TtlValues}); the flusher leaves out what had expired by the state's clock read at
 * the barrier, which depends only on the value as of the barrier, live or preserved.
 *
 * <h2>Snapshots: copy-on-write, O(1) at the barrier</h2>
 *
 * {@link #snapshot} gives each state a {@link PendingStateSnapshot}: an empty {@code ConcurrentHashMap} of preserved
 * values and a counter {@code readSegments = 0}. That is O(number of states), whatever the number of keys (plus a view
 * of each value state's hot-key front: O(1) for {@code Long} counters, a copy of the front for other types: see
 * below).
 * Until the snapshot is written or released:
 * <ul>
 *   <li><b>Task thread</b>, on every change of a key {@code k} of segment {@code s} (update, clear): holding
 *   {@code s}'s update lock (a Chronicle query context), read {@code k}'s entry; for each pending snapshot {@code P}
 *   with {@code P.readSegments <= s} that has nothing preserved for {@code k}, {@code P.preserved.putIfAbsent(k,
 *   value now or ABSENT)}; then change the entry.</li>
 *   <li><b>Flusher</b> of {@code P}: for {@code s = 0, 1, ...}, under {@code s}'s update lock (Chronicle's
 *   {@code forEachSegmentEntry} holds it for the whole segment): at the segment's first entry, set
 *   {@code P.readSegments = s + 1}; for each entry {@code (k, v)} emit {@code P.preserved.remove(k)} if present
 *   (nothing for ABSENT), else {@code v}. Then set {@code readSegments} to the maximum and emit every preserved value
 *   left that is not ABSENT. Entries are gathered by key group and written in key group order.</li>
 * </ul>
 *
 * <p><b>Why the output is exactly the state at the barrier.</b> The segment lock orders every task write to a key of
 * segment {@code s} entirely before or entirely after the flusher's visit {@code V(s)} of that segment; Chronicle's
 * locks are atomic read-modify-writes of a lock word, so each critical section happens-before the next one on the
 * same segment, and {@code readSegments} is volatile.
 * <ol>
 *   <li>A write before {@code V(s)} sees {@code readSegments <= s}: the counter passes {@code s} only during a visit
 *   of {@code s} or a later segment, which comes after {@code V(s)}. So the first write of {@code k} after the
 *   barrier, if it comes before {@code V(s)}, preserves the value {@code k} had just before it, which is its value
 *   at the barrier; later writes find it preserved, and {@code putIfAbsent} would keep the first anyway.</li>
 *   <li>At {@code V(s)}, a present key with a preserved value gets that value (the barrier value, by 1). A present
 *   key without one was not written since the barrier (by 1), so its live value is its barrier value. An absent key
 *   without one was absent at the barrier too: nothing is emitted, rightly. An absent key with a preserved value
 *   (deleted since the barrier) keeps it in the map and is emitted by the final pass, unless it is ABSENT.</li>
 *   <li>Writes after {@code V(s)} cannot add a wrong value. If {@code s} had entries, {@code V(s)} raised the
 *   counter past {@code s} while holding the lock, so they preserve nothing. If {@code s} was empty, every key of
 *   {@code s} was absent at {@code V(s)}: a key written since the barrier already has its barrier value preserved
 *   ({@code putIfAbsent} keeps it); any other key was absent at the barrier as well, so it can only get ABSENT, which
 *   is never emitted. Each key is therefore emitted once: visited keys lose their preserved value at the visit and
 *   are never preserved again; the final pass emits only keys absent at their visit.</li>
 * </ol>
 * This differs from claiming each emitted key in the side map: nothing is stored per key read, so the heap holds
 * only the values preserved during the flush. Several snapshots may be pending at once: each has its own part per
 * state, and a write preserves the old value (one copy, shared) for each that needs it.
 *
 * <p><b>Costs.</b> With no snapshot pending, a write pays one volatile read of an empty array. While one is pending,
 * the first write of a key in a segment not yet read copies the key and the old value; other writes pay one volatile
 * read per pending snapshot and one hash lookup. A task write to a segment being read waits for that segment's copy
 * (Chronicle sizes segments at a few thousand entries). The flusher holds a copy of the whole snapshot on the heap
 * ({@link KeyGroupBuckets}) before writing it.
 *
 * <h2>Hot-key front</h2>
 *
 * A Chronicle lookup costs a query context, a segment lock and a hash of the key bytes, some hundreds of nanoseconds,
 * where a heap map takes tens. So each value state without a time-to-live has a {@link HotKeyFront}, unless
 * {@link ChronicleStateConfig#hotKeyCapacity} is 0: a write-back buffer on the heap of at most C keys (from the
 * configured budget, {@link ChronicleStateConfig#hotFrontBytesPerState()}), each mapped to its decoded value
 * ({@code Long} keys and values unboxed in a {@link CopyOnWriteLongTable}; other {@code Long} keys in an Agrona
 * {@code Long2ObjectHashMap}, looked up without boxing; other keys in a {@code HashMap}).
 * <ul>
 *   <li><b>Reads and writes.</b> A key in the front is read and updated there, with no Chronicle call and no
 *   allocation. An update of a key not in the front enters it while it has room (C keys), else goes to the map as
 *   without a front. A read of a key not in the front reads the map and does not enter the front: only writes enter,
 *   so a front value is always newer than the key's map entry, if it has one (which is then stale and never read).
 *   A clear removes the key from both. Keys and values are checked against the maximum entry size before they enter,
 *   so a refused write changes nothing, as without a front.</li>
 *   <li><b>Turnover.</b> Reads and writes of the state are counted as hits or misses of the front over windows of
 *   65,536. When a window ends with a front of at most 65,536 keys full and fewer hits than misses, the front holds the
 *   wrong keys: every
 *   entry is written back to the map, through the map's normal write path (so copy-on-write and change tracking
 *   apply), and the front is emptied, so the keys written next, hotter ones more likely, can enter. A write back
 *   the map refuses (full) keeps the front as it is. {@link #writeBackHotKeys()} writes every front back on demand;
 *   {@link #close()} discards them with the rest of the state.</li>
 *   <li><b>Snapshot overlay.</b> At the barrier, {@link #snapshot} and {@link #incrementalSnapshot} copy each
 *   non-empty front into a {@link FrontOverlay}: a view of the {@code Long} table (O(1): the task copies a chunk of
 *   it only if it changes the chunk before the flusher has read it), else a copy of the front (O(C)). Its values are
 *   the barrier values of its keys and newer than the map's, so the flusher encodes it into stored keys and values,
 *   skips every live or preserved map entry whose key is in it, and emits its entries instead. A delta's changed
 *   keys are the map's change sets since the base together with the overlay's keys; the overlay wins for a key of
 *   both ({@link PendingStateDelta} argues why no change is missed: a key leaves the front only by a write back or
 *   a clear, both recorded). A write back after the barrier is preserved copy-on-write like any write, and the
 *   preserved (stale) map value is then overridden by the overlay, rightly.</li>
 *   <li><b>Counting.</b> The front knows how many of its keys also have a (stale) map entry, so
 *   {@link #entryCount()} stays exact. Entering the front needs that answer: it comes free when the update follows
 *   a read of the same key (read-then-write), else from one map lookup.</li>
 *   <li><b>Restore.</b> A restored value state of {@code Long} counters gets its entries into its front, unless
 *   they do not fit its capacity ({@link SnapshotRestore}); other fronts start empty; restored states not declared
 *   have none.</li>
 * </ul>
 * Trade-offs: the synchronous part of a snapshot grows by O(C) per value state with a boxed front (C at most 1,024 by
 * default), O(1) for a front of {@code Long} counters; the heap holds at most C keys and values per value state (and
 * up to about twice a counter front's table while a checkpoint is written); a delta carries the front's
 * entries changed since its base; an update of a hot
 * key whose value codec has no {@link io.ringflow.state.codec.Codec#maxEncodedLength() bound} still encodes the value
 * once, to check its size. Values are kept as objects and snapshotted later, as in the heap store: a value handed to
 * {@code update} must not be mutated afterwards, and a value read from the front is the object stored there.
 *
 * <p><b>Sizing and limits.</b> See {@link ChronicleStateConfig}. A write that would take a map beyond its growth
 * factor, and an entry larger than {@link ChronicleStateConfig#maxEntrySize()}, are refused with an exception naming
 * the state; nothing changes, and snapshots taken before remain correct.
 *
 * <p>Chronicle Map must never phone home: this class sets {@code chronicle.analytics.disable=true} when it is
 * initialised, before it creates any map (the Ringflow JVM flags set it too).
 *
 * <p>Thread contract: confined to the task thread, like every {@link KeyedStateStore}, except the snapshots it
 * returns (written by a flusher) and {@link #close}, which must come after every snapshot is written or released.
 */
public final class ChronicleKeyedStateStore implements KeyedStateStore, AutoCloseable
{
    static
    {
        System.setProperty("chronicle.analytics.disable", "true");
    }

    /** The most snapshots whose changes are kept as possible bases of a delta; older ones are forgotten. */
    static final int MAX_POSSIBLE_BASES = IncrementalBases.MAX_POSSIBLE_BASES;

    private final ChronicleStateConfig config;
    /** The most of a snapshot its flusher buffers on the heap before spilling to a file ({@link KeyGroupBuckets}). */
    private long snapshotSpillAfterBytes = KeyGroupBuckets.DEFAULT_SPILL_AFTER_BYTES;
    /**
     * The checkpoint id of the last barrier ({@link #snapshot} or {@link #incrementalSnapshot}), or of the checkpoint
     * this store was {@link #restoredFrom restored from}; -1 before either. Fronts declared later stamp their changes
     * with it. Task thread.
     */
    private long lastBarrier = -1;
    /** See {@link #limitTrackedChanges}. */
    private long trackedChangesLimit = Long.MAX_VALUE;
    /** See {@link #limitPreservedBytes}; {@link Long#MAX_VALUE} while no test set it. Task thread. */
    private long preservedBytesLimit = Long.MAX_VALUE;
    private final CodecRegistry codecs;
    private final int maxParallelism;
    private final KeyGroupRange keyGroups;
    /** Creates the maps; owns the store's directory of map files. */
    private final StateMapFactory mapFactory;
    /** Every map, declared or only restored, in creation order. */
    private final Map<String, StateMap> maps = new LinkedHashMap<>();
    private final Map<String, ChronicleState> declared = new LinkedHashMap<>();
    /**
     * {@link #maps} as an array, with each map's declared state at the same index (null while only restored), and
     * {@link #declared} as an array: what the barrier walks, without an iterator or a lookup by name. Rebuilt by
     * {@link #statesChanged} whenever either map changes. Task thread.
     */
    private StateMap[] mapArray = new StateMap[0];
    private ChronicleState[] stateOfMap = new ChronicleState[0];
    private ChronicleState[] declaredArray = new ChronicleState[0];
    /** The current key and the store's key type and codec. */
    private final StoreKeys keys;
    /** Change tracking and possible bases of deltas. */
    private final IncrementalBases bases = new IncrementalBases();
    private final SnapshotRestore restore;
    private final LocalRevert revert;
    private boolean closed;
    /** The state that keeps a lookup of the current key open between a read and a write, or null. Task thread. */
    private ChronicleState holding;
    /** The hot-key fronts of declared value states, in declaration order: what {@link #prefetch} touches. */
    private HotKeyFront[] fronts = new HotKeyFront[0];
    /** Whether value states may keep a read's lookup open for the write that follows; see {@link #holdLookups}. */
    private boolean holdLookups;
    /**
     * States declared before the last {@link #revertTo}, by name, whose next declaration (a new attempt's) hands them
     * its functions ({@link ChronicleState#rebind}). Task thread.
     */
    private final Set<String> rebinding = new HashSet<>();

    /**
     * A store for every key group of the default maximum parallelism, with the built-in codecs.
     *
     * @param config the sizing and location of the maps.
     */
    public ChronicleKeyedStateStore(final ChronicleStateConfig config)
    {
        this(config, CodecRegistry.withBuiltIns(), KeyGroups.DEFAULT_MAX_PARALLELISM,
            new KeyGroupRange(0, KeyGroups.DEFAULT_MAX_PARALLELISM - 1));
    }

    /**
     * @param config         the sizing and location of the maps.
     * @param codecs         codecs for keys and values.
     * @param maxParallelism the job's number of key groups, in [1, 2^15].
     * @param keyGroups      the key groups this store's subtask owns.
     * @throws IllegalArgumentException when {@code maxEntrySize} cannot fit in a map of the configured size, or the
     *                                  directory cannot be used; the message names the option or the directory.
     * @throws IllegalStateException    when the JVM was started without the flags Chronicle needs; the message names
     *                                  them.
     */
    public ChronicleKeyedStateStore(
        final ChronicleStateConfig config, final CodecRegistry codecs, final int maxParallelism,
        final KeyGroupRange keyGroups)
    {
        // before any Chronicle class is initialised: without the flags, the first one fails for good
        ChronicleJvmAccess.check();
        if (maxParallelism < 1 || maxParallelism > KeyGroups.UPPER_BOUND_MAX_PARALLELISM)
        {
            throw new IllegalArgumentException("maxParallelism must be in [1, " +
                KeyGroups.UPPER_BOUND_MAX_PARALLELISM + "], not " + maxParallelism);
        }
        if (keyGroups.size() > 0 && (keyGroups.start() < 0 || keyGroups.end() >= maxParallelism))
        {
            throw new IllegalArgumentException("key groups " + keyGroups.start() + ".." + keyGroups.end() +
                " are not all below maxParallelism " + maxParallelism);
        }
        this.config = config;
        this.codecs = codecs;
        this.maxParallelism = maxParallelism;
        this.keyGroups = keyGroups;
        this.keys = new StoreKeys(codecs, maxParallelism, config.maxEntrySize());
        this.mapFactory = new StateMapFactory(config);
        this.restore = new SnapshotRestore(codecs, maxParallelism, keyGroups, config.maxEntrySize(), keys,
            this::restoredMap);
        this.revert = new LocalRevert(this, maps, declared, keys, restore, maxParallelism);
    }

    @Override
    public void setCurrentKey(final Object key)
    {
        setCurrentKey(key, -1);
    }

    @Override
    public void setCurrentKey(final Object key, final int keyGroup)
    {
        assert keyGroup == -1 || keyGroup == KeyGroups.keyGroupOf(key, maxParallelism) : "key " + key +
            " is in key group " + KeyGroups.keyGroupOf(key, maxParallelism) + ", not " + keyGroup;
        if (holding != null)
        {
            releaseHeld();
        }
        keys.set(key, keyGroup);
    }

    @Override
    public void setCurrentKey(final long key, final int keyGroup)
    {
        assert keyGroup == KeyGroups.keyGroupOfHash(Long.hashCode(key), maxParallelism) : "key " + key +
            " is in key group " + KeyGroups.keyGroupOfHash(Long.hashCode(key), maxParallelism) + ", not " + keyGroup;
        if (holding != null)
        {
            releaseHeld();
        }
        keys.set(key, keyGroup);
    }

    @Override
    public Object currentKey()
    {
        return keys.currentKey();
    }

    /** @return whether the current key, set unboxed, was boxed since it was set: for tests of the unboxed paths. */
    boolean currentKeyBoxed()
    {
        return keys.currentKeyBoxed();
    }

    /** @return whether the current key was set unboxed: {@link #currentLongKey()} is it. Task thread. */
    boolean hasLongKey()
    {
        return keys.hasLongKey();
    }

    /** @return the current key, set unboxed; valid when {@link #hasLongKey()}. Task thread. */
    long currentLongKey()
    {
        return keys.currentLongKey();
    }

    @Override
    public <T> ValueState<T> getValueState(final ValueStateDescriptor<T> descriptor)
    {
        return declare(descriptor, map -> new ChronicleValueState<>(this, map, descriptor,
            codecs.codecFor(descriptor.type()), config.maxEntrySize(), config.hotKeyCapacity(true, bases.tracking()),
            config.hotKeyCapacity(false, bases.tracking())));
    }

    @Override
    public LongValueState getLongValueState(final ValueStateDescriptor<Long> descriptor)
    {
        final ValueState<Long> state = getValueState(descriptor);
        return state instanceof ChronicleValueState<?> chronicle && chronicle.longView() != null ?
            chronicle.longView() : LongValueState.over(state, LongValueState.defaultOf(descriptor));
    }

    @Override
    public <UK, UV> MapState<UK, UV> getMapState(final MapStateDescriptor<UK, UV> descriptor)
    {
        return declare(descriptor, map -> new ChronicleMapState<>(this, map, descriptor,
            codecs.codecFor(descriptor.userKeyType()), codecs.codecFor(descriptor.valueType()),
            config.maxEntrySize()));
    }

    @Override
    public <T> ListState<T> getListState(final ListStateDescriptor<T> descriptor)
    {
        return declare(descriptor, map -> new ChronicleListState<>(this, map, descriptor,
            codecs.codecFor(descriptor.valueType()), config.maxEntrySize()));
    }

    @Override
    public <T> ReducingState<T> getReducingState(final ReducingStateDescriptor<T> descriptor)
    {
        return declare(descriptor, map -> new ChronicleReducingState<>(this, map, descriptor,
            codecs.codecFor(descriptor.valueType()), config.maxEntrySize()));
    }

    @Override
    public <IN, ACC, OUT> AggregatingState<IN, OUT> getAggregatingState(
        final AggregatingStateDescriptor<IN, ACC, OUT> descriptor)
    {
        return declare(descriptor, map -> new ChronicleAggregatingState<>(this, map, descriptor,
            codecs.codecFor(descriptor.valueType()), config.maxEntrySize()));
    }

    /**
     * The one declaration path: the same state again, or a new one over its map, whose restored entries, if any, are
     * checked against the declaration and decoded once. A state whose restored entries do not match is not declared;
     * its map stays as restored.
     */
    @SuppressWarnings("unchecked")
    private <S> S declare(final StateDescriptor descriptor, final Function<StateMap, ChronicleState> create)
    {
        checkOpen();
        final ChronicleState existing = declared.get(descriptor.name());
        if (existing != null)
        {
            StateCompatibility.checkRedeclared(existing.descriptor(), descriptor);
            if (rebinding.remove(descriptor.name()))
            {
                existing.rebind(descriptor);
            }
            return (S)existing;
        }
        StateMap map = maps.get(descriptor.name());
        final boolean created = map == null;
        if (created)
        {
            map = createMap(descriptor.name());
        }
        final ChronicleState state;
        try
        {
            state = create.apply(map);
            if (!created && map.restoredMeta() != null)
            {
                restore.checkRestored(map, state);
            }
        }
        catch (final RuntimeException ex)
        {
            if (created)
            {
                maps.remove(descriptor.name());
                statesChanged();
                map.close();
            }
            throw ex;
        }
        if (descriptor.kind() == StateKind.MAP)
        {
            map.markMapValues();
        }
        declared.put(descriptor.name(), state);
        statesChanged();
        if (state instanceof ChronicleValueState<?> value && value.front() != null)
        {
            fronts = Arrays.copyOf(fronts, fronts.length + 1);
            fronts[fronts.length - 1] = value.front();
        }
        return (S)state;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Touches the key's home slot in the front of every value state that has one (its {@code Long} table, when it
     * holds {@code Long} keys and values); a key the front does not hold still costs its map lookup later.
     */
    @Override
    public long prefetch(final long key)
    {
        long touched = 0;
        for (final HotKeyFront front : fronts)
        {
            touched += front.touch(key);
        }
        return touched;
    }

    /**
     * {@inheritDoc}
     *
     * <p>True while some value state's front holds {@code Long}s in a table that has outgrown the near caches
     * ({@link CopyOnWriteLongTable#outgrowsNearCaches}): for fewer keys, touching ahead would only cost.
     */
    @Override
    public boolean prefetches()
    {
        for (final HotKeyFront front : fronts)
        {
            if (front.worthTouching())
            {
                return true;
            }
        }
        return false;
    }

    /**
     * {@inheritDoc}
     *
     * <p>O(number of states): registers a copy-on-write part per state; nothing is copied here but the hot-key
     * fronts of value states whose keys or values are not both {@code Long}s.
     */
    @Override
    public KeyedStateSnapshot snapshot(final long checkpointId)
    {
        return takeSnapshot(checkpointId, -1, 0);
    }

    @Override
    public void trackChanges()
    {
        checkOpen();
        bases.startTracking(maps.values());
    }

    /** {@inheritDoc} Closes a lookup a value state keeps open ({@link #holdLookups}). */
    @Override
    public void beforeWaiting()
    {
        releaseHeld();
    }

    @Override
    public void forgetAllChanges()
    {
        bases.forgetAll(maps.values());
    }

    @Override
    public boolean canSnapshotIncrementally(final long baseCheckpointId)
    {
        return !closed && bases.isBase(baseCheckpointId) && !changesOverflowedSince(baseCheckpointId);
    }

    /** @return whether some map changed more keys since the checkpoint's barrier than it could track. */
    private boolean changesOverflowedSince(final long checkpointId)
    {
        for (final StateMap map : maps.values())
        {
            if (map.changesOverflowedSince(checkpointId))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * For tests: the most changed keys each map tracks at once (by default as many as fit in
     * {@link StateMap#DEFAULT_MAX_TRACKED_CHANGE_BYTES} of heap);
     * past it, deltas and reverts across the overflowing interval are refused. Task thread.
     *
     * @param keys at least 1.
     */
    void limitTrackedChanges(final long keys)
    {
        if (keys < 1)
        {
            throw new IllegalArgumentException("keys must be at least 1, not " + keys);
        }
        trackedChangesLimit = keys;
        for (final StateMap map : maps.values())
        {
            map.limitTrackedChanges(keys);
        }
    }

    /**
     * For tests: the most heap a full snapshot being written may hold in preserved copies before a write waits for
     * its flusher (by default {@link ChronicleStateConfig#preservedCopyBytesPerState()}), below what the configuration
     * accepts. Task thread.
     *
     * @param bytes at least 1.
     */
    void limitPreservedBytes(final long bytes)
    {
        if (bytes < 1)
        {
            throw new IllegalArgumentException("bytes must be at least 1, not " + bytes);
        }
        preservedBytesLimit = bytes;
        for (final StateMap map : maps.values())
        {
            map.limitPreservedBytes(bytes);
        }
    }

    /** @return how many restored map entries were read and decoded when their states were declared, for tests. */
    long restoredEntriesChecked()
    {
        return restore.entriesChecked();
    }

    /** {@inheritDoc} See {@link IncrementalBases#prefersFull}. */
    @Override
    public boolean prefersFullSnapshot(final long baseCheckpointId)
    {
        long frontOnly = 0;
        for (final ChronicleState state : declared.values())
        {
            frontOnly += state.frontOnlyEntries();
        }
        return IncrementalBases.prefersFull(maps.values(), frontOnly, baseCheckpointId);
    }

    /**
     * {@inheritDoc}
     *
     * <p>O(number of states), like {@link #snapshot}: each state's part holds the change sets since the base (sealed,
     * never modified again) and reads only those keys on the flusher; see {@link PendingStateDelta}.
     */
    @Override
    public KeyedStateSnapshot incrementalSnapshot(final long checkpointId, final long baseCheckpointId)
    {
        return delta(checkpointId, baseCheckpointId, 0);
    }

    /** A delta against a base, rewriting the next of {@code slices} slices when that is positive. */
    private KeyedStateSnapshot delta(final long checkpointId, final long baseCheckpointId, final int slices)
    {
        checkOpen();
        if (!canSnapshotIncrementally(baseCheckpointId))
        {
            throw new IllegalStateException("no incremental snapshot against checkpoint " + baseCheckpointId +
                " can be taken: " + (bases.tracking() ? "this store did not take it, forgot its changes, or changed " +
                "more keys since than it tracks (StateMap.DEFAULT_MAX_TRACKED_CHANGE_BYTES)" :
                "changes are not tracked"));
        }
        forgetChangesUpTo(baseCheckpointId);
        return takeSnapshot(checkpointId, baseCheckpointId, slices);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The slice of a round is a range of each map's segments and a range of the store's key groups for hot-key
     * fronts of {@code Long} counters ({@link PendingStateDelta}); the round's position is the base's plus one
     * ({@link IncrementalBases#sliceRun}: this store's own deltas, so its maps' segments, not a restored chain's). A
     * store with a front of another kind takes a plain delta, which ends the round. Deltas of a round are read under
     * their slice segments' locks like a full snapshot and preserve, copy-on-write, every key the task changes there.
     */
    @Override
    public KeyedStateSnapshot incrementalSnapshot(final long checkpointId, final long baseCheckpointId,
        final int slices)
    {
        if (slices < 1)
        {
            throw new IllegalArgumentException("a round has at least one slice, not " + slices);
        }
        return delta(checkpointId, baseCheckpointId, slices);
    }

    /** {@inheritDoc} Not while a declared state's hot-key front holds boxed entries (other key or value types). */
    @Override
    public boolean rewritesSlices()
    {
        for (final ChronicleState state : declared.values())
        {
            if (!state.frontCanRewriteSlice(keys.keyCodec()))
            {
                return false;
            }
        }
        return true;
    }

    @Override
    public void forgetChangesUpTo(final long checkpointId)
    {
        bases.forgetUpTo(maps.values(), checkpointId);
    }

    /**
     * A full snapshot when {@code baseCheckpointId} is negative, else a delta against it, which rewrites the next
     * slice of a round of {@code slices} when that is positive and every front allows it.
     */
    private KeyedStateSnapshot takeSnapshot(final long checkpointId, final long baseCheckpointId, final int slices)
    {
        releaseHeld();
        checkOpen();
        final boolean delta = baseCheckpointId >= 0;
        final long run = delta && slices > 0 && rewritesSlices() ? bases.sliceRun(baseCheckpointId) + 1 : 0;
        final int slice = run > 0 ? (int)((run - 1) % slices) : 0;
        final StateMap[] stateMaps = mapArray;
        final ChronicleState[] states = stateOfMap;
        final PendingStatePart[] parts = new PendingStatePart[stateMaps.length];
        int i = 0;
        FrontOverlay unclaimed = null;
        try
        {
        for (final StateMap map : stateMaps)
        {
            final ChronicleState state = states[i];
            if (state == null)
            {
                // restored counters not declared (yet): into the map, where a snapshot of an undeclared state reads
                restore.writeKeptLongs(map);
            }
            map.sealChanges(checkpointId);
            // restored, not declared since: carried as it is, expired entries included (the time-to-live belongs to
            // the declaration)
            final StateMeta meta = state == null ? map.restoredMeta() : state.meta(keys.keyClass(), keys.keyCodec());
            final StateTtlConfig ttl = state == null ? null : state.ttl();
            final long ttlMillis = ttl == null ? 0 : ttl.ttlMillis();
            final long barrierTime = ttl == null ? 0 : ttl.clock().getAsLong();
            // O(1) for a front of Long counters; a copy of a value state's hot-key front of other types, O(C)
            final FrontOverlay overlay = state == null ? null :
                state.frontOverlay(keys.keyCodec(), maxParallelism, delta ? baseCheckpointId : Long.MIN_VALUE);
            unclaimed = overlay;
            if (state != null)
            {
                state.sealFront(checkpointId);
            }
            int sliceFrom = 0;
            int sliceTo = 0;
            if (run > 0)
            {
                // a map whose every entry a front holds (and whose front values win) has nothing for the slice: its
                // keys are the front's, rewritten by the front's slice of key groups (see PendingStateDelta)
                final boolean allShadowed = state != null && map.size() == state.frontShadowedEntries();
                final int segments = map.map() == null || allShadowed ? 0 : map.map().segments();
                sliceFrom = sliceStart(slice, segments, slices);
                sliceTo = sliceStart(slice + 1, segments, slices);
                if (overlay != null)
                {
                    overlay.rewriteKeyGroups(keyGroups.start() + sliceStart(slice, keyGroups.size(), slices),
                        keyGroups.start() + sliceStart(slice + 1, keyGroups.size(), slices));
                }
            }
            parts[i++] = delta ?
                new PendingStateDelta(map, meta, ttlMillis, barrierTime, overlay,
                    map.changesSince(baseCheckpointId), sliceFrom, sliceTo) :
                new PendingStateSnapshot(map, meta, ttlMillis, barrierTime, overlay);
            unclaimed = null;
        }
        }
        catch (final RuntimeException ex)
        {
            // nothing was registered yet: end the claims of the fronts' views taken so far, else the task would keep
            // copying chunks for a snapshot nobody reads
            if (unclaimed != null)
            {
                unclaimed.release();
            }
            for (int built = 0; built < i; built++)
            {
                parts[built].release();
            }
            throw ex;
        }
        bases.sealed(maps.values(), checkpointId);
        bases.recordSliceRun(checkpointId, run);
        lastBarrier = checkpointId;
        for (final PendingStatePart part : parts)
        {
            part.state().addPending(part);
        }
        return new ChronicleKeyedStateSnapshot(checkpointId, maxParallelism, keyGroups, parts, delta,
            snapshotSpillAfterBytes, config.directory(), run >= slices && run > 0 ? slices : 0);
    }

    /** @return where slice {@code slice} of {@code slices} starts among {@code total} items (0 to {@code total}). */
    private static int sliceStart(final int slice, final int total, final int slices)
    {
        return (int)((long)slice * total / slices);
    }

    /**
     * For tests: how much of a snapshot its flusher buffers on the heap before it spills the rest to a file (by
     * default {@link KeyGroupBuckets#DEFAULT_SPILL_AFTER_BYTES}). Task thread, before {@link #snapshot}.
     *
     * @param bytes at least 1.
     */
    void spillSnapshotsAfter(final long bytes)
    {
        if (bytes < 1)
        {
            throw new IllegalArgumentException("bytes must be at least 1, not " + bytes);
        }
        snapshotSpillAfterBytes = bytes;
    }

    @Override
    public void restore(final List<KeyedSnapshotReader> snapshots)
    {
        releaseHeld();
        checkOpen();
        if (!declared.isEmpty())
        {
            throw new IllegalStateException("restore must happen before any state is declared");
        }
        // restored counters are kept for the fronts the states will have: sized with change stamps when tracked
        final boolean tracking = bases.tracking();
        restore.restore(snapshots,
            config.hotKeyCapacity(false, tracking) > 0 ? config.hotKeyCapacity(true, tracking) : 0);
        // no delta can be based on a snapshot from before the restore: the restored entries are not changes
        bases.forgetAll(maps.values());
    }

    /** {@inheritDoc} See {@link IncrementalBases#restoredFrom}. */
    @Override
    public void restoredFrom(final long checkpointId)
    {
        checkOpen();
        if (!declared.isEmpty())
        {
            throw new IllegalStateException("restoredFrom must come right after restore, before any state is declared");
        }
        bases.restoredFrom(maps.values(), checkpointId);
        lastBarrier = checkpointId;
    }

    /** @return see {@link #lastBarrier}. Task thread. */
    long lastBarrier()
    {
        return lastBarrier;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Null when this store took that checkpoint's snapshot while tracking changes, no restore or forgetting came
     * after ({@link IncrementalBases#isBase}: every change since is known), and no snapshot of it is still pending (a
     * pending one would keep preserving old values for a flusher that no longer runs), and the keys changed since fit
     * in the revert's arrays ({@link LocalRevert#fits}); {@link #canRevertTo} is true then.
     */
    @Override
    public String whyNotRevertibleTo(final long checkpointId)
    {
        if (closed)
        {
            return "the store is closed";
        }
        if (!bases.isBase(checkpointId))
        {
            return bases.tracking() ? "the store did not take that checkpoint's snapshot, or has forgotten the " +
                "changes since (a restore, a revert to another checkpoint, or more than " +
                IncrementalBases.MAX_POSSIBLE_BASES + " snapshots taken after it)" :
                "the store does not track changes";
        }
        if (changesOverflowedSince(checkpointId))
        {
            return "more keys changed since its barrier than the store tracks (its change sets are bounded by a " +
                "sixteenth of the heap)";
        }
        for (final StateMap map : maps.values())
        {
            if (map.hasPending())
            {
                return "a snapshot of state '" + map.name() + "' is still pending";
            }
        }
        return revert.fits(checkpointId) ? null : "the keys changed since its barrier do not fit in the revert's " +
            "arrays (2^31 table slots or key bytes)";
    }

    /**
     * {@inheritDoc}
     *
     * <p>Only the keys changed since the barrier are rewritten, the keys a delta against it would hold
     * ({@link LocalRevert}); every other entry is left as it is. O(changed keys + entries in the snapshots read).
     */
    @Override
    public long revertTo(final long checkpointId, final List<KeyedSnapshotReader> snapshots)
    {
        releaseHeld();
        checkOpen();
        final String refusal = whyNotRevertibleTo(checkpointId);
        if (refusal != null)
        {
            throw new IllegalStateException(this + " cannot be reverted to checkpoint " + checkpointId + ": " +
                refusal);
        }
        final long reverted = revert.revert(checkpointId, snapshots);
        // the store holds exactly the checkpoint's snapshot again: the next delta may build on it, and, its maps being
        // the ones that took the checkpoint (the same segments), go on with the round of slices it was in, once the
        // keys the revert rewrote are recorded as changed (one may have moved between front and map, out of the
        // slices the round has left: see LocalRevert#recordRewrittenAsChanged)
        final long sliceRun = bases.sliceRun(checkpointId);
        bases.restoredFrom(maps.values(), checkpointId);
        if (sliceRun > 0)
        {
            revert.recordRewrittenAsChanged();
            bases.recordSliceRun(checkpointId, sliceRun);
        }
        revert.forgetRewritten();
        rebinding.addAll(declared.keySet());
        return reverted;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Like the heap store, counts the entries of restored states not declared yet, and a map state's entries by
     * user key. A value state's hot-key front adds its keys that have no value in the map, so the count stays exact
     * without time-to-live. O(number of states).
     */
    @Override
    public long entryCount()
    {
        releaseHeld();
        long count = 0;
        for (final StateMap map : mapArray)
        {
            count += map.entryCount();
        }
        for (final ChronicleState state : declaredArray)
        {
            count += state.frontOnlyEntries();
        }
        return count;
    }

    /**
     * Writes every entry of every value state's hot-key front back to its Chronicle Map, through the map's write path
     * (so pending snapshots stay copy-on-write and deltas see the keys as changed), and empties the fronts. Not needed
     * for correctness: snapshots and reads see the fronts. Task thread.
     *
     * @throws IllegalStateException when a map refuses a write (full); that state's front then keeps every entry it
     *                               held, and the other states are written back nonetheless.
     */
    public void writeBackHotKeys()
    {
        releaseHeld();
        checkOpen();
        RuntimeException failure = null;
        for (final ChronicleState state : declared.values())
        {
            try
            {
                state.writeBackFront();
            }
            catch (final RuntimeException ex)
            {
                failure = addTo(failure, ex);
            }
        }
        if (failure != null)
        {
            throw failure;
        }
    }

    /**
     * Closes every map (pending snapshots can then no longer be written) and deletes the map files this store
     * created. Idempotent. Task thread, after every snapshot has been written or released.
     *
     * @throws UncheckedIOException when a file cannot be deleted; every map is closed nonetheless.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            releaseHeld();
        }
        catch (final RuntimeException ex)
        {
            // a lookup left open by another thread cannot be closed from this one; the maps are closed anyway
            holding = null;
        }
        for (final ChronicleState state : declared.values())
        {
            // discarded, not written back: the state goes with the store
            state.discardFront();
        }
        RuntimeException failure = null;
        for (final StateMap map : maps.values())
        {
            try
            {
                map.close();
            }
            catch (final RuntimeException ex)
            {
                failure = addTo(failure, ex);
            }
        }
        try
        {
            mapFactory.deleteFiles();
        }
        catch (final UncheckedIOException ex)
        {
            failure = addTo(failure, ex);
        }
        if (failure != null)
        {
            throw failure;
        }
    }

    /** @return this store's directory of map files, or null when its maps are in memory. */
    public Path filesDirectory()
    {
        return mapFactory.filesDirectory();
    }

    /**
     * Lets value states (without time-to-live) keep the lookup of a read from the map open, its segment locked, until
     * the write of the same key that usually follows, a clear, or the next {@link #setCurrentKey}: a read-then-write
     * then costs one map lookup instead of two. The caller promises to call {@code setCurrentKey} (with null when it
     * is done) after each record, and never to wait for a snapshot flusher while a key is current: a flusher that
     * reaches the locked segment waits for it. The engine's keyed operators keep this promise. Task thread, before
     * any state is declared.
     */
    public void holdLookups()
    {
        holdLookups = true;
    }

    /** @return whether value states may keep a read's lookup open; see {@link #holdLookups}. */
    boolean holdsLookups()
    {
        return holdLookups;
    }

    /**
     * A state is about to leave a lookup of the current key open: any other state's open lookup is closed first, so
     * at most one is open. Task thread.
     *
     * @param state the state.
     */
    void holdOpen(final ChronicleState state)
    {
        if (holding != null && holding != state)
        {
            releaseHeld();
        }
        holding = state;
    }

    /** @param state a state that closed its open lookup itself (by writing through it). Task thread. */
    void heldReleased(final ChronicleState state)
    {
        if (holding == state)
        {
            holding = null;
        }
    }

    /** Closes the open lookup of the current key, if a state keeps one. Task thread. */
    void releaseHeld()
    {
        final ChronicleState state = holding;
        if (state != null)
        {
            holding = null;
            state.releaseHeld();
        }
    }

    /**
     * The current key in {@link StoredKeyLayout}, encoded once per {@link #setCurrentKey}. Task thread.
     *
     * @param stateName the state asking, for messages.
     * @return the encoded current key; valid until the next {@link #setCurrentKey}.
     * @throws IllegalStateException    when there is no current key, or its type differs from the store's keys.
     * @throws IllegalArgumentException when the key encodes to more than the maximum entry size.
     */
    EncodedBytes encodedCurrentKey(final String stateName)
    {
        return keys.encodedCurrentKey(stateName);
    }

    /**
     * {@link StoreKeys#encodeKey}: any key of this store's key type, as a hot-key front writing back needs. Task
     * thread.
     *
     * @param key       a non-null key.
     * @param into      the slot to encode into (not the current key's).
     * @param stateName the state asking, for messages.
     * @return {@code into}, holding the stored key.
     */
    EncodedBytes encodeKey(final Object key, final EncodedBytes into, final String stateName)
    {
        return keys.encodeKey(key, into, stateName);
    }

    private StateMap restoredMap(final StateMeta meta)
    {
        StateMap map = maps.get(meta.name());
        if (map == null)
        {
            map = createMap(meta.name());
        }
        final StateMeta known = map.restoredMeta();
        if (known == null)
        {
            map.restoredMeta(meta);
            if (meta.kind() == StateKind.MAP)
            {
                map.markMapValues();
            }
        }
        else if (!known.equals(meta))
        {
            throw new IllegalStateException("state '" + meta.name() + "' is described differently by two " +
                "snapshots being restored: " + known + " and " + meta);
        }
        return map;
    }

    private StateMap createMap(final String name)
    {
        final StateMap state = mapFactory.create(name, bases.tracking());
        state.limitTrackedChanges(trackedChangesLimit);
        state.releaseHeldLookupsWith(this::releaseHeld);
        if (preservedBytesLimit != Long.MAX_VALUE)
        {
            state.limitPreservedBytes(preservedBytesLimit);
        }
        maps.put(name, state);
        statesChanged();
        return state;
    }

    /**
     * Rebuilds {@link #mapArray}, {@link #stateOfMap} and {@link #declaredArray} after a map or a state came or went.
     */
    private void statesChanged()
    {
        mapArray = maps.values().toArray(new StateMap[0]);
        stateOfMap = new ChronicleState[mapArray.length];
        for (int i = 0; i < mapArray.length; i++)
        {
            stateOfMap[i] = declared.get(mapArray[i].name());
        }
        declaredArray = declared.values().toArray(new ChronicleState[0]);
    }

    /**
     * {@link StateMapFactory#checkEntryCapacity}, for the backend's check when a job is configured.
     *
     * @param config the configuration to check.
     */
    static void checkEntryCapacity(final ChronicleStateConfig config)
    {
        StateMapFactory.checkEntryCapacity(config);
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("this Chronicle keyed state store is closed");
        }
    }

    private static RuntimeException addTo(final RuntimeException first, final RuntimeException next)
    {
        if (first == null)
        {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    @Override
    public String toString()
    {
        return "ChronicleKeyedStateStore{states=" + maps.keySet() + ", keyGroups=" + keyGroups.start() + ".." +
            keyGroups.end() + ", files=" + mapFactory.filesDirectory() + '}';
    }
}
