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
import io.ringflow.state.snapshot.KeyedSnapshotReader;
import io.ringflow.state.snapshot.KeyedStateSnapshot;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * What an asynchronous snapshot costs, outside any job: how fast the flusher writes a snapshot (MB/s of the
 * backend-independent format) and how much a task that keeps updating state slows down while snapshots are flushed
 * on another thread. A plain {@code main}.
 *
 * <p>For each backend and state size: the store is filled with {@code entries} counts ({@code ValueState<Long>},
 * keys 0 .. entries-1). <b>Flush</b>: five times, the calling thread takes a snapshot and another thread writes it to
 * a byte-counting stream; the last snapshot is also read back and must hold exactly {@code entries} entries.
 * <b>Slowdown</b>: the calling thread (the "task") increments random keys for {@code --seconds}, first alone, then
 * while a flusher writes snapshots back to back (the task takes each new snapshot as soon as the previous one is
 * written, as a checkpoint would); reported: increments per second in both phases and their ratio.
 *
 * <pre>
 *   java -Xms2g -Xmx2g -XX:+AlwaysPreTouch $RINGFLOW_FLAGS -cp bench/target/benchmarks.jar \
 *       io.ringflow.bench.state.StateFlushHarness --seconds 3
 * </pre>
 */
public final class StateFlushHarness
{
    private static final ValueStateDescriptor<Long> COUNTS = new ValueStateDescriptor<>("counts", Long.class, 0L);
    private static final KeyGroupRange ALL = new KeyGroupRange(0, KeyGroups.DEFAULT_MAX_PARALLELISM - 1);

    private StateFlushHarness()
    {
    }

    /**
     * @param args {@code --seconds S} (default 3) per slowdown phase, {@code --entries N,M} (default
     *             100000,1000000).
     * @throws Exception when a check fails.
     */
    public static void main(final String[] args) throws Exception
    {
        double seconds = 3;
        int[] sizes = {100_000, 1_000_000};
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--seconds" -> seconds = Double.parseDouble(args[++i]);
                case "--entries" -> sizes = java.util.Arrays.stream(args[++i].split(","))
                    .mapToInt(Integer::parseInt).toArray();
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        run(sizes, seconds, System.out);
    }

    /**
     * @param sizes   state sizes to measure.
     * @param seconds length of each slowdown phase.
     * @param out     where the table goes.
     * @throws Exception when a check fails.
     */
    public static void run(final int[] sizes, final double seconds, final PrintStream out) throws Exception
    {
        out.printf(Locale.ROOT, "%-10s %10s %12s %12s %14s %14s %8s%n", "backend", "entries", "snapshot MB",
            "flush MB/s", "updates/s", "with flushes", "ratio");
        final ExecutorService flusher = Executors.newSingleThreadExecutor(runnable ->
        {
            final Thread thread = new Thread(runnable, "flusher");
            thread.setDaemon(true);
            return thread;
        });
        try
        {
            for (final String backend : new String[] {"HEAP", "CHRONICLE"})
            {
                for (final int entries : sizes)
                {
                    measure(backend, entries, seconds, flusher, out);
                }
            }
        }
        finally
        {
            flusher.shutdownNow();
        }
    }

    private static void measure(final String backend, final int entries, final double seconds,
        final ExecutorService flusher, final PrintStream out) throws Exception
    {
        final KeyedStateStore store = "HEAP".equals(backend) ?
            new HeapKeyedStateStore(CodecRegistry.withBuiltIns(), KeyGroups.DEFAULT_MAX_PARALLELISM, ALL) :
            new ChronicleKeyedStateStore(ChronicleStateConfig.defaults().withExpectedEntriesPerState(entries),
                CodecRegistry.withBuiltIns(), KeyGroups.DEFAULT_MAX_PARALLELISM, ALL);
        try
        {
            final ValueState<Long> counts = store.getValueState(COUNTS);
            for (long key = 0; key < entries; key++)
            {
                store.setCurrentKey(key);
                counts.update(1L);
            }
            store.setCurrentKey(null);

            long bytes = 0;
            long nanos = Long.MAX_VALUE;
            for (int round = 1; round <= 5; round++)
            {
                final KeyedStateSnapshot snapshot = store.snapshot(round);
                final ByteArrayOutputStream kept = round == 5 ? new ByteArrayOutputStream() : null;
                final Future<long[]> written = flusher.submit(() ->
                {
                    final CountingStream sink = new CountingStream(kept);
                    final long start = System.nanoTime();
                    snapshot.writeTo(sink);
                    return new long[] {sink.count, System.nanoTime() - start};
                });
                final long[] result = written.get(10, TimeUnit.MINUTES);
                snapshot.release();
                bytes = result[0];
                nanos = Math.min(nanos, result[1]);
                if (kept != null)
                {
                    checkEntries(kept.toByteArray(), entries);
                }
            }

            final SplittableRandom random = new SplittableRandom(7);
            final double alone = updatesPerSecond(store, counts, entries, seconds, random, null);
            final double withFlushes = updatesPerSecond(store, counts, entries, seconds, random, flusher);
            out.printf(Locale.ROOT, "%-10s %,10d %12.1f %12.1f %,14.0f %,14.0f %8.2f%n", backend, entries,
                bytes / 1e6, bytes / 1e6 / (nanos / 1e9), alone, withFlushes, withFlushes / alone);
        }
        finally
        {
            store.close();
        }
    }

    /** The task's loop: random increments; with a flusher, a new snapshot as soon as the previous one is written. */
    private static double updatesPerSecond(final KeyedStateStore store, final ValueState<Long> counts,
        final int entries, final double seconds, final SplittableRandom random, final ExecutorService flusher)
        throws Exception
    {
        final long end = System.nanoTime() + (long)(seconds * 1e9);
        long updates = 0;
        long snapshotId = 100;
        Future<?> flushing = null;
        KeyedStateSnapshot pending = null;
        long now;
        while ((now = System.nanoTime()) < end)
        {
            for (int i = 0; i < 1_000; i++)
            {
                store.setCurrentKey((long)random.nextInt(entries));
                counts.update(counts.value() + 1);
            }
            updates += 1_000;
            store.setCurrentKey(null);
            if (flusher != null && (flushing == null || flushing.isDone()))
            {
                if (flushing != null)
                {
                    flushing.get();
                    pending.release();
                }
                final KeyedStateSnapshot snapshot = store.snapshot(snapshotId++);
                pending = snapshot;
                flushing = flusher.submit(() ->
                {
                    snapshot.writeTo(OutputStream.nullOutputStream());
                    return null;
                });
            }
        }
        if (flushing != null)
        {
            flushing.get();
            pending.release();
        }
        return updates / ((now - (end - (long)(seconds * 1e9))) / 1e9);
    }

    private static void checkEntries(final byte[] snapshot, final int expected)
    {
        final long[] seen = new long[1];
        final KeyedSnapshotReader reader = KeyedSnapshotReader.open(snapshot, "flushed snapshot");
        reader.read(ALL, (keyGroup, stateIndex, bytes, keyOffset, keyLength, subKeyOffset, subKeyLength, valueOffset,
            valueLength) -> seen[0]++);
        if (seen[0] != expected)
        {
            throw new IllegalStateException("the snapshot holds " + seen[0] + " entries, the store " + expected);
        }
    }

    /** Counts bytes; keeps them when given a buffer. */
    private static final class CountingStream extends OutputStream
    {
        long count;
        private final ByteArrayOutputStream kept;

        CountingStream(final ByteArrayOutputStream kept)
        {
            this.kept = kept;
        }

        @Override
        public void write(final int b)
        {
            count++;
            if (kept != null)
            {
                kept.write(b);
            }
        }

        @Override
        public void write(final byte[] bytes, final int offset, final int length)
        {
            count += length;
            if (kept != null)
            {
                kept.write(bytes, offset, length);
            }
        }
    }
}
