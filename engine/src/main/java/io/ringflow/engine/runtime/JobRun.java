package io.ringflow.engine.runtime;

import io.ringflow.engine.api.CheckpointException;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.JobExecutionException;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.RestartStrategy;
import io.ringflow.engine.graph.StreamGraph;
import io.ringflow.engine.runtime.deploy.Deployer;
import io.ringflow.engine.runtime.deploy.JobAttempt;
import io.ringflow.engine.runtime.recovery.RestartBackoff;
import io.ringflow.engine.runtime.recovery.RestoreSpec;
import io.ringflow.state.checkpoint.CheckpointMetadata;
import io.ringflow.state.checkpoint.CheckpointStorage;
import io.ringflow.state.checkpoint.CorruptCheckpointException;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A job across its attempts: the first {@link JobAttempt}, and after each failure, as the {@link RestartStrategy}
 * allows, a new attempt restored from the newest completed checkpoint of this run (or from the checkpoint the job was
 * started from, or from scratch when there is neither). Checkpoint ids keep rising across attempts.
 *
 * <p>Thread contract: any thread may call the {@link JobHandle} methods. Attempt transitions happen under this
 * object's lock, on the thread that completes an attempt's termination future (its monitor) or on the restart timer.
 * The run's termination future completes once, after the last attempt's threads have all ended.
 */
public final class JobRun implements JobHandle
{
    private static final System.Logger LOG = System.getLogger(JobRun.class.getName());
    private static final int HISTORY = 100;

    private final String jobName;
    private final StreamGraph graph;
    private final Deployer deployer;
    private final CheckpointStorage storage;
    private final RestoreSpec initialRestore;
    private final RestartBackoff backoff;
    private final boolean allowNonRestoredState;
    /** Whether a cancelled run deletes its checkpoints (checkpointing configured without retainOnCancel). */
    private final boolean deleteCheckpointsOnCancel;
    private final CompletableFuture<JobStatus> termination = new CompletableFuture<>();
    private final JobRunMXBean mxBean = new JobRunMXBean(this);
    /** Checkpoints completed by attempts that have ended; guarded by this object's lock. */
    private long earlierCompletions;
    /** Whether {@link #current} ended and its completions are in {@link #earlierCompletions}; guarded by the lock. */
    private boolean currentCounted;
    private final ArrayDeque<CompletedCheckpoint> earlierCheckpoints = new ArrayDeque<>();
    /** Told of every completed checkpoint of every attempt; added to from any thread. */
    private final java.util.List<java.util.function.Consumer<CompletedCheckpoint>> checkpointListeners =
        new java.util.concurrent.CopyOnWriteArrayList<>();
    private ScheduledExecutorService restartTimer;
    private volatile JobAttempt current;
    private volatile JobStatus status = JobStatus.RUNNING;
    private volatile Throwable failure;
    private volatile boolean cancelled;
    private volatile int restarts;
    private long attemptStartNanos;
    private long nextCheckpointId = 1;
    /** The id of this run's first checkpoint: storage folders below it belong to earlier runs. */
    private final long firstCheckpointId;

    /** @return the keyed stores kept across restarts for local recovery, or null when it is off. */
    io.ringflow.engine.runtime.recovery.LocalKeyedStores localStores()
    {
        return deployer.localStores();
    }

    /** @return records too late for every window and dropped, over every attempt. */
    long lateRecordsDropped()
    {
        return deployer.lateRecordsDropped();
    }

    JobRun(final String jobName, final StreamGraph graph, final Deployer deployer, final CheckpointStorage storage,
        final RestoreSpec initialRestore, final RestartStrategy strategy, final boolean deleteCheckpointsOnCancel)
    {
        this.deleteCheckpointsOnCancel = deleteCheckpointsOnCancel;
        this.jobName = jobName;
        this.graph = graph;
        this.deployer = deployer;
        this.storage = storage;
        this.initialRestore = initialRestore;
        this.backoff = new RestartBackoff(strategy);
        this.allowNonRestoredState = initialRestore != null && initialRestore.allowNonRestoredState();
        if (initialRestore != null)
        {
            nextCheckpointId = initialRestore.checkpoint().checkpointId() + 1;
        }
        try
        {
            // never reuse the id of a folder an earlier run left in the same storage
            final List<Long> existing = storage.checkpointIds();
            if (!existing.isEmpty())
            {
                nextCheckpointId = Math.max(nextCheckpointId, existing.get(existing.size() - 1) + 1);
            }
            // checkpoints an earlier run never committed (its JVM died while writing them): nothing can restore
            // from them, and nobody else would ever delete them
            final List<Long> incomplete = storage.discardIncomplete();
            if (!incomplete.isEmpty())
            {
                LOG.log(Level.INFO, "job '" + jobName + "': removed " + incomplete.size() + " incomplete " +
                    "checkpoint folder(s) " + incomplete + " from " + storage.describe() + ", left without metadata " +
                    "by an earlier run that stopped while writing them");
            }
        }
        catch (final IOException ex)
        {
            throw new java.io.UncheckedIOException("cannot list " + storage.describe(), ex);
        }
        firstCheckpointId = nextCheckpointId;
    }

    /** Deploys and starts the first attempt; a job that cannot run throws here, before any thread starts. */
    public synchronized void start()
    {
        final JobAttempt first = deployer.deploy(graph, initialRestore, nextCheckpointId, storage);
        launch(first);
        JobRunMXBean.register(this, mxBean);
    }

    /**
     * Starts an attempt, then publishes it: the handle's calls reach an attempt only once its coordinator knows its
     * tasks. Under this object's lock, so the attempt's end (which takes the lock) is handled after this returns.
     */
    private void launch(final JobAttempt attempt)
    {
        attemptStartNanos = System.nanoTime();
        attempt.onCheckpointCompleted(done ->
        {
            // indexed, not an iterator (garbage at every checkpoint): listeners are only ever added, so every index
            // below the size read stays valid
            for (int i = 0; i < checkpointListeners.size(); i++)
            {
                checkpointListeners.get(i).accept(done);
            }
        });
        // wired before the threads start: an attempt whose start fails still ends through its termination future
        attempt.termination().whenComplete((finalStatus, ignored) -> attemptEnded(attempt, finalStatus));
        try
        {
            deployer.start(attempt);
        }
        finally
        {
            current = attempt;
            currentCounted = false;
            status = JobStatus.RUNNING;
        }
    }

    private synchronized void attemptEnded(final JobAttempt attempt, final JobStatus attemptStatus)
    {
        earlierCompletions += attempt.checkpointsCompleted();
        currentCounted = true;
        for (final CompletedCheckpoint checkpoint : attempt.completedCheckpoints())
        {
            earlierCheckpoints.addLast(checkpoint);
        }
        while (earlierCheckpoints.size() > HISTORY)
        {
            earlierCheckpoints.removeFirst();
        }
        nextCheckpointId = Math.max(nextCheckpointId, attempt.nextCheckpointId());
        final Throwable cause = attempt.failureCause().orElse(null);
        if (attemptStatus != JobStatus.FAILED || cancelled)
        {
            finish(cancelled && attemptStatus != JobStatus.FINISHED ? JobStatus.CANCELED : attemptStatus, cause);
            return;
        }
        final long delay = backoff.onFailure(System.nanoTime(), attemptStartNanos);
        if (delay == RestartBackoff.GIVE_UP)
        {
            if (backoff.restarts() > 0 && cause != null)
            {
                cause.addSuppressed(new IllegalStateException("the restart strategy gave up after " +
                    backoff.restarts() + " restarts"));
            }
            finish(JobStatus.FAILED, cause);
            return;
        }
        LOG.log(Level.WARNING, "job '" + jobName + "' failed; restart " + (backoff.restarts()) + " in " +
            Duration.ofNanos(delay) + ": " + cause);
        status = JobStatus.RESTARTING;
        if (restartTimer == null)
        {
            restartTimer = Executors.newSingleThreadScheduledExecutor(runnable ->
            {
                final Thread thread = new Thread(runnable, "ringflow-restart-" + jobName);
                thread.setDaemon(true);
                return thread;
            });
        }
        restartTimer.schedule(() -> restart(cause), delay, TimeUnit.NANOSECONDS);
    }

    private synchronized void restart(final Throwable previousFailure)
    {
        if (cancelled)
        {
            finish(JobStatus.CANCELED, null);
            return;
        }
        try
        {
            final RestoreSpec restore = latestRestorePoint();
            LOG.log(Level.INFO, () -> "job '" + jobName + "' restarts from " + (restore == null ? "scratch" :
                "checkpoint " + restore.checkpoint().checkpointId()));
            final JobAttempt attempt = deployer.deploy(graph, restore, nextCheckpointId, storage);
            restarts++;
            launch(attempt);
        }
        catch (final RuntimeException | Error ex)
        {
            if (previousFailure != null)
            {
                ex.addSuppressed(previousFailure);
            }
            if (!termination.isDone())
            {
                finish(JobStatus.FAILED, ex);
            }
        }
    }

    /**
     * @return the newest checkpoint this run committed whose files all read back intact; else the checkpoint the run
     *     started from; else null (a fresh start) when the run has committed none.
     * @throws IllegalStateException when the run committed checkpoints but none can be restored: restarting from
     *                               scratch would replay output the sinks already have.
     */
    private RestoreSpec latestRestorePoint()
    {
        final List<Long> ids = new ArrayList<>();
        try
        {
            for (final long id : storage.checkpointIds())
            {
                if (id >= firstCheckpointId)
                {
                    ids.add(id);
                }
            }
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot list the checkpoints of job '" + jobName + "' in " +
                storage.describe() + " to restart from: " + ex, ex);
        }
        // a folder without metadata is a checkpoint that never committed (the attempt failed while writing it)
        boolean committedAny = !earlierCheckpoints.isEmpty();
        for (int i = ids.size() - 1; i >= 0; i--)
        {
            final long id = ids.get(i);
            try
            {
                final CheckpointMetadata metadata = storage.load(id);
                committedAny = true;
                storage.verifyStateFiles(metadata);
                return new RestoreSpec(metadata, storage, allowNonRestoredState, true);
            }
            catch (final CorruptCheckpointException | IOException ex)
            {
                LOG.log(Level.WARNING, "job '" + jobName + "' cannot restore from checkpoint " + id + " (" +
                    ex.getMessage() + "); trying an older one");
            }
        }
        if (committedAny && initialRestore == null)
        {
            throw new IllegalStateException("job '" + jobName + "' committed checkpoints, but none of them in " +
                storage.describe() + " can be restored (missing or corrupt); not restarting from scratch, which " +
                "would replay output the sinks already received");
        }
        // checked when the run started, possibly long ago: checked again as the restore opens its files
        return initialRestore == null ? null : initialRestore.checkedWhenOpened();
    }

    private void finish(final JobStatus finalStatus, final Throwable cause)
    {
        if (restartTimer != null)
        {
            restartTimer.shutdownNow();
        }
        if (deployer.localStores() != null)
        {
            deployer.localStores().closeAll();
        }
        failure = finalStatus == JobStatus.FAILED ? cause : null;
        status = finalStatus;
        termination.complete(finalStatus);
    }

    /** @return the attempt running now (or the last one), for tools and tests that follow barriers. */
    public JobAttempt currentAttempt()
    {
        return current;
    }

    /** @return checkpoints and savepoints completed by every attempt of this run, retained or not. Any thread. */
    public synchronized long checkpointsCompleted()
    {
        return earlierCompletions + (currentCounted || current == null ? 0 : current.checkpointsCompleted());
    }

    @Override
    public io.ringflow.engine.api.JobMXBean mxBean()
    {
        return mxBean;
    }

    @Override
    public int restartCount()
    {
        return restarts;
    }

    @Override
    public String jobName()
    {
        return jobName;
    }

    @Override
    public JobStatus status()
    {
        return status;
    }

    @Override
    public CompletableFuture<JobStatus> termination()
    {
        return termination.thenApply(s -> s);
    }

    @Override
    public JobStatus awaitTermination(final Duration timeout)
        throws JobExecutionException, TimeoutException, InterruptedException
    {
        return Terminations.await(jobName, termination, () -> failure, timeout);
    }

    @Override
    public Optional<Throwable> failureCause()
    {
        return status == JobStatus.FAILED ? Optional.ofNullable(failure) : Optional.empty();
    }

    @Override
    public CompletableFuture<CompletedCheckpoint> triggerCheckpoint()
    {
        final JobAttempt attempt = runningAttempt();
        return attempt == null ? refusedWhileRestarting("checkpoint") : attempt.triggerCheckpoint();
    }

    @Override
    public void onCheckpointCompleted(final java.util.function.Consumer<CompletedCheckpoint> listener)
    {
        checkpointListeners.add(java.util.Objects.requireNonNull(listener, "listener"));
    }

    @Override
    public CompletableFuture<CompletedCheckpoint> triggerSavepoint()
    {
        final JobAttempt attempt = runningAttempt();
        return attempt == null ? refusedWhileRestarting("savepoint") : attempt.triggerSavepoint();
    }

    @Override
    public CompletableFuture<CompletedCheckpoint> stopWithSavepoint()
    {
        final JobAttempt attempt = runningAttempt();
        if (attempt == null)
        {
            return refusedWhileRestarting("savepoint to stop with");
        }
        return attempt.suspendingSavepoint().thenApply(savepoint ->
        {
            cancel();
            return savepoint;
        });
    }

    /**
     * @return the attempt to send a trigger to; null while the run waits to restart (no attempt runs: the last one
     *     has stopped and the next is not deployed yet). A finished or cancelled run returns its last attempt, which
     *     refuses the trigger itself.
     */
    private synchronized JobAttempt runningAttempt()
    {
        return status == JobStatus.RESTARTING ? null : current;
    }

    private CompletableFuture<CompletedCheckpoint> refusedWhileRestarting(final String what)
    {
        return CompletableFuture.failedFuture(new CheckpointException(CheckpointException.Reason.JOB_RESTARTING,
            "job '" + jobName + "' is waiting to restart after a failure: no " + what + " can be taken until it " +
                "runs again"));
    }

    @Override
    public List<CompletedCheckpoint> completedCheckpoints()
    {
        final List<CompletedCheckpoint> all;
        final JobAttempt attempt;
        synchronized (this)
        {
            all = new ArrayList<>(earlierCheckpoints);
            attempt = current;
        }
        for (final CompletedCheckpoint checkpoint : attempt.completedCheckpoints())
        {
            if (all.isEmpty() || checkpoint.checkpointId() > all.get(all.size() - 1).checkpointId())
            {
                all.add(checkpoint);
            }
        }
        return List.copyOf(all);
    }

    @Override
    public void cancel()
    {
        final JobAttempt attempt;
        synchronized (this)
        {
            if (termination.isDone())
            {
                return;
            }
            cancelled = true;
            attempt = current;
            if (status == JobStatus.RESTARTING)
            {
                // no attempt is running: the pending restart will see the flag; end now, deleting the checkpoints
                // as a cancelled attempt would
                if (deleteCheckpointsOnCancel)
                {
                    try
                    {
                        storage.discardAll();
                    }
                    catch (final IOException | RuntimeException ex)
                    {
                        LOG.log(Level.WARNING, "could not delete the checkpoints of cancelled job '" + jobName + "'",
                            ex);
                    }
                }
                finish(JobStatus.CANCELED, null);
                return;
            }
        }
        attempt.cancel();
    }

    @Override
    public void close()
    {
        cancel();
        Terminations.awaitUninterruptibly(termination);
    }

    @Override
    public String toString()
    {
        return "JobRun{" + jobName + ", " + status + ", restarts=" + restarts + '}';
    }
}
