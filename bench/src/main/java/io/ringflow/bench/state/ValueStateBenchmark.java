package io.ringflow.bench.state;

import io.ringflow.bench.JvmFlags;
import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.chronicle.ChronicleKeyedStateStore;
import io.ringflow.state.chronicle.ChronicleStateConfig;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.heap.HeapKeyedStateStore;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.KeyGroups;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;
import io.ringflow.state.snapshot.KeyedStateSnapshot;
import net.openhft.chronicle.core.values.LongValue;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import net.openhft.chronicle.values.Values;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The cost of keyed state, per operation, in ns: the heap store against the Chronicle Map store, with Chronicle Map
 * used raw as the floor; and the synchronous part of a snapshot against the number of entries.
 *
 * <p><b>Increments</b> ({@link #heapIncrement}, {@link #chronicleIncrement}, {@link #chronicleRawIncrement}): one
 * operation is what a keyed counting function does per record. Through a store: {@code setCurrentKey(key)},
 * {@code value()}, {@code update(value + 1)} on a {@code ValueState<Long>} (default 0). Raw: the fastest Chronicle
 * route, {@code acquireUsing(key, value)} with a reused {@code LongValue} key and a {@code LongValue} native reference
 * bound to the entry, then {@code addValue(1)}: no codec, no key group, no copy-on-write check. Keys are
 * {@code Long}s, drawn uniformly from {@code [0, keys)} and boxed once, in a pre-generated cycle of 2^20; every key
 * holds a value before measurement starts, so every operation updates an existing entry. Chronicle maps are in
 * memory, sized for exactly {@code keys} entries. The Chronicle store runs as the engine runs it: with its hot-key
 * front ({@code hotKeys}, default -1: the backend's default, 64 MiB per state, about 2 million keys; 0 turns it
 * off) and with a read's lookup left open for the
 * write that follows ({@code holdLookups}); the fill writes each key once, then the front holds whichever keys it
 * took first, and turns over when it misses more than it hits.
 *
 * <pre>
 *   pre-generated Long[2^20] --next--> setCurrentKey --> value() --> update(+1)     heap / Chronicle store
 *   pre-generated long[2^20] --next--> key.setValue  --> acquireUsing --> addValue  raw Chronicle Map
 * </pre>
 *
 * <p><b>Snapshots</b> ({@link #snapshot}): one operation is {@code snapshot(id)} followed by {@code release()} on a
 * store holding {@code entries} values, with no write in between: the work on the task thread at a barrier. The
 * heap store copies its maps (O(entries), and garbage for the collector, which the score includes); the Chronicle
 * store registers a copy-on-write part per state (O(states)). Nothing is written.
 *
 * <p><b>Written snapshots</b> ({@link #snapshotWritten}): {@code snapshot(id)}, {@code writeTo} a stream that only
 * counts the bytes, then {@code release()}: the whole of what a task thread does at a barrier when it writes a small
 * snapshot into memory itself (see SnapshotFlusher), in the snapshot format, without the storage's copy.
 *
 * <p>Run (a quiet machine; never as part of the build):
 * <pre>
 *   java -jar bench/target/benchmarks.jar ValueStateBenchmark -f 1 -wi 3 -w 5s -i 5 -r 5s \
 *       -rf json -rff bench/results/value-state.json
 * </pre>
 * Setting up 10,000,000 keys takes tens of seconds per trial (the Chronicle store: one insert per key, about 0.5 us
 * each on 2 cores).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 5, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 5, timeUnit = TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {
    JvmFlags.XMS, JvmFlags.XMX, JvmFlags.PRE_TOUCH, JvmFlags.NO_CHRONICLE_ANALYTICS, JvmFlags.OPEN_LANG,
    JvmFlags.OPEN_REFLECT, JvmFlags.OPEN_IO, JvmFlags.OPEN_UTIL, JvmFlags.OPEN_NIO, JvmFlags.EXPORT_REF,
    JvmFlags.EXPORT_MISC, JvmFlags.EXPORT_NIO_CH, JvmFlags.EXPORT_SUN_MISC, JvmFlags.EXPORT_JAVAC_FILE,
    JvmFlags.OPEN_JAVAC})
public class ValueStateBenchmark
{
    /** Length of the pre-generated key cycle; a power of two. */
    static final int SEQUENCE_LENGTH = 1 << 20;
    private static final int SEQUENCE_MASK = SEQUENCE_LENGTH - 1;
    private static final long SEED = 0x5EED_57A7EL;
    private static final KeyGroupRange ALL_GROUPS = new KeyGroupRange(0, KeyGroups.DEFAULT_MAX_PARALLELISM - 1);
    private static final ValueStateDescriptor<Long> COUNTS = new ValueStateDescriptor<>("counts", Long.class, 0L);

    /** The store kinds compared. */
    public enum Backend
    {
        /** {@link HeapKeyedStateStore}. */
        HEAP,
        /** {@link ChronicleKeyedStateStore}, in memory. */
        CHRONICLE
    }

    /** The keys: a seeded uniform cycle over {@code [0, keys)}, boxed once. */
    @State(Scope.Thread)
    public static class Keys
    {
        /** Distinct keys, every one holding a value. */
        @Param({"1000", "10000000"})
        public int keys;

        Long[] sequence;
        int next;

        /** Draws the cycle. */
        @Setup(Level.Trial)
        public void draw()
        {
            final SplittableRandom random = new SplittableRandom(SEED);
            sequence = new Long[SEQUENCE_LENGTH];
            for (int i = 0; i < SEQUENCE_LENGTH; i++)
            {
                sequence[i] = (long)random.nextInt(keys);
            }
        }

        /** @return the next key of the cycle. */
        Long nextKey()
        {
            return sequence[next++ & SEQUENCE_MASK];
        }
    }

    /** A heap store whose {@code counts} state holds every key. */
    @State(Scope.Thread)
    public static class HeapCounts
    {
        KeyedStateStore store;
        ValueState<Long> counts;

        /**
         * @param keys the keys to fill in.
         */
        @Setup(Level.Trial)
        public void fill(final Keys keys)
        {
            store = new HeapKeyedStateStore(CodecRegistry.withBuiltIns(), KeyGroups.DEFAULT_MAX_PARALLELISM,
                ALL_GROUPS);
            counts = store.getValueState(COUNTS);
            fillCounts(store, counts, keys.keys);
        }
    }

    /** A Chronicle store, sized for exactly the keys, whose {@code counts} state holds every key. */
    @State(Scope.Thread)
    public static class ChronicleCounts
    {
        /** Capacity of the hot-key front per value state; 0 turns it off; -1 (the default) sizes it by its budget. */
        @Param({"-1"})
        public int hotKeys;

        /** Whether a read's lookup stays open for the write that follows, as the engine runs the store. */
        @Param({"true"})
        public boolean holdLookups;

        ChronicleKeyedStateStore store;
        ValueState<Long> counts;

        /**
         * @param keys the keys to fill in.
         */
        @Setup(Level.Trial)
        public void fill(final Keys keys)
        {
            store = new ChronicleKeyedStateStore(chronicleConfig(keys.keys).withHotKeysPerState(hotKeys),
                CodecRegistry.withBuiltIns(), KeyGroups.DEFAULT_MAX_PARALLELISM, ALL_GROUPS);
            if (holdLookups)
            {
                store.holdLookups();
            }
            counts = store.getValueState(COUNTS);
            fillCounts(store, counts, keys.keys);
        }

        /** Frees the map. */
        @TearDown(Level.Trial)
        public void close()
        {
            store.close();
        }
    }

    /** A raw Chronicle Map of {@code LongValue} to {@code LongValue} holding every key. */
    @State(Scope.Thread)
    public static class RawCounts
    {
        ChronicleMap<LongValue, LongValue> map;
        LongValue key;
        LongValue value;

        /**
         * @param keys the keys to fill in.
         */
        @Setup(Level.Trial)
        public void fill(final Keys keys)
        {
            System.setProperty("chronicle.analytics.disable", "true");
            map = ChronicleMapBuilder.of(LongValue.class, LongValue.class).entries(keys.keys).create();
            key = Values.newHeapInstance(LongValue.class);
            value = Values.newNativeReference(LongValue.class);
            for (long k = 0; k < keys.keys; k++)
            {
                key.setValue(k);
                map.acquireUsing(key, value);
            }
        }

        /** Frees the map. */
        @TearDown(Level.Trial)
        public void close()
        {
            map.close();
        }
    }

    /** A store of {@code entries} values, for snapshots. */
    @State(Scope.Thread)
    public static class Snapshots
    {
        /** The store kind. */
        @Param({"HEAP", "CHRONICLE"})
        public Backend backend;

        /** Entries held at each barrier. */
        @Param({"1000", "100000", "1000000"})
        public int entries;

        KeyedStateStore store;
        long checkpointId;
        final CountingStream written = new CountingStream();

        /** Builds and fills the store. */
        @Setup(Level.Trial)
        public void fill()
        {
            store = backend == Backend.HEAP ?
                new HeapKeyedStateStore(CodecRegistry.withBuiltIns(), KeyGroups.DEFAULT_MAX_PARALLELISM, ALL_GROUPS) :
                new ChronicleKeyedStateStore(chronicleConfig(entries), CodecRegistry.withBuiltIns(),
                    KeyGroups.DEFAULT_MAX_PARALLELISM, ALL_GROUPS);
            fillCounts(store, store.getValueState(COUNTS), entries);
        }

        /** Frees the store. */
        @TearDown(Level.Trial)
        public void close()
        {
            if (store instanceof ChronicleKeyedStateStore)
            {
                ((ChronicleKeyedStateStore)store).close();
            }
        }
    }

    /**
     * @param keys  the key cycle.
     * @param state the heap store.
     * @return the new count, so the work is not eliminated.
     */
    @Benchmark
    public long heapIncrement(final Keys keys, final HeapCounts state)
    {
        return increment(keys, state.store, state.counts);
    }

    /**
     * @param keys  the key cycle.
     * @param state the Chronicle store.
     * @return the new count, so the work is not eliminated.
     */
    @Benchmark
    public long chronicleIncrement(final Keys keys, final ChronicleCounts state)
    {
        return increment(keys, state.store, state.counts);
    }

    /**
     * @param keys  the key cycle.
     * @param state the raw map.
     * @return the new count, so the work is not eliminated.
     */
    @Benchmark
    public long chronicleRawIncrement(final Keys keys, final RawCounts state)
    {
        state.key.setValue(keys.nextKey());
        return state.map.acquireUsing(state.key, state.value).addValue(1);
    }

    /**
     * @param state the store.
     * @return the snapshot taken (already released), so the work is not eliminated.
     */
    @Benchmark
    public KeyedStateSnapshot snapshot(final Snapshots state)
    {
        final KeyedStateSnapshot snapshot = state.store.snapshot(state.checkpointId++);
        snapshot.release();
        return snapshot;
    }

    private static long increment(final Keys keys, final KeyedStateStore store, final ValueState<Long> counts)
    {
        store.setCurrentKey(keys.nextKey());
        final long next = counts.value() + 1;
        counts.update(next);
        return next;
    }

    /**
     * @param state the store.
     * @return the bytes written, so the work is not eliminated.
     * @throws java.io.IOException never: the stream only counts.
     */
    @Benchmark
    public long snapshotWritten(final Snapshots state) throws java.io.IOException
    {
        final KeyedStateSnapshot snapshot = state.store.snapshot(state.checkpointId++);
        try
        {
            snapshot.writeTo(state.written);
        }
        finally
        {
            snapshot.release();
        }
        return state.written.count;
    }

    /** Counts what is written to it, keeps nothing. */
    static final class CountingStream extends java.io.OutputStream
    {
        long count;

        @Override
        public void write(final int b)
        {
            count++;
        }

        @Override
        public void write(final byte[] bytes, final int offset, final int length)
        {
            count += length;
        }
    }

    private static void fillCounts(final KeyedStateStore store, final ValueState<Long> counts, final int keys)
    {
        for (long key = 0; key < keys; key++)
        {
            store.setCurrentKey(key);
            counts.update(0L);
        }
    }

    private static ChronicleStateConfig chronicleConfig(final int entries)
    {
        return ChronicleStateConfig.defaults().withExpectedEntriesPerState(entries).withAverageValueSize(8);
    }
}
