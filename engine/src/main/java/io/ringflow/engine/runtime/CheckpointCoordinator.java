package io.ringflow.engine.runtime;

import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.api.SubtaskCheckpointStats;
import io.ringflow.state.checkpoint.CheckpointMetadata;
import io.ringflow.state.checkpoint.CheckpointStorage;
import io.ringflow.state.checkpoint.InMemoryCheckpointStorage;
import io.ringflow.state.checkpoint.OperatorState;
import io.ringflow.state.checkpoint.SubtaskState;

import java.io.IOException;

import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Triggers checkpoints, tracks the pending ones and completes them when every task has acknowledged (a finished
 * task counts as having acknowledged every later checkpoint: END_OF_INPUT stands for its barriers).
 *
 * <p>Thread contract: triggers come from the timer thread or a caller of {@code triggerCheckpoint}; acknowledgements
 * and finishes from task threads and the snapshot flusher. A complete checkpoint is committed on the I/O thread for
 * durable storage, on the acknowledging thread (outside the lock) for in-memory storage; its future completes on
 * that thread, so callers chain heavy work with the {@code *Async} methods. All state is guarded by one lock, taken a few times per checkpoint per task,
 * never per record. Completion and abort notifications go to each task's mailbox; tasks run them on their own
 * thread.
 *
 * <p>Order of a checkpoint: the pending checkpoint is registered before its barrier is requested (so no
 * acknowledgement can arrive before it exists); on completion every older pending checkpoint is aborted as
 * subsumed; a checkpoint pending longer than the timeout is aborted, and more consecutive failures than tolerated
 * fail the job.
 */
final class CheckpointCoordinator
{
    private static final System.Logger LOG = System.getLogger(CheckpointCoordinator.class.getName());

    private final JobExecution execution;
    private final CheckpointConfig config;
    private final Object lock = new Object();
    private final TreeMap<Long, Pending> pending = new TreeMap<>();
    private final ArrayDeque<CompletedCheckpoint> completed = new ArrayDeque<>();
    private final CheckpointStorage storage;
    private final int retained;
    private final int tolerableFailures;
    /** Commits metadata, one checkpoint at a time in order; a daemon thread, so never a task thread. */
    private final ExecutorService io;
    private ScheduledExecutorService timer;
    private List<Task> tasks;
    private boolean[] finished;
    private long[] finishedPositions;
    private long nextCheckpointId = 1;
    private long lastCompletionNanos = Long.MIN_VALUE;
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
        this.storage = storage;
        this.retained = config != null ? config.retained() : 1;
        this.tolerableFailures = config != null ? config.tolerableFailures() : Integer.MAX_VALUE;
        this.io = Executors.newSingleThreadExecutor(runnable ->
        {
            final Thread thread = new Thread(runnable, "ringflow-checkpoint-io-" + execution.jobName());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Called once, after every task is known and before the threads start. */
    void start(final List<Task> allTasks)
    {
        tasks = List.copyOf(allTasks);
        finished = new boolean[tasks.size()];
        finishedPositions = new long[tasks.size()];
        if (config != null)
        {
            timer = Executors.newSingleThreadScheduledExecutor(runnable ->
            {
                final Thread thread = new Thread(runnable, "ringflow-checkpoint-timer-" + execution.jobName());
                thread.setDaemon(true);
                return thread;
            });
            final long interval = config.interval().toNanos();
            timer.scheduleAtFixedRate(this::tick, interval, interval, TimeUnit.NANOSECONDS);
        }
    }

    /** Stops triggering; pending checkpoints and waiting callers are aborted. Any thread; idempotent. */
    void stop()
    {
        final List<Pending> aborted;
        synchronized (lock)
        {
            if (stopped)
            {
                return;
            }
            stopped = true;
            aborted = new ArrayList<>(pending.values());
            pending.clear();
        }
        if (timer != null)
        {
            timer.shutdownNow();
        }
        io.shutdown();
        for (final Pending p : aborted)
        {
            p.future.completeExceptionally(new IllegalStateException("checkpoint " + p.id + " aborted: the job stopped"));
        }
    }

    /**
     * The job has terminated: a cancelled job that does not retain its checkpoints deletes them, after any commit
     * still running. Called once, by the job's monitor thread, after {@link #stop()}.
     *
     * @param cancelled whether the job ended CANCELED.
     */
    void jobTerminated(final boolean cancelled)
    {
        try
        {
            // a commit already running finishes (a checkpoint is stored whole or not at all) before the job is over
            io.awaitTermination(1, TimeUnit.MINUTES);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return;
        }
        if (!cancelled || config == null || config.retainOnCancel())
        {
            return;
        }
        try
        {
            storage.discardAll();
        }
        catch (final IOException | RuntimeException ex)
        {
            LOG.log(Level.WARNING, "could not delete the checkpoints of cancelled job '" + execution.jobName() + "'",
                ex);
        }
    }

    /**
     * @return completes with the checkpoint once every task acknowledged it, or exceptionally when it is aborted.
     */
    CompletableFuture<CompletedCheckpoint> triggerCheckpoint()
    {
        return trigger().future.thenApply(c -> c);
    }

    /** @return the triggered checkpoint (already aborted when the job has stopped). */
    Pending trigger()
    {
        final Pending p;
        synchronized (lock)
        {
            if (stopped)
            {
                final Pending refused = new Pending(-1, 0);
                refused.future.completeExceptionally(new IllegalStateException("the job is not running"));
                return refused;
            }
            p = register();
        }
        execution.requestBarrier(p.id);
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

    /** @return whether the checkpoint is still waiting for acknowledgements. */
    boolean isPending(final long id)
    {
        synchronized (lock)
        {
            final Pending p = pending.get(id);
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
        return storage;
    }

    /**
     * A task's snapshot of a checkpoint is complete and durable. Task thread (stateless tasks) or the flusher.
     */
    void acknowledge(final Task task, final TaskAcknowledgement ack)
    {
        final long now = System.nanoTime();
        final Runnable commit;
        synchronized (lock)
        {
            final Pending p = pending.get(ack.checkpointId());
            if (p == null || p.committing)
            {
                return;
            }
            final int i = task.index();
            p.acknowledged[i] = true;
            p.acks[i] = ack;
            p.acknowledgedAfterNanos[i] = now - p.triggerNanos;
            commit = commitIfCompleteLocked(p);
        }
        if (commit != null)
        {
            commit.run();
        }
    }

    /**
     * A task gave up a checkpoint on its own (a newer barrier overtook it, or its alignment was cancelled): the
     * checkpoint can no longer complete, and must not complete later because the task finished. Task thread.
     */
    void abortedByTask(final Task task, final long checkpointId, final String reason)
    {
        final Pending p;
        synchronized (lock)
        {
            p = pending.get(checkpointId);
            if (p == null || p.committing || p.acknowledged[task.index()])
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
        final Pending p;
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
        failed(List.of(p), "declined by task " + task.name() + ": " + cause);
    }

    /** A task reached the end of its input; {@code position} as for {@link #acknowledge}. Task thread. */
    void taskFinished(final Task task, final long position)
    {
        final List<Runnable> commits = new ArrayList<>();
        synchronized (lock)
        {
            finished[task.index()] = true;
            finishedPositions[task.index()] = position;
            for (final Pending p : new ArrayList<>(pending.values()))
            {
                final Runnable commit = commitIfCompleteLocked(p);
                if (commit != null)
                {
                    commits.add(commit);
                }
            }
        }
        commits.forEach(Runnable::run);
    }

    /**
     * Every task acknowledged: the metadata is committed to storage on the I/O thread (never on a task thread), and
     * only then is the checkpoint complete. Commits happen in checkpoint order (one I/O thread).
     */
    private Runnable commitIfCompleteLocked(final Pending p)
    {
        if (p.committing || !p.isComplete())
        {
            return null;
        }
        p.committing = true;
        final CheckpointMetadata metadata = new CheckpointMetadata(p.id, p.triggerMillis, false, positionsOf(p),
            operatorStatesOf(p));
        if (storage instanceof InMemoryCheckpointStorage)
        {
            // nothing to make durable: commit on the acknowledging thread, after the lock is released, and save a
            // thread hand-off (on two busy cores, a wake-up can cost a millisecond)
            return () -> commit(p, metadata);
        }
        return () ->
        {
            try
            {
                io.execute(() -> commit(p, metadata));
            }
            catch (final java.util.concurrent.RejectedExecutionException stopped)
            {
                // the job stopped while the checkpoint completed: it is not committed
            }
        };
    }

    private void commit(final Pending p, final CheckpointMetadata metadata)
    {
        synchronized (lock)
        {
            if (stopped || !pending.containsKey(p.id))
            {
                // the job stopped, or the checkpoint was aborted, while this commit waited for the I/O thread
                return;
            }
        }
        try
        {
            storage.store(metadata, retained);
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
            failed(List.of(p), "could not be stored: " + ex);
            return;
        }
        final List<Long> subsumed = new ArrayList<>();
        final CompletedCheckpoint done;
        final boolean notify;
        synchronized (lock)
        {
            // once stored, the checkpoint is complete even if the job stopped meanwhile (retention may already have
            // deleted its predecessor): a restart must know of it
            notify = pending.remove(p.id) != null && !stopped;
            for (final Iterator<Pending> it = pending.headMap(p.id).values().iterator(); it.hasNext();)
            {
                final Pending older = it.next();
                it.remove();
                subsumed.add(older.id);
                discardLater(older.id);
                older.future.completeExceptionally(new IllegalStateException("checkpoint " + older.id +
                    " subsumed by " + p.id));
            }
            done = new CompletedCheckpoint(p.id, p.triggerMillis, System.nanoTime() - p.triggerNanos,
                metadata.sourcePositions(), statsOf(p));
            completed.addLast(done);
            while (completed.size() > retained)
            {
                completed.removeFirst();
            }
            lastCompletionNanos = System.nanoTime();
            consecutiveFailures = 0;
        }
        if (notify)
        {
            for (final long id : subsumed)
            {
                execution.notifyTasksAborted(id);
            }
            execution.notifyTasksComplete(done.checkpointId());
        }
        p.future.complete(done);
    }

    private List<SubtaskCheckpointStats> statsOf(final Pending p)
    {
        final List<SubtaskCheckpointStats> stats = new ArrayList<>(tasks.size());
        for (int i = 0; i < tasks.size(); i++)
        {
            final TaskAcknowledgement ack = p.acks[i];
            stats.add(ack != null ?
                new SubtaskCheckpointStats(tasks.get(i).name(), ack.syncNanos(), ack.asyncNanos(),
                    ack.alignmentNanos(), Math.max(0, ack.firstBarrierNanos() - p.triggerNanos),
                    p.acknowledgedAfterNanos[i], ack.stateBytes(), ack.inFlightBytes(), ack.inFlightRecords(),
                    ack.unaligned()) :
                SubtaskCheckpointStats.finished(tasks.get(i).name()));
        }
        return List.copyOf(stats);
    }

    /** Gathers every operator subtask's state files; operators with no state at all are left out. */
    private static Map<String, OperatorState> operatorStatesOf(final Pending p)
    {
        final Map<String, SubtaskState[]> bySubtask = new TreeMap<>();
        final Map<String, int[]> shapes = new TreeMap<>();
        for (final TaskAcknowledgement ack : p.acks)
        {
            if (ack == null)
            {
                continue;
            }
            for (final TaskAcknowledgement.OperatorStateAck state : ack.states())
            {
                bySubtask.computeIfAbsent(state.uid(), uid -> new SubtaskState[state.parallelism()])
                    [state.subtask()] = state.state();
                shapes.put(state.uid(), new int[] {state.parallelism(), state.maxParallelism()});
            }
        }
        final Map<String, OperatorState> operators = new LinkedHashMap<>();
        bySubtask.forEach((uid, states) ->
        {
            final List<SubtaskState> subtasks = new ArrayList<>(states.length);
            for (final SubtaskState state : states)
            {
                subtasks.add(state == null ? SubtaskState.EMPTY : state);
            }
            operators.put(uid, new OperatorState(shapes.get(uid)[0], shapes.get(uid)[1], subtasks));
        });
        return operators;
    }

    private Map<String, List<Long>> positionsOf(final Pending p)
    {
        final Map<String, List<Long>> positions = new LinkedHashMap<>();
        for (int i = 0; i < tasks.size(); i++)
        {
            final Task task = tasks.get(i);
            if (task instanceof SourceTask)
            {
                final OperatorRuntime source = task.chain[0].runtime();
                final List<Long> perSubtask = positions.computeIfAbsent(source.uid(), uid ->
                {
                    final List<Long> list = new ArrayList<>();
                    for (int s = 0; s < source.parallelism(); s++)
                    {
                        list.add(-1L);
                    }
                    return list;
                });
                perSubtask.set(source.subtaskIndex(), p.acks[i] != null ? p.acks[i].position() : finishedPositions[i]);
            }
        }
        return positions;
    }

    /** Aborts checkpoints that failed; more consecutive failures than tolerated fail the job. */
    private void failed(final List<Pending> candidates, final String why)
    {
        failed(candidates, why, true);
    }

    /**
     * Aborts checkpoints that will not complete; a commit already running wins over an expiry or decline.
     *
     * @param countsAsFailure false for a checkpoint a task dropped because a newer one overtook it (subsumed).
     */
    private void failed(final List<Pending> candidates, final String why, final boolean countsAsFailure)
    {
        final boolean tooMany;
        final List<Pending> failedCheckpoints = new ArrayList<>();
        synchronized (lock)
        {
            for (final Pending p : candidates)
            {
                if (!p.committing && pending.remove(p.id) != null)
                {
                    failedCheckpoints.add(p);
                    if (countsAsFailure)
                    {
                        consecutiveFailures++;
                    }
                }
            }
            tooMany = countsAsFailure && !failedCheckpoints.isEmpty() && consecutiveFailures > tolerableFailures;
        }
        for (final Pending p : failedCheckpoints)
        {
            discardLater(p.id);
            execution.notifyTasksAborted(p.id);
            p.future.completeExceptionally(new IllegalStateException("checkpoint " + p.id + " " + why));
        }
        if (tooMany)
        {
            execution.fail(new IllegalStateException("job '" + execution.jobName() + "' exceeded its tolerable " +
                "checkpoint failures (" + tolerableFailures + "): the last checkpoint " + why));
        }
    }

    /** Deletes what an aborted checkpoint wrote, on the I/O thread (after any commit before it). */
    private void discardLater(final long id)
    {
        try
        {
            io.execute(() ->
            {
                try
                {
                    storage.discardPending(id);
                }
                catch (final IOException | RuntimeException ex)
                {
                    LOG.log(Level.WARNING, "could not delete the files of aborted checkpoint " + id, ex);
                }
            });
        }
        catch (final java.util.concurrent.RejectedExecutionException stopped)
        {
            // the job stopped; an aborted checkpoint's folder has no metadata and is never restored from
        }
    }

    private void tick()
    {
        try
        {
            expireOverdue();
            final Pending p;
            synchronized (lock)
            {
                if (stopped || pending.size() >= config.maxConcurrent() || (lastCompletionNanos != Long.MIN_VALUE &&
                    System.nanoTime() - lastCompletionNanos < config.minPause().toNanos()))
                {
                    return;
                }
                p = register();
            }
            execution.requestBarrier(p.id);
        }
        catch (final RuntimeException ex)
        {
            LOG.log(Level.WARNING, "checkpoint timer of job '" + execution.jobName() + "' failed", ex);
        }
    }

    private void expireOverdue()
    {
        final List<Pending> expired = new ArrayList<>();
        synchronized (lock)
        {
            final long now = System.nanoTime();
            for (final Pending p : pending.values())
            {
                if (!p.committing && now - p.triggerNanos > config.timeout().toNanos())
                {
                    expired.add(p);
                }
            }
        }
        if (!expired.isEmpty())
        {
            failed(expired, "expired after " + config.timeout());
        }
    }

    private Pending register()
    {
        final Pending p = new Pending(nextCheckpointId++, tasks.size());
        pending.put(p.id, p);
        return p;
    }

    /** A triggered checkpoint waiting for acknowledgements. Guarded by the coordinator's lock. */
    final class Pending
    {
        final long id;
        final long triggerNanos = System.nanoTime();
        final long triggerMillis = System.currentTimeMillis();
        final boolean[] acknowledged;
        /** Every task acknowledged; its metadata is being committed. */
        boolean committing;
        final TaskAcknowledgement[] acks;
        final long[] acknowledgedAfterNanos;
        final CompletableFuture<CompletedCheckpoint> future = new CompletableFuture<>();

        Pending(final long id, final int taskCount)
        {
            this.id = id;
            this.acknowledged = new boolean[taskCount];
            this.acks = new TaskAcknowledgement[taskCount];
            this.acknowledgedAfterNanos = new long[taskCount];
        }

        long id()
        {
            return id;
        }

        boolean isComplete()
        {
            for (int i = 0; i < acknowledged.length; i++)
            {
                if (!acknowledged[i] && !finished[i])
                {
                    return false;
                }
            }
            return true;
        }
    }
}
