package io.ringflow.engine.runtime;

import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CompletedCheckpoint;

import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Triggers checkpoints, tracks the pending ones and completes them when every task has acknowledged (a finished
 * task counts as having acknowledged every later checkpoint: END_OF_INPUT stands for its barriers).
 *
 * <p>Thread contract: triggers come from the timer thread or a caller of {@code triggerCheckpoint}; acknowledgements
 * and finishes from task threads. All state is guarded by one lock, taken a few times per checkpoint per task,
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
    private ScheduledExecutorService timer;
    private List<Task> tasks;
    private boolean[] finished;
    private long[] finishedPositions;
    private long nextCheckpointId = 1;
    private long lastCompletionNanos = Long.MIN_VALUE;
    private int consecutiveFailures;
    private boolean stopped;

    /**
     * @param execution the job.
     * @param config    periodic checkpoints, or null for checkpoints on demand only (no timeout then).
     */
    CheckpointCoordinator(final JobExecution execution, final CheckpointConfig config)
    {
        this.execution = execution;
        this.config = config;
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
        for (final Pending p : aborted)
        {
            p.future.completeExceptionally(new IllegalStateException("checkpoint " + p.id + " aborted: the job stopped"));
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

    /** A task took its snapshot of checkpoint {@code id}; sources give their position, others -1. Task thread. */
    void acknowledge(final Task task, final long id, final long position)
    {
        final List<Long> subsumed = new ArrayList<>();
        CompletedCheckpoint done = null;
        Pending p;
        synchronized (lock)
        {
            p = pending.get(id);
            if (p == null)
            {
                return;
            }
            p.acknowledged[task.index()] = true;
            p.positions[task.index()] = position;
            if (p.isComplete())
            {
                done = completeLocked(p, subsumed);
            }
        }
        notifyOutcome(done, p, subsumed);
    }

    /** A task reached the end of its input; {@code position} as for {@link #acknowledge}. Task thread. */
    void taskFinished(final Task task, final long position)
    {
        final List<Runnable> outcomes = new ArrayList<>();
        synchronized (lock)
        {
            finished[task.index()] = true;
            finishedPositions[task.index()] = position;
            for (final Pending p : new ArrayList<>(pending.values()))
            {
                if (pending.containsKey(p.id) && p.isComplete())
                {
                    final List<Long> subsumed = new ArrayList<>();
                    final CompletedCheckpoint done = completeLocked(p, subsumed);
                    outcomes.add(() -> notifyOutcome(done, p, subsumed));
                }
            }
        }
        outcomes.forEach(Runnable::run);
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
        boolean tooMany = false;
        synchronized (lock)
        {
            final long now = System.nanoTime();
            for (final Iterator<Pending> it = pending.values().iterator(); it.hasNext();)
            {
                final Pending p = it.next();
                if (now - p.triggerNanos > config.timeout().toNanos())
                {
                    it.remove();
                    expired.add(p);
                    consecutiveFailures++;
                }
            }
            tooMany = consecutiveFailures > config.tolerableFailures();
        }
        for (final Pending p : expired)
        {
            execution.notifyTasksAborted(p.id);
            p.future.completeExceptionally(new IllegalStateException("checkpoint " + p.id + " expired after " +
                config.timeout()));
        }
        if (tooMany)
        {
            execution.fail(new IllegalStateException("job '" + execution.jobName() + "' exceeded its tolerable " +
                "checkpoint failures (" + config.tolerableFailures() + "): the last checkpoints expired after " +
                config.timeout()));
        }
    }

    private Pending register()
    {
        final Pending p = new Pending(nextCheckpointId++, tasks.size());
        pending.put(p.id, p);
        return p;
    }

    private CompletedCheckpoint completeLocked(final Pending p, final List<Long> subsumed)
    {
        pending.remove(p.id);
        for (final Iterator<Pending> it = pending.headMap(p.id).values().iterator(); it.hasNext();)
        {
            final Pending older = it.next();
            it.remove();
            subsumed.add(older.id);
            older.future.completeExceptionally(new IllegalStateException("checkpoint " + older.id +
                " subsumed by " + p.id));
        }
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
                perSubtask.set(source.subtaskIndex(), p.acknowledged[i] ? p.positions[i] : finishedPositions[i]);
            }
        }
        final CompletedCheckpoint done = new CompletedCheckpoint(
            p.id, p.triggerMillis, System.nanoTime() - p.triggerNanos, positions);
        completed.addLast(done);
        while (completed.size() > (config == null ? 1 : config.retained()))
        {
            completed.removeFirst();
        }
        lastCompletionNanos = System.nanoTime();
        consecutiveFailures = 0;
        return done;
    }

    private void notifyOutcome(final CompletedCheckpoint done, final Pending p, final List<Long> subsumed)
    {
        for (final long id : subsumed)
        {
            execution.notifyTasksAborted(id);
        }
        if (done != null)
        {
            execution.notifyTasksComplete(done.checkpointId());
            p.future.complete(done);
        }
    }

    /** A triggered checkpoint waiting for acknowledgements. Guarded by the coordinator's lock. */
    final class Pending
    {
        final long id;
        final long triggerNanos = System.nanoTime();
        final long triggerMillis = System.currentTimeMillis();
        final boolean[] acknowledged;
        final long[] positions;
        final CompletableFuture<CompletedCheckpoint> future = new CompletableFuture<>();

        Pending(final long id, final int taskCount)
        {
            this.id = id;
            this.acknowledged = new boolean[taskCount];
            this.positions = new long[taskCount];
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
