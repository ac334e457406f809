package io.ringflow.bench.peers;

import io.ringflow.samples.pageview.AppCount;
import io.ringflow.samples.pageview.PageView;
import io.ringflow.samples.pageview.PageViewCount;
import org.HdrHistogram.Histogram;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The page-view job on Apache Flink (DataStream API), in a MiniCluster in this JVM, as a user would write it:
 *
 * <pre>{@code
 * DataGeneratorSource<PageView>  --keyBy(appId)-->  CountPerApp (KeyedProcessFunction, ValueState<Long>)  -->  sink
 *    (task 1)                        (network shuffle, in-JVM)        (task 2: count and sink chained)
 * }</pre>
 *
 * <ul>
 *   <li>Source: Flink's {@link DataGeneratorSource} over the indices {@code 0 .. N-1} (split into contiguous ranges,
 *   one per source subtask); view {@code i} is {@code PageView(i % apps, stamp)}, {@code stamp} being
 *   {@link System#nanoTime()} when the view is made or, at a fixed rate, when it was due (see {@link ViewPacer}; the
 *   function waits for that time itself, so no Flink rate limiter is used).</li>
 *   <li>Count: {@code keyBy(appId)}, a {@link KeyedProcessFunction} keeping the count in {@code ValueState<Long>}
 *   and emitting {@code AppCount(appId, count, stamp)}.</li>
 *   <li>Sink: a Sink v2 writer that records every record's latency and keeps the totals ({@link RunTally}).</li>
 * </ul>
 *
 * <p>Settings: streaming mode; aligned exactly-once checkpoints every MS ms (unaligned off), state in
 * HashMapStateBackend (or EmbeddedRocksDBStateBackend), checkpoint storage in the JobManager's memory (or a
 * directory, {@code --flink-checkpoint-dir}); no restarts
 * (a failure fails the run); everything else at Flink's defaults (object reuse off, buffer timeout 100 ms, ...).
 * The MiniCluster binds only to 127.0.0.1 (REST on a free port), so nothing listens beyond loopback.
 *
 * <p>Checkpoints are confirmed by {@link CheckpointListener#notifyCheckpointComplete} on subtask 0 of the count,
 * counting increasing ids (Flink may skip a notification when a newer checkpoint completes first, so this is a
 * lower bound).
 *
 * <p>Threads: {@link #start()} and the monitor methods run on the monitor thread; the functions run on Flink's task
 * threads and reach the monitor only through the run's {@link RunTally}.
 */
public final class FlinkPageView implements PeerJob
{
    private static final String LOOPBACK = "127.0.0.1";

    private final RunOptions options;
    private final String runId = "flink-" + UUID.randomUUID();
    private final RunTally tally;
    private JobClient client;
    private CompletableFuture<?> termination;

    /**
     * @param options what to run.
     */
    public FlinkPageView(final RunOptions options)
    {
        this.options = options;
        this.tally = RunTally.create(runId, options.apps());
    }

    /**
     * @param options what to run.
     * @return the configuration of the local environment and its MiniCluster.
     */
    static Configuration configuration(final RunOptions options)
    {
        final Configuration conf = new Configuration();
        // Loopback only: REST endpoint, RPC, blob server and shuffle of the MiniCluster.
        conf.set(RestOptions.BIND_ADDRESS, LOOPBACK);
        conf.set(RestOptions.ADDRESS, LOOPBACK);
        conf.set(RestOptions.BIND_PORT, "0");
        conf.set(JobManagerOptions.ADDRESS, LOOPBACK);
        conf.set(JobManagerOptions.BIND_HOST, LOOPBACK);
        conf.set(TaskManagerOptions.HOST, LOOPBACK);
        conf.set(TaskManagerOptions.BIND_HOST, LOOPBACK);

        conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.STREAMING);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        conf.set(StateBackendOptions.STATE_BACKEND,
            options.flinkState() == RunOptions.FlinkState.ROCKSDB ? "rocksdb" : "hashmap");
        if (options.flinkCheckpointDir().isEmpty())
        {
            conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "jobmanager");
        }
        else
        {
            conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
            conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                java.nio.file.Path.of(options.flinkCheckpointDir()).toAbsolutePath().toUri().toString());
        }
        if (options.checkpointIntervalMs() > 0)
        {
            conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(options.checkpointIntervalMs()));
            conf.set(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE, CheckpointingMode.EXACTLY_ONCE);
            conf.set(CheckpointingOptions.ENABLE_UNALIGNED, false);
        }
        if (options.flinkBufferTimeoutMs() >= 0)
        {
            conf.set(ExecutionOptions.BUFFER_TIMEOUT, Duration.ofMillis(options.flinkBufferTimeoutMs()));
        }
        return conf;
    }

    @Override
    public String engine()
    {
        return "flink";
    }

    @Override
    public void start() throws Exception
    {
        final StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(configuration(options));
        env.setParallelism(options.parallelism());

        final DataGeneratorSource<PageView> source = new DataGeneratorSource<>(
            new GenerateViews(runId, options.apps(), options.rate()), options.events(),
            TypeInformation.of(PageView.class));
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "page-views").uid("page-views")
            .keyBy(PageView::appId, Types.LONG)
            .process(new CountPerApp(runId)).name("count-per-app").uid("count-per-app")
            .returns(TypeInformation.of(AppCount.class))
            .sinkTo(new LatencySink(runId)).name("latency-and-totals").uid("latency-and-totals");

        // Starts the MiniCluster and submits; the cluster shuts itself down when the job terminates.
        client = env.executeAsync(PageViewCount.JOB_NAME);
        termination = client.getJobExecutionResult();
    }

    @Override
    public Future<?> termination()
    {
        return termination;
    }

    @Override
    public long recordsReceived()
    {
        return tally.recordsReceived();
    }

    @Override
    public void takeIntervalLatencies(final Histogram into)
    {
        tally.takeIntervalLatencies(into);
    }

    @Override
    public long checkpointsCompleted()
    {
        return tally.checkpointsCompleted();
    }

    @Override
    public long generated()
    {
        return tally.generated();
    }

    @Override
    public List<String> verify()
    {
        return tally.verify(options.events());
    }

    @Override
    public void close() throws Exception
    {
        try
        {
            if (termination != null && !termination.isDone())
            {
                client.cancel().get(30, TimeUnit.SECONDS);
                termination.handle((result, failure) -> null).get(30, TimeUnit.SECONDS);
            }
        }
        finally
        {
            tally.remove();
        }
    }

    /**
     * Makes view {@code index}. One instance per source subtask (Flink deserializes one for each); called on that
     * subtask's task thread: {@code open}, then {@code map} for each index of its splits in order, then
     * {@code close}, which reports the views made.
     */
    static final class GenerateViews implements GeneratorFunction<Long, PageView>
    {
        private static final long serialVersionUID = 1L;

        private final String runId;
        private final int apps;
        private final long rate;
        private transient ViewPacer pacer;
        private transient long made;

        GenerateViews(final String runId, final int apps, final long rate)
        {
            this.runId = runId;
            this.apps = apps;
            this.rate = rate;
        }

        @Override
        public void open(final SourceReaderContext readerContext)
        {
            pacer = new ViewPacer(rate, readerContext.currentParallelism());
        }

        @Override
        public PageView map(final Long index)
        {
            if (pacer.paced())
            {
                long wait;
                while ((wait = pacer.nanosUntilDue(made, System.nanoTime())) > 0)
                {
                    LockSupport.parkNanos(wait);
                }
            }
            final PageView view = new PageView(PageViewCount.appOf(index, apps), pacer.stamp(made));
            made++;
            return view;
        }

        @Override
        public void close()
        {
            if (pacer != null)
            {
                RunTally.of(runId).addGenerated(made);
            }
        }
    }

    /**
     * Counts the views of each application in {@code ValueState<Long>} and emits the new count with every view, as
     * Ringflow's {@code CountPerApp} does. Subtask 0 also reports completed checkpoints. Called on the count's task
     * thread (checkpoint notifications included).
     */
    static final class CountPerApp extends KeyedProcessFunction<Long, PageView, AppCount> implements CheckpointListener
    {
        private static final long serialVersionUID = 1L;

        private final String runId;
        private transient ValueState<Long> count;
        private transient boolean reportsCheckpoints;

        CountPerApp(final String runId)
        {
            this.runId = runId;
        }

        @Override
        public void open(final OpenContext openContext)
        {
            count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
            reportsCheckpoints = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() == 0;
        }

        @Override
        public void processElement(final PageView view, final Context ctx, final Collector<AppCount> out)
            throws Exception
        {
            final Long current = count.value();
            final long next = (current == null ? 0 : current) + 1;
            count.update(next);
            out.collect(new AppCount(view.appId(), next, view.timestamp()));
        }

        @Override
        public void notifyCheckpointComplete(final long checkpointId)
        {
            if (reportsCheckpoints)
            {
                RunTally.of(runId).checkpointCompleted(checkpointId);
            }
        }
    }

    /** The sink: one {@link RunTally.Writer} per subtask, written on that subtask's task thread. */
    static final class LatencySink implements Sink<AppCount>
    {
        private static final long serialVersionUID = 1L;

        private final String runId;

        LatencySink(final String runId)
        {
            this.runId = runId;
        }

        @Override
        public SinkWriter<AppCount> createWriter(final WriterInitContext context)
        {
            final TaskInfo task = context.getTaskInfo();
            final RunTally.Writer writer = RunTally.of(runId).writer(task.getIndexOfThisSubtask(),
                task.getNumberOfParallelSubtasks());
            return new SinkWriter<>()
            {
                @Override
                public void write(final AppCount element, final Context context)
                {
                    writer.write(element.appId(), element.count(), element.eventNanos());
                }

                @Override
                public void flush(final boolean endOfInput)
                {
                }

                @Override
                public void close()
                {
                    writer.close();
                }
            };
        }
    }
}
