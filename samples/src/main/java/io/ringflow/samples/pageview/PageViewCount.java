package io.ringflow.samples.pageview;

import io.ringflow.engine.api.DataStream;
import io.ringflow.engine.api.IdleStrategyKind;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.sink.file.RecordEncoder;
import io.ringflow.engine.api.sink.file.TransactionalFileSink;
import io.ringflow.engine.api.source.GeneratorSource;
import io.ringflow.engine.api.source.RecordGenerator;
import org.HdrHistogram.Histogram;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The page-view count of Flink's classic fault-tolerance article, as a Ringflow job:
 *
 * <pre>{@code
 * GeneratorSource<PageView>  --keyBy(appId)-->  CountPerApp (ValueState<Long>)  -->  sink
 * }</pre>
 *
 * <p>View {@code i} belongs to application {@link #appOf appOf(i, apps)} and carries the time it was generated; the
 * sink measures end-to-end latency from it and keeps the last count per application, which
 * {@link #result()} compares with the views generated per application. Source, count and sink all run at
 * {@link Options#parallelism()}; the count and the sink are chained into one task.
 *
 * <pre>{@code
 * PageViewCount.Options options = PageViewCount.Options.defaults().withEvents(200_000);
 * JobEnvironment env = JobEnvironment.create(PageViewCount.jobConfig(options));
 * PageViewCount job = PageViewCount.build(env, options);
 * try (JobHandle handle = env.execute(PageViewCount.JOB_NAME))
 * {
 *     handle.awaitTermination(Duration.ofMinutes(1));
 * }
 * assert job.result().verified();
 * }</pre>
 *
 * <p>Thread-safety: {@link #recordsReceived()}, {@link #requestStop()} and {@link #stopRequested()} may be called
 * from any thread, {@link #takeIntervalLatencies} from one thread at a time, {@link #result()} once the job has
 * terminated.
 */
public final class PageViewCount
{
    /** The uid of the source: its positions are the views emitted, per subtask. */
    public static final String SOURCE_UID = "page-views";
    /** The uid of the keyed count operator. */
    public static final String COUNT_UID = "count-per-app";
    /** The name of the count operator's per-app {@code ValueState<Long>}. */
    public static final String COUNT_STATE = "count";

    /** The uid of the map that injects failures, present only when failures are planned. */
    public static final String FAULTS_UID = "inject-failures";
    /** The uid of the exactly-once file sink, present only with an output directory. */
    public static final String OUTPUT_UID = "exactly-once-output";

    /** The job name used by the samples. */
    public static final String JOB_NAME = "page-view-count";
    /** The most discrepancies {@link #result()} lists: at tens of millions of apps, all of them could fill the heap. */
    public static final int MAX_MISMATCHES = 10_000;

    private final Options options;
    private final StoppableSource<PageView> source;
    private final PageViewSink sink;

    private PageViewCount(final Options options, final StoppableSource<PageView> source, final PageViewSink sink)
    {
        this.options = options;
        this.source = source;
        this.sink = sink;
    }

    /**
     * What to run.
     *
     * @param events       views to generate in all, or {@link #UNBOUNDED} to generate until {@link #requestStop()}.
     * @param apps         the number of applications, at least 1; ids are {@code 0 .. apps - 1}.
     * @param rate         views per second offered by all source subtasks together, or 0 for as fast as possible.
     * @param parallelism  subtasks of the source, of the count and of the sink, at least 1.
     * @param idleStrategy how idle task threads wait; used by {@link #jobConfig}.
     * @param tablesDirectory where the per-app tables of the sink and of {@link #result()} are memory-mapped when
     *                     there are more than {@link LongColumn#ON_HEAP_UP_TO} apps, or null for the JVM's temporary
     *                     directory.
     */
    public record Options(long events, int apps, long rate, int parallelism, IdleStrategyKind idleStrategy,
        Path tablesDirectory)
    {
        /** The {@link #events()} value that means: generate until stopped. */
        public static final long UNBOUNDED = 0;

        /**
         * @throws IllegalArgumentException naming the first invalid option.
         */
        public Options
        {
            if (events < 0)
            {
                throw new IllegalArgumentException("events must be >= 0 (0 = unbounded), was " + events);
            }
            if (apps < 1 || apps > LongColumn.MAX_LENGTH)
            {
                throw new IllegalArgumentException("apps must be in [1, " + LongColumn.MAX_LENGTH + "], was " + apps);
            }
            if (rate < 0)
            {
                throw new IllegalArgumentException("rate must be >= 0 (0 = as fast as possible), was " + rate);
            }
            if (parallelism < 1)
            {
                throw new IllegalArgumentException("parallelism must be >= 1, was " + parallelism);
            }
            Objects.requireNonNull(idleStrategy, "idleStrategy");
        }

        /**
         * @return 50,000,000 views over 1,000 applications, as fast as possible, parallelism 1, BACKOFF, tables in
         *     the temporary directory.
         */
        public static Options defaults()
        {
            return new Options(50_000_000L, 1_000, 0, 1, IdleStrategyKind.BACKOFF, null);
        }

        /** @return whether views are generated until stopped. */
        public boolean unbounded()
        {
            return events == UNBOUNDED;
        }

        /** @param value see {@link #events()}. @return a copy with that value. */
        public Options withEvents(final long value)
        {
            return new Options(value, apps, rate, parallelism, idleStrategy, tablesDirectory);
        }

        /** @param value see {@link #apps()}. @return a copy with that value. */
        public Options withApps(final int value)
        {
            return new Options(events, value, rate, parallelism, idleStrategy, tablesDirectory);
        }

        /** @param value see {@link #rate()}. @return a copy with that value. */
        public Options withRate(final long value)
        {
            return new Options(events, apps, value, parallelism, idleStrategy, tablesDirectory);
        }

        /** @param value see {@link #parallelism()}. @return a copy with that value. */
        public Options withParallelism(final int value)
        {
            return new Options(events, apps, rate, value, idleStrategy, tablesDirectory);
        }

        /** @param value see {@link #idleStrategy()}. @return a copy with that value. */
        public Options withIdleStrategy(final IdleStrategyKind value)
        {
            return new Options(events, apps, rate, parallelism, value, tablesDirectory);
        }

        /** @param value see {@link #tablesDirectory()}. @return a copy with that value. */
        public Options withTablesDirectory(final Path value)
        {
            return new Options(events, apps, rate, parallelism, idleStrategy, value);
        }
    }

    /**
     * The outcome of a finished run: what was generated against what the sink saw, per application.
     *
     * @param generated      views generated in all.
     * @param received       updates received by the sink in all.
     * @param expectedCounts by application id: views generated, recomputed from {@link #appOf}.
     * @param counts         by application id: the count of the last update the sink received (0 when none).
     * @param updates        by application id: updates the sink received.
     *                       The three columns are memory-mapped beyond {@link LongColumn#ON_HEAP_UP_TO} apps.
     * @param mismatches     one line per discrepancy, at most {@link #MAX_MISMATCHES}; empty when verified.
     */
    public record Result(
        long generated,
        long received,
        LongColumn expectedCounts,
        LongColumn counts,
        LongColumn updates,
        List<String> mismatches)
    {
        /** @return whether every application's count and number of updates equal the views generated for it. */
        public boolean verified()
        {
            return mismatches.isEmpty();
        }
    }

    /**
     * @param options what to run.
     * @return the settings of an environment for this job: the options' parallelism as the default, and their idle
     *     strategy.
     */
    public static JobConfig jobConfig(final Options options)
    {
        return JobConfig.builder()
            .defaultParallelism(options.parallelism())
            .idleStrategy(options.idleStrategy())
            .build();
    }

    /**
     * Describes the job on {@code env}: source, keyBy, count and sink, each at the options' parallelism. The idle
     * strategy is the environment's (see {@link #jobConfig}). Execute the environment to run it.
     *
     * @param env     where to describe the job; not yet executed.
     * @param options what to run.
     * @return the job's controls and results.
     */
    public static PageViewCount build(final JobEnvironment env, final Options options)
    {
        return build(env, options, null, FaultPlan.none());
    }

    /**
     * As {@link #build(JobEnvironment, Options)}, with exactly-once output and injected failures.
     *
     * @param env     where to describe the job; not yet executed.
     * @param options what to run.
     * @param output  a directory for the exactly-once output: every {@link AppCount} update, committed with the
     *                checkpoints by a {@link TransactionalFileSink} (length-prefixed records, read back with
     *                {@link OutputVerifier}); or null for none.
     * @param faults  failures to inject before the count.
     * @return the job's controls and results.
     */
    public static PageViewCount build(final JobEnvironment env, final Options options, final Path output,
        final FaultPlan faults)
    {
        Objects.requireNonNull(env, "env");
        Objects.requireNonNull(faults, "faults");
        Objects.requireNonNull(options, "options");
        final int apps = options.apps();
        final RecordGenerator<PageView> generator = (index, creationNanos) ->
            new PageView(appOf(index, apps), creationNanos);
        GeneratorSource<PageView> generated = options.unbounded() ?
            GeneratorSource.unbounded(PageView.class, generator) :
            GeneratorSource.bounded(options.events(), PageView.class, generator);
        if (options.rate() > 0)
        {
            generated = generated.withRate(options.rate());
        }
        final StoppableSource<PageView> source = new StoppableSource<>(generated);
        final PageViewSink sink = new PageViewSink(apps, options.tablesDirectory());

        DataStream<PageView> views = env.fromSource(source, SOURCE_UID).uid(SOURCE_UID)
            .setParallelism(options.parallelism());
        if (faults.any())
        {
            views = views.map(faults.injector()).returns(PageView.class).name(FAULTS_UID).uid(FAULTS_UID)
                .setParallelism(options.parallelism());
        }
        final DataStream<AppCount> counts = views
            .keyBy(PageView::appId)
            .process(CountPerApp::new).name(COUNT_UID).uid(COUNT_UID)
            .setParallelism(options.parallelism());
        counts.sinkTo(sink).name("latency-and-totals").uid("latency-and-totals").setParallelism(options.parallelism());
        if (output != null)
        {
            counts.sinkTo(TransactionalFileSink.forRecords(output, RecordEncoder.lengthPrefixed(AppCount.class))
                .build()).name(OUTPUT_UID).uid(OUTPUT_UID).setParallelism(options.parallelism());
        }
        return new PageViewCount(options, source, sink);
    }

    /**
     * The application of view {@code index}: {@code index % apps}. {@link #expectedCounts} relies on the result
     * depending on {@code index mod apps} only.
     *
     * @param index the view's global index, from 0.
     * @param apps  the number of applications.
     * @return the application id, in {@code [0, apps)}.
     */
    public static long appOf(final long index, final int apps)
    {
        return index % apps;
    }

    /**
     * The views per application generated by a {@link GeneratorSource} whose subtask {@code s} of {@code p} emitted
     * {@code emitted[s]} records, that is the indices {@code s, s + p, ..., s + (emitted[s] - 1) p}. Takes
     * {@code O(p * apps)} steps however many views there were: {@code appOf(s + k p)} repeats with a period in
     * {@code k} that divides {@code apps}.
     *
     * @param apps    the number of applications.
     * @param emitted records emitted by each source subtask; its length is the source's parallelism.
     * @return by application id, the views generated.
     */
    public static long[] expectedCounts(final int apps, final long[] emitted)
    {
        final long[] counts = new long[apps];
        addExpectedCounts(emitted, LongColumn.wrap(counts));
        return counts;
    }

    /**
     * As {@link #expectedCounts(int, long[])}, into a column of {@code apps} values.
     *
     * @param emitted records emitted by each source subtask; its length is the source's parallelism.
     * @param counts  by application id, receives the views generated (added to what it holds); its length is the
     *                number of applications.
     */
    static void addExpectedCounts(final long[] emitted, final LongColumn counts)
    {
        final int apps = counts.length();
        final int parallelism = emitted.length;
        for (int subtask = 0; subtask < parallelism; subtask++)
        {
            final long n = emitted[subtask];
            final long full = n / apps;
            final long rest = n % apps;
            final long steps = Math.min(n, apps);
            for (long k = 0; k < steps; k++)
            {
                counts.add((int)appOf(subtask + k * parallelism, apps), full + (k < rest ? 1 : 0));
            }
        }
    }

    /** @return what this job runs. */
    public Options options()
    {
        return options;
    }

    /** @return updates received by the sink so far; exact once the job has terminated. Any thread. */
    public long recordsReceived()
    {
        return sink.recordsReceived();
    }

    /**
     * Adds the end-to-end latencies (nanoseconds) recorded since the previous call to {@code into}; the first call
     * gets everything recorded so far. One thread at a time; never blocks the job.
     *
     * @param into receives the latencies; should auto-resize ({@code new Histogram(3)}).
     */
    public void takeIntervalLatencies(final Histogram into)
    {
        sink.takeIntervalLatencies(into);
    }

    /**
     * Ends the sources gracefully: each source subtask stops generating at its next poll and the job finishes after
     * the views already generated have been counted, so {@link #result()} can still verify. Idempotent; any thread.
     */
    public void requestStop()
    {
        source.requestStop();
    }

    /** @return whether {@link #requestStop()} was called. */
    public boolean stopRequested()
    {
        return source.stopRequested();
    }

    /**
     * Compares, per application, the views generated (recomputed with {@link #expectedCounts}) with the last count
     * the sink received and with the number of updates it received; also checks that every application reached one
     * sink subtask only.
     *
     * @return the outcome.
     * @throws IllegalStateException when the job has not finished: a source or sink subtask has not ended (the job
     *                               is still running, failed or was cancelled).
     */
    public Result result()
    {
        return result(false);
    }

    /**
     * As {@link #result()}; for a run restored from a checkpoint, only final counts can be checked: the counts before
     * the checkpoint came back with the state, so the sink saw only the updates after it. Every application that
     * received an update must then have reached exactly its generated total.
     *
     * @param restored whether the run started from a checkpoint.
     * @return the outcome.
     */
    public Result result(final boolean restored)
    {
        return result(restored, false);
    }

    /**
     * As {@link #result(boolean)}; when records may have been replayed into the sink (the job restarted after a
     * failure: this in-memory sink is at-least-once), updates may be repeated, so only each application's final count
     * is checked. Exactly-once is checked on the file output instead ({@link OutputVerifier}).
     *
     * @param restored whether the run started from a checkpoint.
     * @param replayed whether the job may have restarted within this run.
     * @return the outcome.
     */
    public Result result(final boolean restored, final boolean replayed)
    {
        final long[] emitted = source.endPositions();
        if (emitted == null)
        {
            throw new IllegalStateException("not every source subtask has ended its input; the job has not finished");
        }
        final List<PageViewSink.SubtaskTotals> totals = sink.subtaskTotals();
        final int sinkParallelism = totals.isEmpty() ? 0 : totals.get(0).parallelism();
        // a restarted job closes each sink subtask once per attempt: every subtask index must have closed
        if (totals.isEmpty() || totals.stream().mapToInt(PageViewSink.SubtaskTotals::subtask).distinct().count() !=
            sinkParallelism)
        {
            throw new IllegalStateException("only " + totals.size() + " of " + sinkParallelism +
                " sink subtasks have closed; the job has not finished");
        }

        final int apps = options.apps();
        final Path tables = options.tablesDirectory();
        final LongColumn expected = LongColumn.forLength(apps, tables);
        addExpectedCounts(emitted, expected);
        final LongColumn counts = LongColumn.forLength(apps, tables);
        final LongColumn updates = LongColumn.forLength(apps, tables);
        long received = 0;
        for (final PageViewSink.SubtaskTotals subtask : totals)
        {
            received += subtask.received();
        }
        final List<String> mismatches = new ArrayList<>();
        for (int app = 0; app < apps; app++)
        {
            // every subtask that saw the app; a restarted job closes each subtask once per attempt
            int owner = -1;
            boolean split = false;
            long count = 0;
            long updated = 0;
            for (final PageViewSink.SubtaskTotals subtask : totals)
            {
                final long subtaskUpdates = subtask.updates().get(app);
                if (subtaskUpdates > 0)
                {
                    split |= owner >= 0 && owner != subtask.subtask();
                    owner = subtask.subtask();
                    count = Math.max(count, subtask.lastCounts().get(app));
                    updated += subtaskUpdates;
                }
            }
            counts.set(app, count);
            updates.set(app, updated);
            final long generated = expected.get(app);
            final boolean updatesWrong = !replayed && (restored ? updated > generated : updated != generated);
            final boolean countWrong = restored ? updated > 0 && count != generated : count != generated;
            if ((countWrong || updatesWrong || split) && mismatches.size() < MAX_MISMATCHES)
            {
                mismatches.add(String.format(
                    "app %d: generated %,d, final count %,d, updates received %,d%s", app, generated, count,
                    updated, split ? ", split over several sink subtasks" : ""));
            }
        }
        final long generated = Arrays.stream(emitted).sum();
        if (!restored && !replayed && received != generated && mismatches.isEmpty())
        {
            mismatches.add(String.format("generated %,d views but the sink received %,d updates", generated, received));
        }
        return new Result(generated, received, expected, counts, updates, List.copyOf(mismatches));
    }
}
