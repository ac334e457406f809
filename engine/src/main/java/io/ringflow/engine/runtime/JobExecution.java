package io.ringflow.engine.runtime;

import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.JobExecutionException;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.channel.RingChannel;
import io.ringflow.engine.checkpoint.barrier.AbortReason;
import io.ringflow.state.checkpoint.CheckpointStorage;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * One attempt of a job: its tasks, their threads and channels, and its fate.
 *
 * <p>Thread contract: built and started by the submitting thread; afterwards every method may be called from any
 * thread. The first failure wins: it stops every task (a volatile flag each task reads once per work cycle and while
 * waiting on a full ring), and later failures, or failures after a cancel, are consequences and are ignored. A
 * monitor thread joins every task thread, frees the channels, then completes the termination future: when it
 * completes, no task thread of this job is alive. The final status is FAILED if a failure was reported, FINISHED if
 * every task reached the end of its input, CANCELED otherwise.
 */
public final class JobExecution implements JobHandle
{
    private static final System.Logger LOG = System.getLogger(JobExecution.class.getName());

    private final String jobName;
    private final List<Task> tasks = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final List<RingChannel> channels = new ArrayList<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicInteger finishedTasks = new AtomicInteger();
    private final CompletableFuture<JobStatus> termination = new CompletableFuture<>();
    /** The newest barrier requested, packed: id &lt;&lt; 1, low bit set for a savepoint. Ids rise, so max() keeps it. */
    private final AtomicLong requestedBarrier = new AtomicLong();
    private volatile boolean stopping;
    /** Set by a stop-with-savepoint before its barrier is requested; read by sources each cycle. */
    private volatile long stopSourcesAfter = Long.MAX_VALUE;
    private volatile JobStatus status = JobStatus.RUNNING;

    private final CheckpointCoordinator coordinator;
    /** Writes task snapshots to checkpoint storage, off the task threads; one daemon thread per job. */
    private final java.util.concurrent.ExecutorService flusher;
    /** Off-heap state stores, closed once every task thread and the flusher have stopped. */
    private final List<AutoCloseable> closeAtEnd = new java.util.concurrent.CopyOnWriteArrayList<>();

    JobExecution(final String jobName, final CheckpointConfig checkpointing, final long firstCheckpoint,
        final CheckpointStorage storage)
    {
        this.jobName = jobName;
        this.coordinator = new CheckpointCoordinator(this, checkpointing, firstCheckpoint, storage);
        this.flusher = java.util.concurrent.Executors.newSingleThreadExecutor(runnable ->
        {
            final Thread thread = new Thread(runnable, "ringflow-snapshot-flusher-" + jobName);
            thread.setDaemon(true);
            return thread;
        });
    }

    void addTask(final Task task, final Thread thread)
    {
        task.index(tasks.size());
        tasks.add(task);
        threads.add(thread);
    }

    /** @param resource closed when the attempt has terminated, after every thread that may use it. */
    void closeAtEnd(final AutoCloseable resource)
    {
        closeAtEnd.add(resource);
    }

    private void closeResources()
    {
        try
        {
            // a snapshot being written may still read a store: let the flusher stop first
            flusher.awaitTermination(1, java.util.concurrent.TimeUnit.MINUTES);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
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

    void addChannel(final RingChannel channel)
    {
        channels.add(channel);
    }

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
            // Threads already started must stop, and the channels must still be freed once they have.
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
        return Terminations.await(jobName, termination, failure::get, timeout);
    }

    @Override
    public Optional<Throwable> failureCause()
    {
        return status == JobStatus.FAILED ? Optional.ofNullable(failure.get()) : Optional.empty();
    }

    @Override
    public void cancel()
    {
        if (!termination.isDone() && !stopping)
        {
            LOG.log(Level.DEBUG, () -> "cancelling job '" + jobName + "'");
            stop();
        }
    }

    @Override
    public void close()
    {
        cancel();
        Terminations.awaitUninterruptibly(termination);
    }

    @Override
    public CompletableFuture<CompletedCheckpoint> triggerCheckpoint()
    {
        return coordinator.triggerCheckpoint();
    }

    @Override
    public CompletableFuture<CompletedCheckpoint> triggerSavepoint()
    {
        return coordinator.triggerSavepoint();
    }

    @Override
    public CompletableFuture<CompletedCheckpoint> stopWithSavepoint()
    {
        return suspendingSavepoint().thenApply(savepoint ->
        {
            cancel();
            return savepoint;
        });
    }

    /**
     * Takes a savepoint after which no source emits; the sources resume if it fails. The caller ends the job.
     *
     * @return completes with the savepoint.
     */
    CompletableFuture<CompletedCheckpoint> suspendingSavepoint()
    {
        final CompletableFuture<CompletedCheckpoint> savepoint = coordinator.triggerSavepoint(this::stopSourcesAfter);
        return savepoint.whenComplete((done, failed) ->
        {
            if (failed != null)
            {
                stopSourcesAfter(Long.MAX_VALUE);
                for (final Thread thread : threads)
                {
                    LockSupport.unpark(thread);
                }
            }
        });
    }

    /** @param barrier sources emit nothing once they have injected this barrier; MAX_VALUE to never stop. */
    void stopSourcesAfter(final long barrier)
    {
        stopSourcesAfter = barrier;
    }

    /** @return the barrier after which sources emit nothing, MAX_VALUE when they run freely. Any thread. */
    long stopSourcesAfter()
    {
        return stopSourcesAfter;
    }

    @Override
    public List<CompletedCheckpoint> completedCheckpoints()
    {
        return coordinator.completedCheckpoints();
    }

    /** @return the id the next checkpoint of this attempt would get. */
    long nextCheckpointId()
    {
        return coordinator.nextCheckpointId();
    }

    /**
     * Asks every running source to inject barrier {@code id} at its next cycle. Any thread.
     *
     * @param id        the checkpoint.
     * @param savepoint whether it is a savepoint (always aligned).
     */
    void requestBarrier(final long id, final boolean savepoint)
    {
        requestedBarrier.accumulateAndGet(id << 1 | (savepoint ? 1 : 0), Math::max);
        for (final Thread thread : threads)
        {
            LockSupport.unpark(thread);
        }
    }

    void acknowledge(final Task task, final TaskAcknowledgement acknowledgement)
    {
        coordinator.acknowledge(task, acknowledgement);
    }

    /**
     * Writes a task's capture on the flusher, then acknowledges it; a write that fails declines the checkpoint.
     * Task thread; the writing happens on the flusher thread.
     */
    void flush(final Task task, final TaskSnapshot snapshot, final long position, final long firstBarrierNanos,
        final long syncNanos, final long alignmentNanos, final boolean unaligned)
    {
        final Runnable write = () ->
        {
            if (!coordinator.beginWrite(snapshot.checkpointId))
            {
                // aborted or expired while queued: nothing may be written for it
                snapshot.release();
                return;
            }
            try
            {
                final long start = System.nanoTime();
                final long[] bytes = new long[1];
                final List<TaskAcknowledgement.OperatorStateAck> states;
                try
                {
                    states = snapshot.write(coordinator.storage(), bytes);
                }
                catch (final Exception | LinkageError ex)
                {
                    coordinator.decline(task, snapshot.checkpointId, ex);
                    return;
                }
                finally
                {
                    snapshot.release();
                }
                coordinator.acknowledge(task, new TaskAcknowledgement(snapshot.checkpointId, position,
                    firstBarrierNanos, syncNanos, System.nanoTime() - start, alignmentNanos, bytes[0],
                    snapshot.inFlightBytes(), snapshot.inFlightRecords(), unaligned, states));
            }
            finally
            {
                // if the checkpoint ended while it was written, its files are deleted now, after the last of them
                coordinator.endWrite(snapshot.checkpointId);
            }
        };
        if (coordinator.storage() instanceof io.ringflow.state.checkpoint.InMemoryCheckpointStorage &&
            snapshot.isSmall())
        {
            // a small snapshot into memory is a copy of a few kilobytes: cheaper on the task thread than a hand-off
            write.run();
            return;
        }
        try
        {
            flusher.execute(write);
        }
        catch (final java.util.concurrent.RejectedExecutionException stopped)
        {
            // the job is stopping: the checkpoint will not complete
            snapshot.release();
        }
    }

    void abortedByTask(final Task task, final long checkpointId, final AbortReason reason)
    {
        coordinator.abortedByTask(task, checkpointId, reason);
    }

    void notifyTasksComplete(final long checkpointId)
    {
        for (int i = 0; i < tasks.size(); i++)
        {
            tasks.get(i).post(checkpointId);
            LockSupport.unpark(threads.get(i));
        }
    }

    void notifyTasksAborted(final long checkpointId)
    {
        for (int i = 0; i < tasks.size(); i++)
        {
            tasks.get(i).post(-checkpointId);
            LockSupport.unpark(threads.get(i));
        }
    }

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
     * @return per ring channel, the slots published and not yet consumed, in channel creation order; a snapshot for
     *     tools and tests that watch back-pressure. Any thread.
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

    /** @return the number of ring channels of the physical plan. */
    public int channelCount()
    {
        return channels.size();
    }

    /**
     * @param checkpointId a checkpoint whose barrier a task is handling.
     * @return how its keyed state is snapshotted: null for full snapshots in the checkpoint's folder.
     */
    KeyedSnapshotPlan keyedSnapshotPlan(final long checkpointId)
    {
        return coordinator.keyedSnapshotPlan(checkpointId);
    }

    /** @return the newest requested barrier, packed: {@code id << 1}, low bit set for a savepoint. */
    long requestedBarrier()
    {
        return requestedBarrier.get();
    }

    boolean isStopping()
    {
        return stopping;
    }

    /**
     * A task that had processed all its input failed to close (e.g. a sink's last flush): that is output lost, so it
     * fails the job even when the job is already stopping, unless another failure was reported first.
     */
    void failAfterFinish(final Throwable cause)
    {
        if (failure.compareAndSet(null, cause))
        {
            LOG.log(Level.WARNING, () -> "job '" + jobName + "' lost output on close: " + cause);
            stop();
        }
    }

    void fail(final Throwable cause)
    {
        // Once the job is stopping (cancelled, or failed already), later exceptions are consequences, not causes.
        if (!stopping && failure.compareAndSet(null, cause))
        {
            LOG.log(Level.DEBUG, () -> "job '" + jobName + "' failed: " + cause);
            stop();
        }
    }

    void taskFinished(final Task task)
    {
        // after the task's snapshots still being written: a finished task stands for its barriers only in
        // checkpoints it did not acknowledge itself (the flusher runs in order, so its acknowledgements come first)
        final long position = task.finishedPosition();
        try
        {
            flusher.execute(() -> coordinator.taskFinished(task, position));
        }
        catch (final java.util.concurrent.RejectedExecutionException stopping)
        {
            coordinator.taskFinished(task, position);
        }
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
                // Tasks poll the stop flag; the interrupt is for user code blocked in I/O or sleep inside the work
                // loop, never for a task that is closing its operators.
                tasks.get(i).interruptIfInLoop(thread);
            }
        }
    }
}
