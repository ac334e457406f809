package io.ringflow.bench;

import io.ringflow.bench.PageViews.PageView;
import io.ringflow.bench.PageViews.TimedAppCount;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.RestartStrategy;
import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.KeyedProcessFunction;
import io.ringflow.engine.api.functions.RuntimeContext;
import io.ringflow.engine.api.sink.file.CommittedOutput;
import io.ringflow.engine.api.sink.file.RecordEncoder;
import io.ringflow.engine.api.sink.file.TransactionalFileSink;
import io.ringflow.engine.api.source.GeneratorSource;
import io.ringflow.state.chronicle.ChronicleStateConfig;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.keyed.LongValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;
import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * What exactly-once output costs in time, on the page-view job writing every update to the
 * {@link TransactionalFileSink} (default backend and idle strategy, checkpoints to a directory):
 * <ul>
 *   <li><b>visibility</b>: at a fixed rate, a reader thread polls the committed parts every millisecond and records,
 *   for each update, the time from the view's due time to the moment its part was seen committed (readable);</li>
 *   <li><b>recovery</b>: once every key is in a completed checkpoint and the job has settled, the count throws, then
 *   again each time it has settled after the recovery; the time from the throw to the first view counted by the
 *   restarted attempt (restore from the directory included), against the number of keys in state.</li>
 * </ul>
 * Usage: {@code java -cp benchmarks.jar io.ringflow.bench.ExactlyOnceHarness visibility RATE INTERVAL_MS SECONDS} or
 * {@code ... recovery RATE KEYS FAILURES [unaligned] [local] [incremental] [full-every=N] [slices=auto|always|never]} (with a rate above what
 * the job can do, the rings stay full and unaligned checkpoints hold in-flight records; {@code local} turns local
 * recovery on: the restarted attempt reverts the failed attempt's store in place; {@code incremental} takes
 * incremental checkpoints, a full one at least every N, by default {@link CheckpointConfig#DEFAULT_FULL_SNAPSHOT_EVERY};
 * with {@code incremental} the harness also prints every completed checkpoint's id, MB written and seconds).
 * A plain {@code main}: both are distributions over one long run.
 */
public final class ExactlyOnceHarness
{
    private ExactlyOnceHarness()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final PrintStream out = System.out;
        if (args.length == 4 && "visibility".equals(args[0]))
        {
            visibility(Long.parseLong(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]), out);
        }
        else if (args.length >= 4 && "recovery".equals(args[0]) &&
            List.of(args).subList(4, args.length).stream().allMatch(option ->
                Set.of("unaligned", "local", "incremental").contains(option) ||
                option.matches("full-every=\\d+") || option.matches("slices=(auto|always|never)") ||
                option.matches("parallelism=[1-9]\\d*")))
        {
            final List<String> options = List.of(args).subList(4, args.length);
            final int fullEvery = options.stream().filter(option -> option.startsWith("full-every="))
                .mapToInt(option -> Integer.parseInt(option.substring("full-every=".length()))).findFirst()
                .orElse(CheckpointConfig.DEFAULT_FULL_SNAPSHOT_EVERY);
            final int parallelism = options.stream().filter(option -> option.startsWith("parallelism="))
                .mapToInt(option -> Integer.parseInt(option.substring("parallelism=".length()))).findFirst()
                .orElse(1);
            recovery(Long.parseLong(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]),
                options.contains("unaligned"), options.contains("local"), options.contains("incremental"), fullEvery,
                options.stream().filter(option -> option.startsWith("slices=")).map(option ->
                    CheckpointConfig.Slices.valueOf(option.substring("slices=".length()).toUpperCase(Locale.ROOT)))
                    .findFirst().orElse(CheckpointConfig.Slices.AUTO), parallelism, out);
        }
        else
        {
            System.err.println("usage: ExactlyOnceHarness visibility RATE INTERVAL_MS SECONDS | " +
                "recovery RATE KEYS FAILURES [unaligned] [local] [incremental] [full-every=N] [slices=auto|always|never] [parallelism=N]");
            System.exit(2);
        }
    }

    /** Counts per app and emits the count with the view's due time; can be made to throw, and notes its first view. */
    static final class Count extends KeyedProcessFunction<Long, PageView, TimedAppCount>
    {
        private final AtomicBoolean armed;
        private final AtomicLong firstViewNanos;
        /** Set at the first view of the last app: the views go round the apps in order, so every app was counted. */
        private final AtomicBoolean lastAppSeen;
        private final long lastApp;
        private LongValueState count;
        private boolean seenOne;

        Count(final AtomicBoolean armed, final AtomicLong firstViewNanos, final AtomicBoolean lastAppSeen,
            final long lastApp)
        {
            this.armed = armed;
            this.firstViewNanos = firstViewNanos;
            this.lastAppSeen = lastAppSeen;
            this.lastApp = lastApp;
        }

        @Override
        public void open(final RuntimeContext context)
        {
            count = context.getLongState(new ValueStateDescriptor<>("count", Long.class, 0L));
        }

        @Override
        public void processElement(final PageView view, final Context<Long> ctx, final Collector<TimedAppCount> out)
        {
            if (!seenOne)
            {
                seenOne = true;
                firstViewNanos.compareAndSet(0, System.nanoTime());
            }
            if (armed.get() && armed.compareAndSet(true, false))
            {
                throw new IllegalStateException("injected failure");
            }
            if (view.appId() == lastApp && !lastAppSeen.get())
            {
                lastAppSeen.set(true);
            }
            out.collect(new TimedAppCount(view.appId(), count.add(1), view.timestamp()));
        }
    }

    private static JobHandle start(final long rate, final int keys, final int intervalMs, final Path dir,
        final AtomicBoolean armed, final AtomicLong firstView, final boolean unaligned) throws Exception
    {
        return start(rate, keys, intervalMs, dir, armed, firstView, unaligned, false);
    }

    private static JobHandle start(final long rate, final int keys, final int intervalMs, final Path dir,
        final AtomicBoolean armed, final AtomicLong firstView, final boolean unaligned, final boolean local)
        throws Exception
    {
        return start(rate, keys, intervalMs, dir, armed, firstView, unaligned, local, new AtomicBoolean(), false,
            CheckpointConfig.DEFAULT_FULL_SNAPSHOT_EVERY, CheckpointConfig.Slices.AUTO, 1);
    }

    private static JobHandle start(final long rate, final int keys, final int intervalMs, final Path dir,
        final AtomicBoolean armed, final AtomicLong firstView, final boolean unaligned, final boolean local,
        final AtomicBoolean lastAppSeen, final boolean incremental, final int fullEvery,
        final CheckpointConfig.Slices slices, final int parallelism)
        throws Exception
    {
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder()
            .stateBackend(BackendChoice.CHRONICLE.create(ChronicleStateConfig.defaults()
                .withExpectedEntriesPerState(Math.max(1_000, keys))))
            .checkpointing(CheckpointConfig.every(Duration.ofMillis(intervalMs)).directory(dir.resolve("checkpoints"))
                .unaligned(unaligned).localRecovery(local).incremental(incremental).fullSnapshotEvery(fullEvery)
                .slices(slices).build())
            .restartStrategy(RestartStrategy.fixedDelay(1_000, Duration.ZERO))
            .build());
        env.fromSource(GeneratorSource.unbounded(PageView.class, PageViews.generator(keys)).withRate(rate), "views")
            .keyBy(PageView::appId)
            .process(() -> new Count(armed, firstView, lastAppSeen, keys - 1)).name("count")
            .setParallelism(parallelism)
            .sinkTo(TransactionalFileSink.forRecords(dir.resolve("out"),
                RecordEncoder.lengthPrefixed(TimedAppCount.class)).build()).name("file").setParallelism(parallelism);
        return env.execute("exactly-once-harness");
    }

    static void visibility(final long rate, final int intervalMs, final int seconds, final PrintStream out)
        throws Exception
    {
        final Path dir = Files.createTempDirectory("ringflow-visibility");
        final Histogram visible = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        final Codec<TimedAppCount> codec = CodecRegistry.withBuiltIns().codecFor(TimedAppCount.class);
        final JobHandle job = start(rate, 1_000, intervalMs, dir, new AtomicBoolean(), new AtomicLong(), false);
        final Set<Path> read = new HashSet<>();
        final long warmUpEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        final long end = warmUpEnd + TimeUnit.SECONDS.toNanos(seconds);
        long updates = 0;
        while (System.nanoTime() < end)
        {
            final Path output = dir.resolve("out");
            final List<Path> parts = Files.isDirectory(output) ? CommittedOutput.parts(output) : List.of();
            final long seenNanos = System.nanoTime();
            for (final Path part : parts)
            {
                if (read.add(part))
                {
                    final long[] counted = new long[1];
                    CommittedOutput.forEachRecordOf(part, codec, update ->
                    {
                        if (update.timestamp() >= warmUpEnd)
                        {
                            visible.recordValue(Math.max(0, seenNanos - update.timestamp()));
                            counted[0]++;
                        }
                    });
                    updates += counted[0];
                }
            }
            Thread.sleep(1);
        }
        job.cancel();
        job.termination().get(1, TimeUnit.MINUTES);
        job.close();
        out.printf(Locale.ROOT, "visibility, %,d views/s, checkpoints every %d ms, %d s after a 5 s warm-up: " +
                "%,d updates; due time to committed and seen, ms: p50 %.1f  p90 %.1f  p99 %.1f  max %.1f%n", rate,
            intervalMs, seconds, updates, visible.getValueAtPercentile(50) / 1e6,
            visible.getValueAtPercentile(90) / 1e6, visible.getValueAtPercentile(99) / 1e6,
            visible.getMaxValue() / 1e6);
        delete(dir);
    }

    /**
     * How long the job runs before each failure once its state holds every key: long enough that checkpoints are back
     * to their steady interval after the growth or the previous recovery, so that a failure finds what a failure in a
     * steady job finds (the changes of about one checkpoint interval), not a backlog.
     */
    private static final long SETTLE_MILLIS = 10_000;

    static void recovery(final long rate, final int keys, final int failures, final boolean unaligned,
        final boolean local, final boolean incremental, final int fullEvery, final CheckpointConfig.Slices slices,
        final int parallelism, final PrintStream out) throws Exception
    {
        final Path dir = Files.createTempDirectory("ringflow-recovery");
        final AtomicBoolean armed = new AtomicBoolean();
        final AtomicLong firstView = new AtomicLong();
        final AtomicBoolean lastAppSeen = new AtomicBoolean();
        final JobHandle job = start(rate, keys, 100, dir, armed, firstView, unaligned, local, lastAppSeen,
            incremental, fullEvery, slices, parallelism);
        final List<String> completed = java.util.Collections.synchronizedList(new ArrayList<>());
        job.onCheckpointCompleted(checkpoint -> completed.add(String.format(Locale.ROOT, "%d:%.0f:%.1f",
            checkpoint.checkpointId(), checkpoint.stateSizeBytes() / 1e6, checkpoint.durationNanos() / 1e9)));
        // every key in a completed checkpoint before the first failure: the views go round the keys in order, but the
        // job may count them slower than the rate offered, so wait for the last key's first view, then for a checkpoint
        // triggered after it; and at least 5 s
        final long startedAt = System.nanoTime();
        Thread.sleep(TimeUnit.SECONDS.toMillis(5));
        final long allKeysDeadline = startedAt + TimeUnit.MINUTES.toNanos(10);
        while (!lastAppSeen.get() && System.nanoTime() < allKeysDeadline)
        {
            Thread.sleep(10);
        }
        final long checkpointsThen = job.mxBean().getCompletedCheckpoints();
        while (job.mxBean().getCompletedCheckpoints() < checkpointsThen + 2 && System.nanoTime() < allKeysDeadline)
        {
            Thread.sleep(10);
        }
        if (job.mxBean().getCompletedCheckpoints() < checkpointsThen + 2)
        {
            throw new IllegalStateException("after 10 minutes not every one of the " + keys + " keys was in a " +
                "completed checkpoint");
        }
        // the state no longer grows: let the checkpoints settle (a large state's first ones are long) before failing
        Thread.sleep(SETTLE_MILLIS);
        out.printf(Locale.ROOT, "all %,d keys in the last checkpoint after %.1f s%n", keys,
            (System.nanoTime() - startedAt) / 1e9);
        final List<Long> recoveries = new ArrayList<>();
        long keysRewrittenSoFar = 0;
        long stateBytes = 0;
        long inFlightBytes = 0;
        for (int f = 0; f < failures; f++)
        {
            final long restartsBefore = job.mxBean().getRestartCount();
            stateBytes = job.mxBean().getLastCheckpointStateBytes();
            inFlightBytes = job.mxBean().getLastCheckpointInFlightBytes();
            out.printf(Locale.ROOT, "failure %d; the last completed checkpoint: %s%n", f + 1,
                job.mxBean().getLastCheckpointSummary());
            firstView.set(0);
            final long failedAt = System.nanoTime();
            armed.set(true);
            final long deadline = failedAt + TimeUnit.MINUTES.toNanos(2);
            while ((job.mxBean().getRestartCount() == restartsBefore || firstView.get() == 0 ||
                firstView.get() < failedAt) && System.nanoTime() < deadline)
            {
                Thread.sleep(1);
            }
            recoveries.add(firstView.get() - failedAt);
            final long keysBefore = keysRewrittenSoFar;
            keysRewrittenSoFar = job.mxBean().getLocallyRecoveredKeys();
            out.printf(Locale.ROOT, "failure %d: %.0f ms to the first view counted again%s%n", f + 1,
                (firstView.get() - failedAt) / 1e6, local ? String.format(Locale.ROOT, ", %,d keys rewritten",
                    keysRewrittenSoFar - keysBefore) : "");
            Thread.sleep(SETTLE_MILLIS);
        }
        if (incremental)
        {
            // which checkpoints were deltas: id, MB written and seconds taken by each completed one, in order
            out.printf(Locale.ROOT, "completed checkpoints (id:MB:s): %s%n", String.join(" ", completed));
        }
        final long storesReverted = job.mxBean().getLocallyRecoveredStores();
        final long keysRewritten = job.mxBean().getLocallyRecoveredKeys();
        job.cancel();
        job.termination().get(1, TimeUnit.MINUTES);
        job.close();
        final long updates = checkExactlyOnce(dir.resolve("out"), keys);
        recoveries.sort(Comparator.naturalOrder());
        out.printf(Locale.ROOT, "committed output checked: %,d updates, every app's counts 1, 2, 3, ... with no gap " +
            "or repeat%n", updates);
        out.printf(Locale.ROOT, "recovery, %s%s, %,d keys (%,d B of state and %,d B in flight in the last " +
                "checkpoint), %,d views/s, %d failures: failure to first view counted again, ms: median %.1f  " +
                "min %.1f  max %.1f  all %s%n", (unaligned ? "unaligned" : "aligned") +
                (incremental ? ", incremental, full every " + fullEvery + ", slices " + slices : "") +
                (parallelism == 1 ? "" : ", counted at parallelism " + parallelism), local ? String.format(Locale.ROOT,
                ", local recovery (%d stores reverted, %,d keys rewritten)", storesReverted, keysRewritten) : "",
            keys, stateBytes, inFlightBytes,
            rate, failures, recoveries.get(recoveries.size() / 2) / 1e6, recoveries.get(0) / 1e6,
            recoveries.get(recoveries.size() - 1) / 1e6,
            recoveries.stream().map(n -> String.format(Locale.ROOT, "%.0f", n / 1e6)).toList());
        delete(dir);
    }

    /**
     * Reads the committed output in commit order and checks that each app's counts are exactly 1, 2, 3, ...: every
     * view counted once across the failures, nothing lost, nothing repeated.
     *
     * @return the updates read.
     * @throws IllegalStateException naming the first app whose counts skip or repeat.
     */
    private static long checkExactlyOnce(final Path output, final int keys) throws java.io.IOException
    {
        final Codec<TimedAppCount> codec = CodecRegistry.withBuiltIns().codecFor(TimedAppCount.class);
        final long[] last = new long[keys];
        final long[] updates = new long[1];
        for (final Path part : CommittedOutput.parts(output))
        {
            CommittedOutput.forEachRecordOf(part, codec, update ->
            {
                final int app = (int)update.appId();
                if (update.count() != last[app] + 1)
                {
                    throw new IllegalStateException("app " + app + " counted " + update.count() + " after " +
                        last[app] + " in " + part + ": the output is not exactly-once");
                }
                last[app] = update.count();
                updates[0]++;
            });
        }
        if (updates[0] == 0)
        {
            throw new IllegalStateException("no committed output in " + output);
        }
        return updates[0];
    }

    private static void delete(final Path dir) throws java.io.IOException
    {
        try (Stream<Path> files = Files.walk(dir))
        {
            for (final Path file : files.sorted(Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(file);
            }
        }
    }
}
