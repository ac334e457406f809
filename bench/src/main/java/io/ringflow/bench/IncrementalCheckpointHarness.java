package io.ringflow.bench;

import io.ringflow.bench.PageViews.CountPerApp;
import io.ringflow.bench.PageViews.PageView;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.IdleStrategyKind;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.source.GeneratorSource;
import io.ringflow.state.checkpoint.DirectoryCheckpointStorage;
import io.ringflow.state.chronicle.ChronicleKeyedStateStore;
import io.ringflow.state.chronicle.ChronicleStateBackend;
import io.ringflow.state.chronicle.ChronicleStateConfig;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.keyed.KeyGroups;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;
import io.ringflow.state.snapshot.KeyedSnapshotChain;
import io.ringflow.state.snapshot.KeyedSnapshotReader;
import io.ringflow.state.snapshot.KeyedStateSnapshot;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * What incremental checkpoints save, in two parts. A plain {@code main}; the machine should be quiet.
 *
 * <p><b>size</b>: the Chronicle store alone, {@code --entries} counts ({@code ValueState<Long>}, keys 0..n-1). For each
 * fraction of keys changed: a full snapshot (the base) is written, then that fraction of the keys, drawn at random,
 * is incremented, and a delta against the base is taken and written. Reported per fraction, medians of
 * {@code --rounds}: the delta's bytes and write time against the full snapshot's, and the synchronous part of each
 * (on the calling thread: the median of 41 deltas and 201 full snapshots taken and released right after the
 * measured delta, once 20,000 of each kind were taken and released so the code is compiled). The
 * deltas are taken whatever the fraction; the engine takes a full snapshot instead when more than a quarter of the
 * keys changed ({@code prefersFullSnapshot}). Each round's base and delta are merged back ({@link KeyedSnapshotChain}) and must hold
 * every key with the sum of the counts.
 *
 * <p><b>job</b>: the page-view job (source at a fixed {@code --rate}, {@code keyBy(appId)}, count in
 * {@code ValueState<Long>} on the Chronicle backend, checking sink), checkpoints every {@code --interval} ms into a
 * directory, for each number of keys, with full then incremental snapshots. The keys are visited round robin, so the
 * keys changed between two checkpoints are {@code rate * interval}, whatever the state's size. Checkpoints are
 * recorded once every key holds a count (after {@code keys / rate} seconds), for {@code --seconds}: end-to-end
 * duration and bytes written per checkpoint (median, p90). The job must finish with exact counts.
 *
 * <pre>
 *   java -Xms2g -Xmx2g -XX:+AlwaysPreTouch $RINGFLOW_FLAGS -cp bench/target/benchmarks.jar \
 *       io.ringflow.bench.IncrementalCheckpointHarness size --entries 1000000 --rounds 5
 *   java ... io.ringflow.bench.IncrementalCheckpointHarness job --keys 10000,100000,1000000 --rate 200000 \
 *       --seconds 10 --interval 100
 * </pre>
 */
public final class IncrementalCheckpointHarness
{
    private static final ValueStateDescriptor<Long> COUNTS = new ValueStateDescriptor<>("counts", Long.class, 0L);
    private static final KeyGroupRange ALL = new KeyGroupRange(0, KeyGroups.DEFAULT_MAX_PARALLELISM - 1);

    private int entries = 1_000_000;
    private double[] fractions = {0.001, 0.01, 0.1, 0.5, 1.0};
    private int rounds = 5;
    private int[] keys = {10_000, 100_000, 1_000_000};
    private long rate = 200_000;
    private double seconds = 10;
    private long intervalMs = 100;

    private IncrementalCheckpointHarness()
    {
    }

    /**
     * @param args {@code size|job|all} then options (see the class documentation).
     * @throws Exception when a check fails.
     */
    public static void main(final String[] args) throws Exception
    {
        run(args, System.out);
    }

    /**
     * @param args as for {@link #main}.
     * @param out  where the tables go.
     * @throws Exception when a check fails.
     */
    public static void run(final String[] args, final PrintStream out) throws Exception
    {
        final IncrementalCheckpointHarness harness = new IncrementalCheckpointHarness();
        final String mode = args.length == 0 ? "all" : args[0];
        for (int i = 1; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--entries" -> harness.entries = Integer.parseInt(args[++i]);
                case "--fractions" -> harness.fractions = Arrays.stream(args[++i].split(","))
                    .mapToDouble(Double::parseDouble).toArray();
                case "--rounds" -> harness.rounds = Integer.parseInt(args[++i]);
                case "--keys" -> harness.keys = Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt)
                    .toArray();
                case "--rate" -> harness.rate = Long.parseLong(args[++i]);
                case "--seconds" -> harness.seconds = Double.parseDouble(args[++i]);
                case "--interval" -> harness.intervalMs = Long.parseLong(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        switch (mode)
        {
            case "size" -> harness.size(out);
            case "job" -> harness.job(out);
            case "all" ->
            {
                harness.size(out);
                harness.job(out);
            }
            default -> throw new IllegalArgumentException("mode must be size, job or all, was " + mode);
        }
    }

    // ------------------------------------------------------------------------------------------------ size

    private void size(final PrintStream out) throws Exception
    {
        out.printf(Locale.ROOT, "delta size against the fraction of %,d keys changed (Chronicle, medians of %d)%n",
            entries, rounds);
        out.printf(Locale.ROOT, "%9s %10s %12s %9s %11s %11s %9s %9s%n", "changed", "keys", "delta bytes",
            "of full", "delta ms", "full ms", "sync us", "full us");
        final SplittableRandom random = new SplittableRandom(11);
        try (ChronicleKeyedStateStore store = new ChronicleKeyedStateStore(
            ChronicleStateConfig.defaults().withExpectedEntriesPerState(entries), CodecRegistry.withBuiltIns(),
            KeyGroups.DEFAULT_MAX_PARALLELISM, ALL))
        {
            store.trackChanges();
            final ValueState<Long> counts = store.getValueState(COUNTS);
            long sum = 0;
            for (long key = 0; key < entries; key++)
            {
                store.setCurrentKey(key);
                counts.update(1L);
                sum++;
            }
            // the synchronous parts are measured once the code is compiled: take and release many snapshots first
            long id = 1;
            for (int i = 0; i < 20_000; i++)
            {
                store.snapshot(id).release();
                store.incrementalSnapshot(id + 1, id).release();
                id += 2;
            }
            for (final double fraction : fractions)
            {
                final long[] deltaBytes = new long[rounds];
                final long[] fullBytes = new long[rounds];
                final long[] deltaNanos = new long[rounds];
                final long[] fullNanos = new long[rounds];
                final long[] deltaSync = new long[rounds];
                final long[] fullSync = new long[rounds];
                long changed = 0;
                for (int round = 0; round < rounds; round++)
                {
                    final long baseId = id++;
                    final KeyedStateSnapshot full = store.snapshot(baseId);
                    long start = System.nanoTime();
                    final byte[] base = write(full);
                    fullNanos[round] = System.nanoTime() - start;
                    fullBytes[round] = base.length;

                    changed = 0;
                    for (long key = 0; key < entries; key++)
                    {
                        if (random.nextDouble() < fraction)
                        {
                            store.setCurrentKey(key);
                            counts.update(counts.value() + 1);
                            changed++;
                            sum++;
                        }
                    }
                    store.setCurrentKey(null);
                    final KeyedStateSnapshot delta = store.incrementalSnapshot(id++, baseId);
                    // synchronous parts: medians of many taken and released now (the changes since the base stay
                    // the same: every later interval is empty)
                    // (fewer deltas than the store keeps possible bases: the base must stay one)
                    final long[] deltaSyncs = new long[41];
                    for (int i = 0; i < deltaSyncs.length; i++)
                    {
                        final long t0 = System.nanoTime();
                        final KeyedStateSnapshot extra = store.incrementalSnapshot(id++, baseId);
                        deltaSyncs[i] = System.nanoTime() - t0;
                        extra.release();
                    }
                    deltaSync[round] = median(deltaSyncs);
                    final long[] syncs = new long[201];
                    for (int i = 0; i < syncs.length; i++)
                    {
                        final long t0 = System.nanoTime();
                        final KeyedStateSnapshot extra = store.snapshot(id++);
                        syncs[i] = System.nanoTime() - t0;
                        extra.release();
                    }
                    fullSync[round] = median(syncs);
                    start = System.nanoTime();
                    final byte[] deltaFile = write(delta);
                    deltaNanos[round] = System.nanoTime() - start;
                    deltaBytes[round] = deltaFile.length;
                    check(base, deltaFile, entries, sum);
                }
                out.printf(Locale.ROOT, "%8.1f%% %,10d %,12d %8.1f%% %11.2f %11.2f %9.1f %9.1f%n", fraction * 100,
                    changed, median(deltaBytes), 100.0 * median(deltaBytes) / median(fullBytes),
                    median(deltaNanos) / 1e6, median(fullNanos) / 1e6, median(deltaSync) / 1e3,
                    median(fullSync) / 1e3);
            }
        }
    }

    private static byte[] write(final KeyedStateSnapshot snapshot) throws IOException
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        try
        {
            snapshot.writeTo(out);
        }
        finally
        {
            snapshot.release();
        }
        return out.toByteArray();
    }

    /** The chain must hold every key, and the counts must add up. */
    private static void check(final byte[] base, final byte[] delta, final int entries, final long sum)
    {
        final KeyedSnapshotReader merged = KeyedSnapshotChain.merge(List.of(
            KeyedSnapshotReader.open(base, "base"), KeyedSnapshotReader.open(delta, "delta")), ALL);
        final long[] seen = new long[2];
        merged.read(ALL, (keyGroup, stateIndex, bytes, keyOffset, keyLength, subKeyOffset, subKeyLength, valueOffset,
            valueLength) ->
        {
            seen[0]++;
            seen[1] += bytes.getLong(valueOffset);
        });
        if (seen[0] != entries || seen[1] != sum)
        {
            throw new IllegalStateException("base and delta merged hold " + seen[0] + " keys summing to " + seen[1] +
                ", the store " + entries + " summing to " + sum);
        }
    }

    // ------------------------------------------------------------------------------------------------ job

    private void job(final PrintStream out) throws Exception
    {
        out.printf(Locale.ROOT, "page-view job, Chronicle backend, %,d views/s, checkpoints every %d ms into a " +
            "directory, %.0f s measured after every key holds a count%n", rate, intervalMs, seconds);
        out.printf(Locale.ROOT, "%10s %12s %7s %11s %11s %13s %13s %13s%n", "keys", "snapshots", "ckpts",
            "e2e p50 ms", "e2e p90 ms", "bytes p50", "bytes p90", "records/s");
        for (final int keyCount : keys)
        {
            for (final boolean incremental : new boolean[] {false, true})
            {
                runJob(keyCount, incremental, out);
            }
        }
    }

    private void runJob(final int keyCount, final boolean incremental, final PrintStream out) throws Exception
    {
        final double fillSeconds = (double)keyCount / rate;
        final long records = (long)((fillSeconds + seconds) * rate);
        final Path dir = Files.createTempDirectory("ringflow-incremental-");
        try
        {
            final JobConfig config = JobConfig.builder()
                .defaultParallelism(1)
                .idleStrategy(IdleStrategyKind.BACKOFF)
                .stateBackend(new ChronicleStateBackend(
                    ChronicleStateConfig.defaults().withExpectedEntriesPerState(Math.max(1_000, keyCount))))
                .checkpointing(CheckpointConfig.every(Duration.ofMillis(intervalMs))
                    .storage(new DirectoryCheckpointStorage(dir)).retained(1).retainOnCancel(false)
                    .incremental(incremental).build())
                .build();
            final AppCountCheckingSink sink = new AppCountCheckingSink(keyCount);
            final JobEnvironment env = JobEnvironment.create(config);
            // the source ends only once five checkpoints were measured: how many complete in the measured window
            // never depends on how fast this machine is
            final java.util.concurrent.atomic.AtomicBoolean enoughMeasured =
                new java.util.concurrent.atomic.AtomicBoolean();
            env.fromSource(new EndAfterCheckpointSource<>(GeneratorSource.bounded(records,
                    PageView.class, PageViews.generator(keyCount)).withRate(rate), 1, enoughMeasured::get), "views")
                .keyBy(PageView::appId)
                .process(CountPerApp::new).name("count")
                .sinkTo(sink).name("sink");
            final Map<Long, CompletedCheckpoint> seen = new LinkedHashMap<>();
            final long start = System.nanoTime();
            final long measureFrom = start + (long)(fillSeconds * 1e9) + 500_000_000L;
            try (JobHandle job = env.execute("incremental-" + keyCount + "-" + incremental))
            {
                while (!job.termination().isDone())
                {
                    if (System.nanoTime() >= measureFrom)
                    {
                        for (final CompletedCheckpoint done : job.completedCheckpoints())
                        {
                            seen.putIfAbsent(done.checkpointId(), done);
                        }
                        enoughMeasured.set(seen.size() >= 5);
                    }
                    Thread.sleep(10);
                }
                final JobStatus status = job.awaitTermination(BenchSupport.JOB_TIMEOUT);
                if (status != JobStatus.FINISHED)
                {
                    throw new IllegalStateException("job ended " + status + ": " + job.failureCause().orElse(null));
                }
            }
            final double elapsed = (System.nanoTime() - start) / 1e9;
            sink.verify(records);
            final List<CompletedCheckpoint> measured = new ArrayList<>(seen.values());
            if (measured.size() < 5)
            {
                throw new IllegalStateException("only " + measured.size() + " checkpoints were measured");
            }
            final long[] durations = measured.stream().mapToLong(CompletedCheckpoint::durationNanos).sorted()
                .toArray();
            final long[] bytes = measured.stream().mapToLong(CompletedCheckpoint::stateSizeBytes).sorted().toArray();
            out.printf(Locale.ROOT, "%,10d %12s %7d %11.1f %11.1f %,13d %,13d %,13.0f%n", keyCount,
                incremental ? "incremental" : "full", measured.size(), percentile(durations, 0.5) / 1e6,
                percentile(durations, 0.9) / 1e6, percentile(bytes, 0.5), percentile(bytes, 0.9),
                records / elapsed);
        }
        finally
        {
            deleteRecursively(dir);
        }
    }

    private static long median(final long[] values)
    {
        final long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static long percentile(final long[] sorted, final double p)
    {
        return sorted[Math.min(sorted.length - 1, (int)Math.floor(p * sorted.length))];
    }

    private static void deleteRecursively(final Path dir) throws IOException
    {
        try (Stream<Path> paths = Files.walk(dir))
        {
            for (final Path path : (Iterable<Path>)paths.sorted(Comparator.reverseOrder())::iterator)
            {
                Files.deleteIfExists(path);
            }
        }
    }
}
