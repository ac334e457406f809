package io.ringflow.bench.peers;

import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CheckpointingMode;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.RestartStrategy;
import io.ringflow.samples.pageview.PageViewCount;
import io.ringflow.state.chronicle.ChronicleStateBackend;
import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Ringflow's own page-view sample, {@link PageViewCount}, run through its public API with the settings that
 * {@code ringflow page-view --events N --apps K [--rate R] [--parallelism P] --checkpoint-interval MS} gives it: the
 * sample's default options (idle strategy BACKOFF), the default state backend (Chronicle), aligned exactly-once
 * checkpoints every MS ms into memory (retaining one), no restarts. Nothing of the job is re-implemented here: the
 * source, the count and the sink (which records every record's latency and checks the totals) are the sample's.
 *
 * <p>Checkpoints are confirmed by polling {@link JobHandle#completedCheckpoints()} (it retains the newest one) every
 * 10 ms from the monitor thread, and counting distinct ids; with a 100 ms interval none is missed.
 */
public final class RingflowPageView implements PeerJob
{
    private static final long CHECKPOINT_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final RunOptions options;
    private PageViewCount job;
    private JobHandle handle;
    private Future<JobStatus> termination;
    private long lastCheckpointPoll = Long.MIN_VALUE;
    private long newestCheckpoint = Long.MIN_VALUE;
    private long checkpoints;

    /**
     * @param options what to run; {@code flinkState} and {@code flinkBufferTimeoutMs} do not apply.
     */
    public RingflowPageView(final RunOptions options)
    {
        this.options = options;
    }

    /**
     * The configuration {@code ringflow page-view} builds from its options (PageViewCommand): the sample's job config
     * plus its fault-tolerance options at their defaults.
     *
     * @param options what to run.
     * @param sample  the sample's options.
     * @return the job's configuration.
     */
    static JobConfig jobConfig(final RunOptions options, final PageViewCount.Options sample)
    {
        final JobConfig.Builder config = PageViewCount.jobConfig(sample).toBuilder();
        if (options.checkpointIntervalMs() > 0)
        {
            config.checkpointing(CheckpointConfig.every(Duration.ofMillis(options.checkpointIntervalMs()))
                    .unaligned(false).incremental(false).build())
                .checkpointingMode(CheckpointingMode.EXACTLY_ONCE);
        }
        return config
            .restoreFrom(null)
            .allowNonRestoredState(false)
            .stateBackend(new ChronicleStateBackend())
            .restartStrategy(RestartStrategy.none())
            .build();
    }

    /** @return the sample's options for this run: its defaults, with the run's views, apps, rate and parallelism. */
    static PageViewCount.Options sampleOptions(final RunOptions options)
    {
        return PageViewCount.Options.defaults()
            .withEvents(options.events())
            .withApps(options.apps())
            .withRate(options.rate())
            .withParallelism(options.parallelism());
    }

    @Override
    public String engine()
    {
        return "ringflow";
    }

    @Override
    public void start() throws Exception
    {
        final PageViewCount.Options sample = sampleOptions(options);
        final JobEnvironment env = JobEnvironment.create(jobConfig(options, sample));
        job = PageViewCount.build(env, sample);
        handle = env.execute(PageViewCount.JOB_NAME);
        termination = handle.termination().thenApply(status ->
        {
            if (status != JobStatus.FINISHED)
            {
                throw new CompletionException(new IllegalStateException("job ended " + status + ": " +
                    handle.failureCause().map(Throwable::toString).orElse("no cause reported"),
                    handle.failureCause().orElse(null)));
            }
            return status;
        });
    }

    @Override
    public Future<?> termination()
    {
        return termination;
    }

    @Override
    public long recordsReceived()
    {
        return job.recordsReceived();
    }

    @Override
    public void takeIntervalLatencies(final Histogram into)
    {
        job.takeIntervalLatencies(into);
    }

    @Override
    public void observe(final long nowNanos)
    {
        if (lastCheckpointPoll != Long.MIN_VALUE && nowNanos - lastCheckpointPoll < CHECKPOINT_POLL_NANOS &&
            !handle.termination().isDone())
        {
            return;
        }
        lastCheckpointPoll = nowNanos;
        for (final CompletedCheckpoint checkpoint : handle.completedCheckpoints())
        {
            if (checkpoint.checkpointId() > newestCheckpoint)
            {
                newestCheckpoint = checkpoint.checkpointId();
                checkpoints++;
            }
        }
    }

    @Override
    public long checkpointsCompleted()
    {
        return checkpoints;
    }

    @Override
    public long generated()
    {
        return handle.termination().isDone() && handle.status() == JobStatus.FINISHED ? job.result().generated() : 0;
    }

    @Override
    public List<String> verify()
    {
        final PageViewCount.Result result = job.result();
        final List<String> problems = new ArrayList<>(result.mismatches());
        if (result.generated() != options.events())
        {
            problems.add("generated " + result.generated() + " views, expected " + options.events());
        }
        return problems;
    }

    @Override
    public void close()
    {
        if (handle != null)
        {
            handle.close();
        }
    }
}
