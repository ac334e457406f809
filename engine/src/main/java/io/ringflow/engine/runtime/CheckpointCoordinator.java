package io.ringflow.engine.runtime;

import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.state.checkpoint.CheckpointMetadata;
import io.ringflow.state.checkpoint.CheckpointStorage;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * Triggers checkpoints, tracks the pending ones and completes them when every task has acknowledged (a finished task
 * counts as having acknowledged the checkpoints it did not take part in: its END_OF_INPUT stands for their barriers).
 * Its parts: {@link PeriodicTrigger} (the timer), {@link PendingCheckpoint} (one checkpoint's acknowledgements, its
 * metadata and statistics), {@link CheckpointCommitter} (storage: commits, deletions of aborted checkpoints). This
 * class holds the protocol between them: registration, acknowledgement, decline, abort, expiry, subsumption,
 * tolerable failures and the history of completed checkpoints.
 *
 * <p>Thread contract: triggers come from the timer thread or a caller of {@code triggerCheckpoint}; acknowledgements
 * and finishes from task threads and the snapshot flusher. All state is guarded by one lock, taken a few times per
 * checkpoint per task, never per record; storage work and notifications happen outside it. A complete checkpoint is
 * committed on the committer's I/O thread for durable storage, on the acknowledging thread for in-memory storage; its
 * future completes on that thread, so callers chain heavy work with the {@code *Async} methods. Completion and abort
 * notifications go to each task's mailbox; tasks run them on their own thread.
 *
 * <p>Order of a checkpoint: the pending checkpoint is registered before its barrier is requested (so no
 * acknowledgement can arrive before it exists); once its metadata is stored it is complete, and every older pending
 * checkpoint is aborted as subsumed; a checkpoint pending longer than the timeout is aborted, and more consecutive
 * failures than tolerated fail the job.
 */
final class CheckpointCoordinator
{
    private static final System.Logger LOG = System.getLogger(CheckpointCoordinator.class.getName());

    private final JobExecution execution;
    private final CheckpointConfig config;
    private final CheckpointCommitter committer;
    private final Object lock = new Object();
    /** Held for a whole commit (store, then completion); never taken inside {@link #lock}'s critical sections. */
    private final Object commitLock = new Object();
    private final TreeMap<Long, PendingCheckpoint> pending = new TreeMap<>();
    private final ArrayDeque<CompletedCheckpoint> completed = new ArrayDeque<>();
    private final int retained;
    private final int tolerableFailures;
    private PeriodicTrigger timer;
    private List<Task> tasks;
    private boolean[] finished;
    private long[] finishedPositions;
    private long nextCheckpointId;
    private long lastCompletionNanos = Long.MIN_VALUE;
    /**
     * The newest checkpoint (not savepoint) committed by this attempt: the base of the next checkpoints' keyed deltas
     * with incremental snapshots. Under {@link #lock}.
     */
    private CheckpointMetadata latestBase;
    /** Checkpoints pending when the job stopped: their files are deleted once the job has terminated. */
    private final List<Long> abortedAtStop = new ArrayList<>();
    private int consecutiveFailures;
    private boolean stopped;

    /**
     * @param execution       the job.
     * @param config          periodic checkpoints, or null for checkpoints on demand only (no timeout then).
     * @param firstCheckpoint the id of this attempt's first checkpoint: above every id of earlier attempts.
     * @param storage         where checkpoints go; shared by the attempts of a run.
     */
    CheckpointCoordinator(final JobExecution execution, final CheckpointConfig config, final long firstCheckpoint,
        final CheckpointStorage storage)
    {
        this.execution = execution;
        this.nextCheckpointId = firstCheckpoint;
        this.config = config;
        this.retained = config != null ? config.retained() : 1;
        this.tolerableFailures = config != null ? config.tolerableFailures() : Integer.MAX_VALUE;
        this.committer = new CheckpointCommitter(execution.jobName(), storage, retained);
    }

    /** Called once, after every task is known and before the threads start. */
    void start(final List<Task> allTasks)
    {
        tasks = List.copyOf(allTasks);
        finished = new boolean[tasks.size()];
        finishedPositions = new long[tasks.size()];
        if (config != null)
        {
            timer = new PeriodicTrigger(execution.jobName(), config.interval(), this::tick);
        }
    }

    /** Stops triggering; pending checkpoints and waiting callers are aborted. Any thread; idempotent. */
    void stop()
    {
        final List<PendingCheckpoint> aborted;
        synchronized (lock)
        {
            if (stopped)
            {
                return;
            }
            stopped = true;
            aborted = new ArrayList<>(pending.values());
            pending.clear();
            for (final PendingCheckpoint p : aborted)
            {
                abortedAtStop.add(p.id);
            }
        }
        if (timer != null)
        {
            timer.stop();
        }
        committer.shutdown();
        for (final PendingCheckpoint p : aborted)
        {
            p.future.completeExceptionally(
                new IllegalStateException("checkpoint " + p.id + " aborted: the job stopped"));
        }
    }

    /**
     * The job has terminated: a commit still running finishes, then a cancelled job that does not retain its
     * checkpoints deletes them. Called once, by the job's monitor thread, after {@link #stop()}.
     *
     * @param cancelled whether the job ended CANCELED.
     */
    void jobTerminated(final boolean cancelled)
    {
        final List<Long> abandoned;
        synchronized (lock)
        {
            abandoned = List.copyOf(abortedAtStop);
        }
        committer.finish(cancelled && config != null && !config.retainOnCancel(), abandoned);
    }

    /**
     * @return completes with the checkpoint once every task acknowledged it, or exceptionally when it is aborted.
     */
    CompletableFuture<CompletedCheckpoint> triggerCheckpoint()
    {
        return trigger(false).future.thenApply(c -> c);
    }

    /**
     * @return completes with the savepoint (aligned, marked as a savepoint in its metadata, kept by retention and on
     *     cancel), or exceptionally when it is aborted.
     */
    CompletableFuture<CompletedCheckpoint> triggerSavepoint()
    {
        return trigger(true).future.thenApply(c -> c);
    }

    /**
     * A savepoint whose id is handed to {@code beforeRequest} after it is registered and before its barrier is
     * requested (a stop-with-savepoint stops the sources there).
     *
     * @param beforeRequest receives the savepoint's id.
     * @return completes with the savepoint, or exceptionally.
     */
    CompletableFuture<CompletedCheckpoint> triggerSavepoint(final java.util.function.LongConsumer beforeRequest)
    {
        final PendingCheckpoint p;
        synchronized (lock)
        {
            if (stopped)
            {
                return CompletableFuture.failedFuture(new IllegalStateException("the job is not running"));
            }
            p = register(true);
        }
        beforeRequest.accept(p.id);
        execution.requestBarrier(p.id, true);
        return p.future.thenApply(c -> c);
    }

    /** @return the triggered checkpoint (already aborted when the job has stopped). */
    PendingCheckpoint trigger()
    {
        return trigger(false);
    }

    /**
     * @param savepoint whether to take a savepoint.
     * @return the triggered checkpoint (already aborted when the job has stopped).
     */
    PendingCheckpoint trigger(final boolean savepoint)
    {
        final PendingCheckpoint p;
        synchronized (lock)
        {
            if (stopped)
            {
                final PendingCheckpoint refused = new PendingCheckpoint(-1, 0, savepoint);
                refused.future.completeExceptionally(new IllegalStateException("the job is not running"));
                return refused;
            }
            p = register(savepoint);
        }
        execution.requestBarrier(p.id, savepoint);
        return p;
    }

    /** @return the retained completed checkpoints, oldest first. */
    List<CompletedCheckpoint> completedCheckpoints()
    {
        synchronized (lock)
        {
            return List.copyOf(completed);
        }
    }

    /**
     * Deletes the files of a checkpoint that ended (aborted, subsumed, expired) while a task was still writing its
     * part: the abort's own clean-up may have run before those files existed. A no-op for a stored checkpoint. Any
     * thread; the deletion runs on the I/O thread.
     *
     * @param checkpointId the checkpoint no longer pending.
     */
    void discardLate(final long checkpointId)
    {
        committer.discardLater(checkpointId);
    }

    /** @return whether the checkpoint is still waiting for acknowledgements. */
    boolean isPending(final long id)
    {
        synchronized (lock)
        {
            final PendingCheckpoint p = pending.get(id);
            return p != null && !p.committing;
        }
    }

    /** @return the id the next checkpoint would get. */
    long nextCheckpointId()
    {
        synchronized (lock)
        {
            return nextCheckpointId;
        }
    }

    /** @return where checkpoints and their state files go. */
    CheckpointStorage storage()
    {
        return committer.storage();
    }

    /**
     * A task's snapshot of a checkpoint is complete and durable. Task thread (stateless tasks, small snapshots) or the
     * flusher.
     */
    void acknowledge(final Task task, final TaskAcknowledgement ack)
    {
        final long now = System.nanoTime();
        final Runnable commit;
        synchronized (lock)
        {
            final PendingCheckpoint p = pending.get(ack.checkpointId());
            if (p == null || p.committing)
            {
                return;
            }
            p.acknowledge(task.index(), ack, now);
            commit = commitIfCompleteLocked(p);
        }
        if (commit != null)
        {
            committer.run(commit);
        }
    }

    /**
     * A task gave up a checkpoint on its own (a newer barrier overtook it, or its alignment was cancelled): the
     * checkpoint can no longer complete, and must not complete later because the task finished. Task thread.
     */
    void abortedByTask(final Task task, final long checkpointId, final String reason)
    {
        final PendingCheckpoint p;
        synchronized (lock)
        {
            p = pending.get(checkpointId);
            if (p == null || p.committing || p.isAcknowledgedBy(task.index()))
            {
                return;
            }
        }
        failed(List.of(p), "aborted by task " + task.name() + ": " + reason, false);
    }

    /**
     * A task could not write its snapshot of a checkpoint: the checkpoint is declined (aborted, counting as a
     * failure). The flusher.
     */
    void decline(final Task task, final long checkpointId, final Throwable cause)
    {
        final PendingCheckpoint p;
        synchronized (lock)
        {
            p = pending.get(checkpointId);
            if (p == null || p.committing)
            {
                return;
            }
        }
        LOG.log(Level.WARNING, "task " + task.name() + " declined checkpoint " + checkpointId + " of job '" +
            execution.jobName() + "'", cause);
        failed(List.of(p), "declined by task " + task.name() + ": " + cause, true);
    }

    /** A task reached the end of its input; {@code position} is a source's end position, else -1. The flusher. */
    void taskFinished(final Task task, final long position)
    {
        final List<Runnable> commits = new ArrayList<>();
        synchronized (lock)
        {
            finished[task.index()] = true;
            finishedPositions[task.index()] = position;
            for (final PendingCheckpoint p : new ArrayList<>(pending.values()))
            {
                final Runnable commit = commitIfCompleteLocked(p);
                if (commit != null)
                {
                    commits.add(commit);
                }
            }
        }
        commits.forEach(committer::run);
    }

    /** @return the commit of {@code p} when every task acknowledged or finished, to run outside the lock; or null. */
    private Runnable commitIfCompleteLocked(final PendingCheckpoint p)
    {
        if (p.committing || !p.isComplete(finished))
        {
            return null;
        }
        p.committing = true;
        final CheckpointMetadata metadata = p.metadata(tasks, finishedPositions);
        return () -> commit(p, metadata);
    }

    private void commit(final PendingCheckpoint p, final CheckpointMetadata metadata)
    {
        // in-memory commits run on the acknowledging threads: one at a time, so a newer one is never overtaken; what
        // follows a commit (notifications, the caller's future) runs after the commit lock is released
        final Runnable after;
        synchronized (commitLock)
        {
            after = commitSerialized(p, metadata);
        }
        after.run();
    }

    /** @return what to do once the commit lock is released. */
    private Runnable commitSerialized(final PendingCheckpoint p, final CheckpointMetadata metadata)
    {
        synchronized (lock)
        {
            if (stopped || !pending.containsKey(p.id))
            {
                // the job stopped, or the checkpoint was aborted or subsumed, while this commit waited its turn
                return () -> { };
            }
        }
        final Set<Long> pinned = new HashSet<>();
        synchronized (lock)
        {
            // the current base, which checkpoints registered during this commit will still build on, and the base
            // of every pending checkpoint: their keyed chains refer to those checkpoints' shared files
            if (latestBase != null)
            {
                pinned.add(latestBase.checkpointId());
            }
            for (final PendingCheckpoint other : pending.values())
            {
                if (other.incrementalBase != null)
                {
                    pinned.add(other.incrementalBase.checkpointId());
                }
            }
        }
        try
        {
            committer.store(metadata, pinned);
        }
        catch (final IOException | RuntimeException ex)
        {
            LOG.log(Level.WARNING, "checkpoint " + p.id + " of job '" + execution.jobName() +
                "' could not be committed", ex);
            synchronized (lock)
            {
                // the commit itself failed: the checkpoint is no longer committing, it failed
                p.committing = false;
            }
            return () -> failed(List.of(p), "could not be stored: " + ex, true);
        }
        final List<PendingCheckpoint> subsumed = new ArrayList<>();
        final CompletedCheckpoint done = p.completed(metadata, tasks);
        final boolean notify;
        synchronized (lock)
        {
            // once stored, the checkpoint is complete even if the job stopped meanwhile (retention may already have
            // deleted its predecessor): a restart must know of it
            notify = pending.remove(p.id) != null && !stopped;
            for (final Iterator<PendingCheckpoint> it = pending.headMap(p.id).values().iterator(); it.hasNext();)
            {
                final PendingCheckpoint older = it.next();
                if (older.savepoint)
                {
                    // a savepoint is never subsumed: it completes on its own, or expires
                    continue;
                }
                it.remove();
                subsumed.add(older);
                committer.discardLater(older.id);
            }
            completed.addLast(done);
            if (!p.savepoint)
            {
                latestBase = metadata;
            }
            while (completed.size() > retained)
            {
                completed.removeFirst();
            }
            lastCompletionNanos = System.nanoTime();
            consecutiveFailures = 0;
        }
        return () ->
        {
            for (final PendingCheckpoint older : subsumed)
            {
                if (notify)
                {
                    execution.notifyTasksAborted(older.id);
                }
                older.future.completeExceptionally(new IllegalStateException("checkpoint " + older.id +
                    " subsumed by " + p.id));
            }
            if (notify)
            {
                execution.notifyTasksComplete(done.checkpointId());
            }
            p.future.complete(done);
        };
    }

    /**
     * Aborts checkpoints that will not complete; a commit already running wins over an expiry or decline. More
     * consecutive failures than tolerated fail the job.
     *
     * @param countsAsFailure false for a checkpoint a task dropped because a newer one overtook it (subsumed).
     */
    private void failed(final List<PendingCheckpoint> candidates, final String why, final boolean countsAsFailure)
    {
        final boolean tooMany;
        boolean counted = false;
        final List<PendingCheckpoint> failedCheckpoints = new ArrayList<>();
        synchronized (lock)
        {
            for (final PendingCheckpoint p : candidates)
            {
                if (!p.committing && pending.remove(p.id) != null)
                {
                    failedCheckpoints.add(p);
                    // a savepoint the user asked for never uses up the tolerance of periodic checkpoints
                    if (countsAsFailure && !p.savepoint)
                    {
                        consecutiveFailures++;
                        counted = true;
                    }
                }
            }
            tooMany = counted && consecutiveFailures > tolerableFailures;
        }
        for (final PendingCheckpoint p : failedCheckpoints)
        {
            committer.discardLater(p.id);
            execution.notifyTasksAborted(p.id);
            p.future.completeExceptionally(new IllegalStateException("checkpoint " + p.id + " " + why));
        }
        if (tooMany)
        {
            execution.fail(new IllegalStateException("job '" + execution.jobName() + "' exceeded its tolerable " +
                "checkpoint failures (" + tolerableFailures + "): the last checkpoint " + why));
        }
    }

    /** The timer: expires overdue checkpoints, then triggers one if fewer than the maximum are pending. */
    private void tick()
    {
        expireOverdue();
        final PendingCheckpoint p;
        synchronized (lock)
        {
            if (stopped || pending.size() >= config.maxConcurrent() || savepointPendingLocked() ||
                (lastCompletionNanos != Long.MIN_VALUE &&
                    System.nanoTime() - lastCompletionNanos < config.minPause().toNanos()))
            {
                return;
            }
            p = register(false);
        }
        execution.requestBarrier(p.id, false);
    }

    private void expireOverdue()
    {
        final List<PendingCheckpoint> expired = new ArrayList<>();
        synchronized (lock)
        {
            final long now = System.nanoTime();
            for (final PendingCheckpoint p : pending.values())
            {
                if (!p.committing && now - p.triggerNanos > config.timeout().toNanos())
                {
                    expired.add(p);
                }
            }
        }
        if (!expired.isEmpty())
        {
            failed(expired, "expired after " + config.timeout(), true);
        }
    }

    /** A newer barrier would overtake a savepoint's at sources that have not injected it yet: wait for it. */
    private boolean savepointPendingLocked()
    {
        for (final PendingCheckpoint p : pending.values())
        {
            if (p.savepoint)
            {
                return true;
            }
        }
        return false;
    }

    private PendingCheckpoint register(final boolean savepoint)
    {
        final PendingCheckpoint p = new PendingCheckpoint(nextCheckpointId++, tasks.size(), savepoint);
        if (!savepoint && config != null && config.incremental())
        {
            p.incrementalBase = latestBase;
        }
        pending.put(p.id, p);
        return p;
    }

    /**
     * How tasks snapshot their keyed state for a checkpoint. Task threads, at the barrier; the plan was fixed when
     * the checkpoint was registered, before its barrier was requested.
     *
     * @param checkpointId the checkpoint.
     * @return null for full, self-contained snapshots in the checkpoint's own folder (savepoints, and every
     *     checkpoint without incremental snapshots, or one no longer pending); else the plan for shared chains.
     */
    KeyedSnapshotPlan keyedSnapshotPlan(final long checkpointId)
    {
        synchronized (lock)
        {
            final PendingCheckpoint p = pending.get(checkpointId);
            if (p == null || p.savepoint || config == null || !config.incremental())
            {
                return null;
            }
            return new KeyedSnapshotPlan(p.incrementalBase, config.fullSnapshotEvery());
        }
    }
}
