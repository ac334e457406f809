package io.ringflow.engine.runtime.deploy;

import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.channel.BarrierKind;
import io.ringflow.engine.channel.RingChannel;
import io.ringflow.engine.checkpoint.CheckpointCoordinator;
import io.ringflow.engine.checkpoint.CheckpointGateway;
import io.ringflow.engine.checkpoint.CheckpointedJob;
import io.ringflow.engine.runtime.recovery.LocalKeyedStores;
import io.ringflow.engine.runtime.task.SnapshotFlusher;
import io.ringflow.engine.runtime.task.Task;
import io.ringflow.engine.runtime.task.TaskHost;
import io.ringflow.engine.runtime.task.TaskMail;
import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.checkpoint.CheckpointStorage;
import io.ringflow.state.keyed.KeyGroupRange;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * One attempt of a job: its tasks and their threads, its channels, its checkpoint coordinator and snapshot flusher,
 * and its fate. The run ({@code JobRun}) is the handle the user holds; it starts a new attempt after each failure.
 *
 * <p>Thread contract: wired and started by the deploying thread; afterwards every method may be called from any
 * thread. The first failure wins: it stops the coordinator, then raises the stop flag every task reads once per work
 * cycle (and while waiting on a full ring); later failures, or failures after a cancel, are consequences and are
 * ignored. A monitor thread joins every task thread, frees the channels, stops the flusher and closes the state
 * stores, then completes the termination future: when it completes, no thread of this attempt uses anything of it.
 * The final status is FAILED if a failure was reported, FINISHED if every task reached the end of its input,
 * CANCELED otherwise.
 */
public final class JobAttempt implements CheckpointedJob, TaskHost
{
    private static final System.Logger LOG = System.getLogger(JobAttempt.class.getName());

    private final String jobName;
    private final List<Task> tasks = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final List<RingChannel> channels = new ArrayList<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicInteger finishedTasks = new AtomicInteger();
    private final CompletableFuture<JobStatus> termination = new CompletableFuture<>();
    /** The newest barrier requested, packed: id &lt;&lt; 1, low bit set for a savepoint. Ids rise, so max() keeps it. */
    private final AtomicLong requestedBarrier = new AtomicLong();
    private final CheckpointCoordinator coordinator;
    private final SnapshotFlusher flusher;
    /** State stores and other resources, closed once every task thread and the flusher have stopped. */
    private final List<AutoCloseable> closeAtEnd = new CopyOnWriteArrayList<>();
    /** Keyed stores offered to the run's next attempt if this one fails (local recovery), else closed with the rest. */
    private final List<KeptStore> keepOnFailure = new CopyOnWriteArrayList<>();
    /** Where {@link #keepOnFailure} goes; null without local recovery. */
    private final LocalKeyedStores localStores;

    /** A keyed store and the subtask it belongs to. */
    private record KeptStore(String uid, int subtask, KeyGroupRange range, KeyedStateStore store)
    {
    }
    private volatile boolean stopping;
    /** Set by a stop-with-savepoint before its barrier is requested; read by sources each cycle. */
    private volatile long stopSourcesAfter = Long.MAX_VALUE;
    private volatile JobStatus status = JobStatus.RUNNING;
    /** Unique to this attempt across attempts and JVMs: names transactions a restarted job must tell apart. */
    private final String attemptId = java.util.UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    /**
     * @param jobName         the job's name.
     * @param checkpointing   periodic checkpoints, or null for checkpoints on demand only.
     * @param firstCheckpoint the id of this attempt's first checkpoint.
     * @param storage         where checkpoints go, shared by the attempts of a run.
     */
    public JobAttempt(final String jobName, final CheckpointConfig checkpointing, final long firstCheckpoint,
        final CheckpointStorage storage)
    {
        this(jobName, checkpointing, firstCheckpoint, storage, null);
    }

    /**
     * @param jobName         the job's name.
     * @param checkpointing   periodic checkpoints, or null for checkpoints on demand only.
     * @param firstCheckpoint the id of this attempt's first checkpoint.
     * @param storage         where checkpoints go, shared by the attempts of a run.
     * @param localStores     where keyed stores go when this attempt fails, for local recovery; null for none.
     */
    public JobAttempt(final String jobName, final CheckpointConfig checkpointing, final long firstCheckpoint,
        final CheckpointStorage storage, final LocalKeyedStores localStores)
    {
        this.jobName = jobName;
        this.localStores = localStores;
        this.coordinator = new CheckpointCoordinator(this, checkpointing, firstCheckpoint, storage);
        this.flusher = new SnapshotFlusher(jobName, coordinator);
    }

    // ------------------------------------------------------------------------------------------------ wiring

    void addTask(final Task task, final Thread thread)
    {
        task.index(tasks.size());
        tasks.add(task);
        threads.add(thread);
    }

    void addChannel(final RingChannel channel)
    {
        channels.add(channel);
    }

    /** @param resource closed when the attempt has terminated, after every thread that may use it. */
    void closeAtEnd(final AutoCloseable resource)
    {
        closeAtEnd.add(resource);
    }

    /**
     * A keyed store, closed when the attempt has terminated like {@link #closeAtEnd} resources, except when the
     * attempt failed and local recovery is on: then it goes to the run's next attempt ({@link LocalKeyedStores}).
     *
     * @param uid     its operator's uid.
     * @param subtask its subtask index.
     * @param range   the key groups it holds.
     * @param store   the store.
     */
    void keepOnFailure(final String uid, final int subtask, final KeyGroupRange range, final KeyedStateStore store)
    {
        keepOnFailure.add(new KeptStore(uid, subtask, range, store));
    }

    /**
     * After a deploy that failed before anything started: closes the stores and resources the attempt was given, a
     * store taken over from an earlier attempt included (a run whose deploy failed ends; it does not restart).
     * Deploying thread; nothing of the attempt runs.
     */
    void discardUnstarted()
    {
        flusher.shutdownNow();
        for (final KeptStore kept : keepOnFailure)
        {
            closeAtEnd.add(kept.store());
        }
        keepOnFailure.clear();
        closeAll();
    }

    /** @return this attempt's checkpoint coordinator. */
    CheckpointCoordinator coordinator()
    {
        return coordinator;
    }

    /** Starts the coordinator, then every task thread; a failure to start stops what did start. */
    void start()
    {
        coordinator.start(tasks);
        LOG.log(Level.DEBUG, () -> "starting job '" + jobName + "' with " + threads.size() + " task threads and " +
            channels.size() + " channels");
        try
        {
            for (final Thread thread : threads)
            {
                thread.start();
            }
        }
        catch (final RuntimeException | Error ex)
        {
            // threads already started must stop, and the channels must still be freed once they have
            fail(ex);
            startMonitor();
            throw ex;
        }
        startMonitor();
    }

    /** Completes the termination future once every task thread has really ended (joined, not just finishing). */
    private void startMonitor()
    {
        final Thread monitor = new Thread(this::awaitTasksThenTerminate, "ringflow-monitor-" + jobName);
        monitor.setDaemon(true);
        monitor.start();
    }

    private void awaitTasksThenTerminate()
    {
        for (final Thread thread : threads)
        {
            boolean joined = false;
            while (!joined)
            {
                try
                {
                    thread.join();
                    joined = true;
                }
                catch (final InterruptedException ignored)
                {
                    // the monitor is never interrupted on purpose; keep waiting for the task thread
                }
            }
        }
        for (final RingChannel channel : channels)
        {
            try
            {
                channel.release();
            }
            catch (final RuntimeException ex)
            {
                LOG.log(Level.WARNING, "could not free the slots of channel " + channel.name(), ex);
            }
        }
        coordinator.stop();
        flusher.shutdownNow();
        closeResources();
        final JobStatus finalStatus = failure.get() != null ? JobStatus.FAILED :
            finishedTasks.get() == tasks.size() ? JobStatus.FINISHED : JobStatus.CANCELED;
        coordinator.jobTerminated(finalStatus == JobStatus.CANCELED);
        status = finalStatus;
        LOG.log(Level.DEBUG, () -> "job '" + jobName + "' terminated: " + finalStatus);
        termination.complete(finalStatus);
    }

    private void closeResources()
    {
        boolean flusherEnded = false;
        try
        {
            // a snapshot being written may still read a store: let the flusher stop first
            flusherEnded = flusher.awaitTermination(1, TimeUnit.MINUTES);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        // a store is offered to the next attempt only when nothing of this one can touch it again, and the failure
        // cannot have left it half-changed: an Error (out of memory, a stack overflow inside the store) may have
        // stopped a write midway
        final boolean keep = localStores != null && flusherEnded && failure.get() != null &&
            !causedByError(failure.get());
        for (final KeptStore kept : keepOnFailure)
        {
            if (keep)
            {
                localStores.keep(kept.uid(), kept.subtask(), kept.range(), kept.store());
            }
            else
            {
                closeAtEnd.add(kept.store());
            }
        }
        closeAll();
    }

    private void closeAll()
    {
        for (final AutoCloseable resource : closeAtEnd)
        {
            try
            {
                resource.close();
            }
            catch (final Exception ex)
            {
                LOG.log(Level.WARNING, "could not close " + resource + " of job '" + jobName + "'", ex);
            }
        }
    }

    private static boolean causedByError(final Throwable failure)
    {
        final java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Throwable cause = failure; cause != null && seen.add(cause); cause = cause.getCause())
        {
            if (cause instanceof Error)
            {
                return true;
            }
            for (final Throwable suppressed : cause.getSuppressed())
            {
                if (suppressed instanceof Error)
                {
                    return true;
                }
            }
        }
        return false;
    }

    // ------------------------------------------------------------------------------------------------ fate

    @Override
    public String jobName()
    {
        return jobName;
    }

    /**
     * @param listener told of every checkpoint this attempt completes; set before the attempt starts.
     */
    public void onCheckpointCompleted(final java.util.function.Consumer<CompletedCheckpoint> listener)
    {
        coordinator.onCompleted(listener);
    }

    /** @return the attempt's id, given to every operator subtask ({@code SubtaskInfo.attemptId()}). */
    public String attemptId()
    {
        return attemptId;
    }

    /** @return RUNNING, then the final status once terminated. */
    public JobStatus status()
    {
        return status;
    }

    /** @return completes with the final status once every thread of the attempt has ended; never exceptionally. */
    public CompletableFuture<JobStatus> termination()
    {
        return termination.thenApply(s -> s);
    }

    /** @return the failure that ended the attempt; empty unless it FAILED. */
    public Optional<Throwable> failureCause()
    {
        return status == JobStatus.FAILED ? Optional.ofNullable(failure.get()) : Optional.empty();
    }

    /** Stops the attempt; its termination completes CANCELED unless it had already ended. Any thread. */
    public void cancel()
    {
        if (!termination.isDone() && !stopping)
        {
            LOG.log(Level.DEBUG, () -> "cancelling job '" + jobName + "'");
            stop();
        }
    }

    @Override
    public boolean isStopping()
    {
        return stopping;
    }

    @Override
    public void fail(final Throwable cause)
    {
        // once the job is stopping (cancelled, or failed already), later exceptions are consequences, not causes
        if (!stopping && failure.compareAndSet(null, cause))
        {
            LOG.log(Level.DEBUG, () -> "job '" + jobName + "' failed: " + cause);
            stop();
        }
    }

    @Override
    public void failAfterFinish(final Throwable cause)
    {
        if (failure.compareAndSet(null, cause))
        {
            LOG.log(Level.WARNING, () -> "job '" + jobName + "' lost output on close: " + cause);
            stop();
        }
    }

    @Override
    public void taskFinished(final Task task)
    {
        // after the task's snapshots still being written: a finished task stands for its barriers only in
        // checkpoints it did not acknowledge itself (the flusher runs in order, so its acknowledgements come first)
        final long position = task.finishedPosition();
        flusher.afterPendingWrites(() -> coordinator.taskFinished(task, position));
        finishedTasks.incrementAndGet();
    }

    private void stop()
    {
        // the coordinator first: a task that sees the flag and closes finds no pending checkpoint to abort
        coordinator.stop();
        stopping = true;
        final Thread self = Thread.currentThread();
        for (int i = 0; i < threads.size(); i++)
        {
            final Thread thread = threads.get(i);
            LockSupport.unpark(thread);
            if (thread != self)
            {
                // tasks poll the stop flag; the interrupt is for user code blocked in I/O or sleep inside the work
                // loop, never for a task that is closing its operators
                tasks.get(i).interruptIfInLoop(thread);
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ checkpoints

    /** @return completes with the checkpoint, or exceptionally with the reason it was refused or aborted. */
    public CompletableFuture<CompletedCheckpoint> triggerCheckpoint()
    {
        return coordinator.triggerCheckpoint();
    }

    /** @return completes with the savepoint, or exceptionally with the reason it was refused or aborted. */
    public CompletableFuture<CompletedCheckpoint> triggerSavepoint()
    {
        return coordinator.triggerSavepoint();
    }

    /**
     * Takes a savepoint after which no source emits; the sources resume if it fails. The caller ends the job.
     *
     * @return completes with the savepoint.
     */
    public CompletableFuture<CompletedCheckpoint> suspendingSavepoint()
    {
        final CompletableFuture<CompletedCheckpoint> savepoint =
            coordinator.triggerSavepoint(barrier -> stopSourcesAfter = barrier);
        return savepoint.whenComplete((done, failed) ->
        {
            if (failed != null)
            {
                stopSourcesAfter = Long.MAX_VALUE;
                unparkAll();
            }
        });
    }

    /** @return the retained completed checkpoints of this attempt, oldest first. */
    public List<CompletedCheckpoint> completedCheckpoints()
    {
        return coordinator.completedCheckpoints();
    }

    /** @return how many checkpoints and savepoints this attempt completed, retained or not. Any thread. */
    public long checkpointsCompleted()
    {
        return coordinator.completions();
    }

    /** @return the id the next checkpoint of this attempt would get. */
    public long nextCheckpointId()
    {
        return coordinator.nextCheckpointId();
    }

    @Override
    public void requestBarrier(final long checkpointId, final BarrierKind kind)
    {
        requestedBarrier.accumulateAndGet(checkpointId << 1 | (kind == BarrierKind.SAVEPOINT ? 1 : 0), Math::max);
        unparkAll();
    }

    @Override
    public void notifyCheckpointComplete(final long checkpointId)
    {
        post(new TaskMail.CheckpointComplete(checkpointId));
    }

    @Override
    public void notifyCheckpointAborted(final long checkpointId)
    {
        post(new TaskMail.CheckpointAborted(checkpointId));
    }

    @Override
    public long requestedBarrier()
    {
        return requestedBarrier.get();
    }

    @Override
    public long stopSourcesAfter()
    {
        return stopSourcesAfter;
    }

    @Override
    public CheckpointGateway checkpoints()
    {
        return coordinator;
    }

    @Override
    public SnapshotFlusher flusher()
    {
        return flusher;
    }

    private void post(final TaskMail mail)
    {
        for (int i = 0; i < tasks.size(); i++)
        {
            tasks.get(i).post(mail);
            LockSupport.unpark(threads.get(i));
        }
    }

    private void unparkAll()
    {
        // indexed: this runs at every checkpoint's notification, and an iterator would be garbage
        for (int i = 0; i < threads.size(); i++)
        {
            LockSupport.unpark(threads.get(i));
        }
    }

    // ------------------------------------------------------------------------------------------------ diagnostics

    /** @return the names of the task threads, in creation order. */
    public List<String> threadNames()
    {
        final List<String> names = new ArrayList<>();
        for (final Thread thread : threads)
        {
            names.add(thread.getName());
        }
        return names;
    }

    /**
     * @return per ring channel, the slots published and not yet consumed, in channel creation order; a racy
     *     snapshot for tools and tests that watch back-pressure. Any thread.
     */
    public List<Long> channelBacklogs()
    {
        final List<Long> backlogs = new ArrayList<>(channels.size());
        for (final RingChannel channel : channels)
        {
            backlogs.add(channel.backlog());
        }
        return backlogs;
    }

    /**
     * @return the fill of the attempt's fullest ring, published and not yet consumed slots over its capacity, 0 to 1:
     *     near 1 means its consumer is the bottleneck (back-pressure). A racy snapshot of two volatile reads per
     *     channel; any thread.
     */
    public double maxRingFill()
    {
        double max = 0;
        for (final RingChannel channel : channels)
        {
            max = Math.max(max, (double)channel.backlog() / channel.capacity());
        }
        return max;
    }

    /**
     * @return per ring channel, {@code name: backlog/capacity}, in channel creation order; a racy snapshot for
     *     operators of the application. Any thread.
     */
    public List<String> ringBacklogs()
    {
        final List<String> lines = new ArrayList<>(channels.size());
        for (final RingChannel channel : channels)
        {
            lines.add(channel.name() + ": " + channel.backlog() + "/" + channel.capacity());
        }
        return lines;
    }

    /**
     * @return per ring channel, {@code name: published P, consumed C} slots (records and the few control slots:
     *     barriers, end of input) since the attempt started, in channel creation order; a racy snapshot. Any thread.
     */
    public List<String> ringTraffic()
    {
        final List<String> lines = new ArrayList<>(channels.size());
        for (final RingChannel channel : channels)
        {
            lines.add(channel.name() + ": published " + channel.publishedSlots() + ", consumed " +
                channel.consumedSlots());
        }
        return lines;
    }

    /** @return the number of ring channels of the physical plan. */
    public int channelCount()
    {
        return channels.size();
    }

    @Override
    public String toString()
    {
        return "JobAttempt{" + jobName + ", " + status + '}';
    }
}
