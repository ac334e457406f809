package io.ringflow.bench.state;

import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.chronicle.ChronicleKeyedStateStore;
import io.ringflow.state.chronicle.ChronicleStateConfig;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.heap.HeapKeyedStateStore;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.KeyGroups;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.Arrays;
import java.util.Locale;

/**
 * How much heap keyed state takes, against the number of keys: the heap backend against the Chronicle backend (whose
 * entries are off-heap; on the heap it keeps only its hot-key front, bounded by configuration, and its reusable
 * buffers). A plain {@code main}.
 *
 * <p>For each backend and size: a store is created and {@code keys} counts are written ({@code ValueState<Long>},
 * keys 0..n-1, every key written twice so hot keys are not all that is measured), then the heap in use is read after
 * full collections ({@link MemoryMXBean}, three {@code System.gc()} rounds until it stops falling) and compared with
 * the same reading before the store was created (a first Chronicle store is created and closed before anything is
 * measured: Chronicle's classes and static state are not state). Every key is read back and checked before the store
 * is dropped.
 *
 * <pre>
 *   java -Xms4g -Xmx4g -XX:+AlwaysPreTouch $RINGFLOW_FLAGS -cp bench/target/benchmarks.jar \
 *       io.ringflow.bench.state.StateHeapHarness --keys 100000,1000000,10000000
 * </pre>
 */
public final class StateHeapHarness
{
    private static final ValueStateDescriptor<Long> COUNTS = new ValueStateDescriptor<>("counts", Long.class, 0L);
    private static final KeyGroupRange ALL = new KeyGroupRange(0, KeyGroups.DEFAULT_MAX_PARALLELISM - 1);

    private StateHeapHarness()
    {
    }

    /**
     * @param args {@code --keys N,M,...} (default 100000,1000000,10000000), {@code --backends HEAP,CHRONICLE}.
     * @throws Exception when a check fails.
     */
    public static void main(final String[] args) throws Exception
    {
        int[] keys = {100_000, 1_000_000, 10_000_000};
        String[] backends = {"HEAP", "CHRONICLE"};
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--keys" -> keys = Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
                case "--backends" -> backends = args[++i].split(",");
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        run(keys, backends, System.out);
    }

    /**
     * @param keys     state sizes.
     * @param backends HEAP and/or CHRONICLE.
     * @param out      where the table goes.
     * @throws Exception when a check fails.
     */
    public static void run(final int[] keys, final String[] backends, final PrintStream out) throws Exception
    {
        out.printf(Locale.ROOT, "%-10s %12s %14s %14s%n", "backend", "keys", "heap MB", "bytes/key");
        // the first Chronicle store of a JVM loads Chronicle's classes and static state: not state, so not measured
        try (ChronicleKeyedStateStore warmUp = new ChronicleKeyedStateStore(ChronicleStateConfig.defaults()
            .withExpectedEntriesPerState(1_000), CodecRegistry.withBuiltIns(), KeyGroups.DEFAULT_MAX_PARALLELISM, ALL))
        {
            final ValueState<Long> counts = warmUp.getValueState(COUNTS);
            for (long key = 0; key < 1_000; key++)
            {
                warmUp.setCurrentKey(key);
                counts.update(counts.value() + 1);
            }
        }
        for (final String backend : backends)
        {
            for (final int n : keys)
            {
                final long before = heapAfterGc();
                final KeyedStateStore store = "HEAP".equals(backend) ?
                    new HeapKeyedStateStore(CodecRegistry.withBuiltIns(), KeyGroups.DEFAULT_MAX_PARALLELISM, ALL) :
                    new ChronicleKeyedStateStore(ChronicleStateConfig.defaults().withExpectedEntriesPerState(n),
                        CodecRegistry.withBuiltIns(), KeyGroups.DEFAULT_MAX_PARALLELISM, ALL);
                try
                {
                    final ValueState<Long> counts = store.getValueState(COUNTS);
                    for (int round = 0; round < 2; round++)
                    {
                        for (long key = 0; key < n; key++)
                        {
                            store.setCurrentKey(key);
                            counts.update(counts.value() + 1);
                        }
                    }
                    store.setCurrentKey(null);
                    final long used = heapAfterGc() - before;
                    for (long key = 0; key < n; key++)
                    {
                        store.setCurrentKey(key);
                        if (counts.value() != 2)
                        {
                            throw new IllegalStateException(backend + ": key " + key + " holds " + counts.value());
                        }
                    }
                    out.printf(Locale.ROOT, "%-10s %,12d %14.1f %14.1f%n", backend, n, used / 1e6,
                        (double)used / n);
                }
                finally
                {
                    store.close();
                }
            }
        }
    }

    /** @return heap in use once full collections stop freeing memory (at most three). */
    private static long heapAfterGc()
    {
        final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++)
        {
            System.gc();
            final long now = memory.getHeapMemoryUsage().getUsed();
            if (now >= used)
            {
                return now;
            }
            used = now;
        }
        return used;
    }
}
