package io.ringflow.bench;

import io.ringflow.bench.PageViews.AppCount;
import io.ringflow.bench.PageViews.CountPerApp;
import io.ringflow.bench.PageViews.PageView;
import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.DataStream;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.eventtime.WatermarkStrategy;
import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.sink.Sink;
import io.ringflow.engine.api.sink.SinkWriter;
import io.ringflow.engine.api.source.GeneratorSource;
import io.ringflow.engine.api.source.RecordGenerator;
import io.ringflow.engine.api.windowing.WindowAssigner;
import io.ringflow.state.chronicle.ChronicleStateConfig;
import io.ringflow.state.keyed.AggregateFunction;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Event time against the plain page-view count, on the same records, in one run (issue 12's measurements):
 *
 * <ul>
 *   <li>{@code PLAIN_COUNT}: source → keyBy(app) → count per app (a {@code KeyedProcessFunction} with a
 *   {@code LongValueState}) → checking sink: the page-view job.</li>
 *   <li>{@code WATERMARKED_COUNT}: the same with {@code assignTimestampsAndWatermarks} after the source (bounded
 *   out-of-orderness of 1 s, watermarks every 200 ms): every record carries its timestamp across the ring, and
 *   watermarks follow. What event time costs a job that does not use it.</li>
 *   <li>{@code WINDOWED_COUNT}: the same with a one-minute tumbling event-time window counting views per app
 *   ({@code aggregate}) instead of the running count.</li>
 * </ul>
 * View {@code i} is of app {@code i mod keys} at event time {@code i * 60 / 1000} ms, so 10,000,000 views span ten
 * minutes of event time: ten windows, each with a million views.
 *
 * <p><b>Verification.</b> A score counts only if the whole job was done: the plain modes check every count as
 * {@link PageViewThroughputBenchmark} does; the windowed mode checks that the windows' counts add up to the records
 * and that exactly the expected number of windows (app × minute with at least one view) fired, each once.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 5, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 5, timeUnit = TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {
    JvmFlags.XMS, JvmFlags.XMX, JvmFlags.PRE_TOUCH, JvmFlags.NO_CHRONICLE_ANALYTICS, JvmFlags.OPEN_LANG,
    JvmFlags.OPEN_REFLECT, JvmFlags.OPEN_IO, JvmFlags.OPEN_UTIL, JvmFlags.OPEN_NIO, JvmFlags.EXPORT_REF,
    JvmFlags.EXPORT_MISC, JvmFlags.EXPORT_NIO_CH, JvmFlags.EXPORT_SUN_MISC, JvmFlags.EXPORT_JAVAC_FILE,
    JvmFlags.OPEN_JAVAC})
@State(Scope.Benchmark)
public class EventTimeBenchmark
{
    /** Records per invocation unless overridden (with {@code -p records=N -opi N}). */
    public static final int RECORDS = 10_000_000;
    /** Event time between two views, in thousandths of a millisecond. */
    static final long MICROS_PER_VIEW = 60;
    static final long WINDOW_MS = 60_000;

    /** The job. */
    public enum Job
    {
        PLAIN_COUNT, WATERMARKED_COUNT, WINDOWED_COUNT
    }

    /** Which job. */
    @Param({"PLAIN_COUNT", "WATERMARKED_COUNT", "WINDOWED_COUNT"})
    public Job job;

    /** Distinct apps. */
    @Param({"1000", "1000000"})
    public int keys;

    /** Where keyed state lives. */
    @Param({"HEAP", "CHRONICLE"})
    public BackendChoice stateBackend;

    /** Aligned checkpoints every this many ms; 0 for none. */
    @Param({"0", "100"})
    public long checkpointIntervalMs;

    /** Records per invocation; change only together with JMH's {@code -opi}. */
    @Param({"" + RECORDS})
    public long records;

    private JobConfig config;

    /** @param params injected by JMH. */
    @Setup(Level.Trial)
    public void setUp(final BenchmarkParams params)
    {
        BenchSupport.checkOperationsPerInvocation(params, records);
        final JobConfig.Builder builder = JobConfig.builder()
            // a window's state is a map per key (its open windows): about 50 bytes per key, not the default 16
            .stateBackend(stateBackend.create(ChronicleStateConfig.defaults()
                .withExpectedEntriesPerState(Math.max(1_000, keys)).withAverageValueSize(64)));
        if (checkpointIntervalMs > 0)
        {
            builder.checkpointing(CheckpointConfig.every(Duration.ofMillis(checkpointIntervalMs)).build());
        }
        config = builder.build();
    }

    static RecordGenerator<PageView> generator(final int keys)
    {
        return (index, created) -> new PageView(index % keys, index * MICROS_PER_VIEW / 1_000);
    }

    /** @return windows with at least one view: per minute of event time, min(keys, views in that minute). */
    static long expectedWindows(final long records, final int keys)
    {
        final long viewsPerWindow = WINDOW_MS * 1_000 / MICROS_PER_VIEW;
        long windows = 0;
        for (long first = 0; first < records; first += viewsPerWindow)
        {
            windows += Math.min(keys, Math.min(viewsPerWindow, records - first));
        }
        return windows;
    }

    /**
     * Runs one bounded job end to end and verifies its output.
     *
     * @return records processed.
     * @throws Exception when the job failed or its output is wrong.
     */
    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public long eventTimeJob() throws Exception
    {
        final JobEnvironment env = JobEnvironment.create(config);
        final GeneratorSource<PageView> source = GeneratorSource.bounded(records, PageView.class, generator(keys));
        DataStream<PageView> views = env.fromSource(checkpointIntervalMs > 0 ?
            new EndAfterCheckpointSource<>(source, 1) : source, "views").returns(PageView.class);
        if (job != Job.PLAIN_COUNT)
        {
            views = views.assignTimestampsAndWatermarks(
                WatermarkStrategy.<PageView>forBoundedOutOfOrderness(Duration.ofSeconds(1))
                    .withTimestampAssigner((view, previous) -> view.timestamp()));
        }
        if (job == Job.WINDOWED_COUNT)
        {
            final WindowCheckingSink sink = new WindowCheckingSink();
            views.keyBy(PageView::appId)
                .window(WindowAssigner.tumblingEventTime(Duration.ofMillis(WINDOW_MS)))
                .aggregate(new CountViews(), (app, window, count) -> new AppCount(app, count))
                .name("window-count")
                .sinkTo(sink).name("sink");
            runChecked(env);
            sink.verify(records, expectedWindows(records, keys));
        }
        else
        {
            final AppCountCheckingSink sink = new AppCountCheckingSink(keys);
            views.keyBy(PageView::appId).process(CountPerApp::new).name("count").sinkTo(sink).name("sink");
            runChecked(env);
            sink.verify(records);
        }
        return records;
    }

    private void runChecked(final JobEnvironment env) throws Exception
    {
        final int checkpoints = BenchSupport.runToCompletionCountingCheckpoints(env, "event-time-" + job);
        if (checkpointIntervalMs > 0 && checkpoints == 0)
        {
            throw new IllegalStateException("no checkpoint completed during the run");
        }
    }

    /** Counts views: a {@code Long} accumulator, as a user would write it (a box per view above 127). */
    public static final class CountViews implements AggregateFunction<PageView, Long, Long>
    {
        @Override
        public Long createAccumulator()
        {
            return 0L;
        }

        @Override
        public Long add(final PageView value, final Long accumulator)
        {
            return accumulator + 1;
        }

        @Override
        public Long getResult(final Long accumulator)
        {
            return accumulator;
        }

        @Override
        public Long merge(final Long a, final Long b)
        {
            return a + b;
        }
    }

    /** Adds up the windows' counts and counts the windows. */
    static final class WindowCheckingSink implements Sink<AppCount>
    {
        private final LongAdder windows = new LongAdder();
        private final LongAdder views = new LongAdder();

        @Override
        public SinkWriter<AppCount> createWriter(final SubtaskInfo subtask)
        {
            return value ->
            {
                windows.increment();
                views.add(value.count());
            };
        }

        void verify(final long records, final long expectedWindows)
        {
            if (views.sum() != records || windows.sum() != expectedWindows)
            {
                throw new IllegalStateException("windows counted " + views.sum() + " views in " + windows.sum() +
                    " windows; expected " + records + " in " + expectedWindows);
            }
        }
    }
}
