package io.ringflow.bench.peers;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.EntryEvent;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.jet.Job;
import com.hazelcast.jet.accumulator.LongAccumulator;
import com.hazelcast.jet.config.JobConfig;
import com.hazelcast.jet.config.ProcessingGuarantee;
import com.hazelcast.jet.core.AbstractProcessor;
import com.hazelcast.jet.core.BroadcastKey;
import com.hazelcast.jet.core.ProcessorMetaSupplier;
import com.hazelcast.jet.core.ProcessorSupplier;
import com.hazelcast.jet.impl.JobExecutionRecord;
import com.hazelcast.jet.impl.JobRepository;
import com.hazelcast.jet.pipeline.BatchStage;
import com.hazelcast.jet.pipeline.Pipeline;
import com.hazelcast.jet.pipeline.Sink;
import com.hazelcast.jet.pipeline.SinkBuilder;
import com.hazelcast.jet.pipeline.Sources;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import io.ringflow.samples.pageview.AppCount;
import io.ringflow.samples.pageview.PageView;
import io.ringflow.samples.pageview.PageViewCount;
import org.HdrHistogram.Histogram;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The page-view job on Hazelcast Jet, in one embedded Hazelcast member (Jet enabled) in this JVM:
 *
 * <pre>{@code
 * GenerateViewsP  --groupingKey(appId), partitioned-->  mapStateful (LongAccumulator per app)  -->  SinkBuilder sink
 * }</pre>
 *
 * <ul>
 *   <li>Source: a small cooperative {@link AbstractProcessor}. Subtask {@code s} of {@code p} makes the views
 *   {@code s, s + p, ...} (as Ringflow's GeneratorSource does), stamped as {@link ViewPacer} says, and saves its
 *   position in every snapshot. SourceBuilder cannot express this: its batch sources have no snapshot functions (a
 *   restart would generate everything again on top of restored counts) and its stream sources cannot end.</li>
 *   <li>Count: {@code groupingKey(appId).mapStateful(LongAccumulator::new, ...)} emitting
 *   {@code AppCount(appId, count, stamp)}; the accumulators are the keyed state saved in snapshots.</li>
 *   <li>Sink: {@link SinkBuilder}, one {@link RunTally.Writer} per processor; with parallelism above 1 the updates
 *   are partitioned by app on their way to it, so that each app's reach one sink processor in order.</li>
 * </ul>
 *
 * <p>Settings: processing guarantee EXACTLY_ONCE with a snapshot every MS ms (NONE without checkpoints); Jet's
 * defaults otherwise (cooperative threads = cores). No network call the user did not ask for: the member binds to
 * 127.0.0.1 only, has multicast, TCP/IP and auto-detection join off (it forms a cluster of one), phone-home off, and
 * no Management Center is configured.
 *
 * <p>Snapshots are confirmed from Jet's own bookkeeping: after each successful snapshot the coordinator writes the
 * job's {@link JobExecutionRecord} (internal API) to the {@code __jet.executionRecords} map; a map listener counts
 * the distinct successful snapshot ids it carries.
 *
 * <p>Threads: {@link #start()} and the monitor methods run on the monitor thread; processors run on Jet's
 * cooperative threads and reach the monitor only through the run's {@link RunTally}; the listener runs on Hazelcast's
 * event threads.
 */
public final class JetPageView implements PeerJob
{
    private static final String LOOPBACK = "127.0.0.1";

    private final RunOptions options;
    private final String runId = "jet-" + UUID.randomUUID();
    private final RunTally tally;
    private HazelcastInstance member;
    private Job job;
    private CompletableFuture<Void> termination;

    /**
     * @param options what to run; {@code flinkState} and {@code flinkBufferTimeoutMs} do not apply.
     */
    public JetPageView(final RunOptions options)
    {
        this.options = options;
        this.tally = RunTally.create(runId, options.apps());
    }

    /**
     * @param clusterName the cluster's name (unique per run, so that it cannot join anything else).
     * @return the member's configuration: Jet on, loopback only, no discovery, no phone-home.
     */
    static Config memberConfig(final String clusterName)
    {
        final Config config = new Config();
        config.setClusterName(clusterName);
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.logging.type", "slf4j");
        config.setProperty("hazelcast.socket.bind.any", "false");
        config.setProperty("hazelcast.local.localAddress", LOOPBACK);
        final NetworkConfig network = config.getNetworkConfig();
        network.getInterfaces().setEnabled(true).addInterface(LOOPBACK);
        final JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        config.getJetConfig().setEnabled(true);
        return config;
    }

    @Override
    public String engine()
    {
        return "jet";
    }

    @Override
    public void start()
    {
        member = Hazelcast.newHazelcastInstance(memberConfig(runId));
        final IMap<Long, JobExecutionRecord> records = member.getMap(JobRepository.JOB_EXECUTION_RECORDS_MAP_NAME);
        records.addEntryListener(new SnapshotListener(tally), true);

        final String id = runId;
        final long events = options.events();
        final int apps = options.apps();
        final long rate = options.rate();
        final int parallelism = options.parallelism();

        final Sink<AppCount> sink = SinkBuilder.sinkBuilder("latency-and-totals",
                context -> RunTally.of(id).writer(context.globalProcessorIndex(), context.totalParallelism()))
            .<AppCount>receiveFn((writer, update) -> writer.write(update.appId(), update.count(), update.eventNanos()))
            .destroyFn(RunTally.Writer::close)
            .build();
        final Pipeline pipeline = Pipeline.create();
        final BatchStage<AppCount> counts = pipeline.readFrom(Sources.<PageView>batchFromProcessor("page-views",
                ProcessorMetaSupplier.of(parallelism,
                    ProcessorSupplier.of(() -> new GenerateViewsP(id, events, apps, rate)))))
            .groupingKey(PageView::appId)
            .mapStateful(LongAccumulator::new,
                (LongAccumulator count, Long appId, PageView view) ->
                    new AppCount(appId, count.add(1).get(), view.timestamp()))
            .setName("count-per-app").setLocalParallelism(parallelism);
        // Jet's edge into a sink spreads items over the sink's processors, so with more than one an app's updates
        // would reach several of them, out of order; Ringflow and Flink chain the count and the sink (each app's
        // updates reach one sink subtask, in order). Partitioning by app restores that; with one processor each the
        // plain edge already does, and is what a user writes.
        (parallelism > 1 ? counts.rebalance(AppCount::appId) : counts)
            .writeTo(sink).setLocalParallelism(parallelism);

        final JobConfig config = new JobConfig().setName(PageViewCount.JOB_NAME);
        if (options.checkpointIntervalMs() > 0)
        {
            config.setProcessingGuarantee(ProcessingGuarantee.EXACTLY_ONCE)
                .setSnapshotIntervalMillis(options.checkpointIntervalMs());
        }
        job = member.getJet().newJob(pipeline, config);
        termination = job.getFuture();
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
                job.cancel();
                termination.handle((result, failure) -> null).get(30, TimeUnit.SECONDS);
            }
        }
        finally
        {
            tally.remove();
            if (member != null)
            {
                member.shutdown();
            }
        }
    }

    /** Counts successful snapshots from the execution records the coordinator writes. Hazelcast's event threads. */
    private static final class SnapshotListener implements
        EntryAddedListener<Long, JobExecutionRecord>, EntryUpdatedListener<Long, JobExecutionRecord>
    {
        private final RunTally tally;

        SnapshotListener(final RunTally tally)
        {
            this.tally = tally;
        }

        @Override
        public void entryAdded(final EntryEvent<Long, JobExecutionRecord> event)
        {
            seen(event.getValue());
        }

        @Override
        public void entryUpdated(final EntryEvent<Long, JobExecutionRecord> event)
        {
            seen(event.getValue());
        }

        private void seen(final JobExecutionRecord record)
        {
            if (record != null && record.snapshotId() != JobExecutionRecord.NO_SNAPSHOT)
            {
                tally.checkpointCompleted(record.snapshotId());
            }
        }
    }

    /**
     * The generator: subtask {@code s} of {@code p} emits views {@code s, s + p, ...} below N from {@link #complete()},
     * as many as the outbox takes per call, and returns {@code true} (done) after the last. Its position (views
     * emitted) is saved in every snapshot. Cooperative: it never blocks; at a fixed rate it returns when no view is
     * due. Called on one Jet cooperative thread at a time.
     */
    static final class GenerateViewsP extends AbstractProcessor
    {
        private final String runId;
        private final long events;
        private final int apps;
        private final long rate;
        private int subtask;
        private int parallelism;
        private long limit;
        private long emitted;
        private ViewPacer pacer;
        private PageView pending;
        private boolean reported;

        GenerateViewsP(final String runId, final long events, final int apps, final long rate)
        {
            this.runId = runId;
            this.events = events;
            this.apps = apps;
            this.rate = rate;
        }

        @Override
        protected void init(final Context context)
        {
            subtask = context.globalProcessorIndex();
            parallelism = context.totalParallelism();
            limit = Math.max(0, (events - subtask + parallelism - 1) / parallelism);
            pacer = new ViewPacer(rate, parallelism);
        }

        @Override
        public boolean complete()
        {
            while (true)
            {
                if (pending == null)
                {
                    if (emitted >= limit)
                    {
                        if (!reported)
                        {
                            reported = true;
                            RunTally.of(runId).addGenerated(emitted);
                        }
                        return true;
                    }
                    if (pacer.paced() && pacer.nanosUntilDue(emitted, System.nanoTime()) > 0)
                    {
                        return false;
                    }
                    pending = new PageView(PageViewCount.appOf(subtask + emitted * parallelism, apps),
                        pacer.stamp(emitted));
                }
                if (!tryEmit(pending))
                {
                    return false;
                }
                pending = null;
                emitted++;
            }
        }

        @Override
        public boolean saveToSnapshot()
        {
            return tryEmitToSnapshot(BroadcastKey.broadcastKey(subtask), emitted);
        }

        @Override
        protected void restoreFromSnapshot(final Object key, final Object value)
        {
            if (((BroadcastKey<?>)key).key().equals(subtask))
            {
                emitted = (Long)value;
            }
        }
    }
}
