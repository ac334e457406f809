package io.ringflow.engine.checkpoint;

import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.engine.api.CheckpointException;
import io.ringflow.engine.api.CompletedCheckpoint;
import io.ringflow.engine.channel.BarrierKind;
import io.ringflow.engine.checkpoint.barrier.AbortReason;
import io.ringflow.state.checkpoint.CheckpointMetadata;
import io.ringflow.state.checkpoint.CheckpointStorage;

import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.LongHashSet;

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
import java.util.function.LongConsumer;
import java.util.function.Supplier;

/**
 * Triggers checkpoints, tracks the pending ones and completes them when every task has acknowledged (a finished task
 * counts as having acknowledged the checkpoints it did not take part in: its END_OF_INPUT stands for their barriers).
 * Its parts: {@link PeriodicTrigger} (the timer), {@link PendingCheckpoint} (one checkpoint's acknowledgements, its
 * metadata and statistics), {@link CheckpointCommitter} (storage: commits, deletions of aborted checkpoints). This
 * class holds the protocol between them: triggering, registration, acknowledgement, decline, abort, expiry,
 * subsumption, tolerable failures and the history of completed checkpoints.
 *
 * <p><b>Triggering: one path, one set of rules.</b> The timer, {@code triggerCheckpoint}, {@code triggerSavepoint}
 * and {@code stopWithSavepoint} all go through {@link #submit}. A checkpoint starts only when
 * <ol>
 *   <li>no savepoint is pending: a savepoint's barrier must be the newest one requested until every source has
 *       injected it (sources inject only the newest requested barrier), so nothing is triggered behind it;</li>
 *   <li>fewer than {@code maxConcurrent} checkpoints are pending;</li>
 *   <li>{@code minPause} has passed since the last checkpoint completed.</li>
 * </ol>
 * A savepoint obeys only the first rule: it starts at once unless another savepoint is pending (as Flink forces
 * savepoints past the concurrency limit), and checkpoints pending then are usually subsumed by it in the tasks.
 * A periodic trigger that may not start is dropped. A trigger asked for by the user waits in a queue (savepoints
 * first, then checkpoints, each in the order asked) and starts as soon as the rules allow: when a checkpoint ends,
 * at each timer tick, and when the minimum pause has passed. At most {@value #MAX_WAITING_TRIGGERS} may wait; beyond
 * that, and once the job has stopped, a trigger is refused: its future completes exceptionally with a
 * {@link CheckpointException} and its reason. Triggers that arrive before the attempt's tasks are known wait for
 * {@link #start}.
 *
 * <p><b>Clean-up.</b> The files of a checkpoint that ends without committing are deleted once no task is still
 * writing them ({@link #beginWrite}/{@link #endWrite}): the deletion waits for the writer, or is done by it, so it
 * never races a file being created.
 *
 * <p>Thread contract: triggers come from the timer thread or a caller of the job handle; acknowledgements and
 * finishes from task threads and the snapshot flusher. All state is guarded by one lock, taken a few times per
 * checkpoint per task, never per record; storage work, barrier requests and notifications happen outside it. A
 * complete checkpoint is committed on the committer's I/O thread for durable storage, on the acknowledging thread for
 * in-memory storage; its future completes on that thread, so callers chain heavy work with the {@code *Async}
 * methods. Completion and abort notifications go to each task's mailbox; tasks run them on their own thread.
 *
 * <p>Order of a checkpoint: the pending checkpoint is registered before its barrier is requested (so no
 * acknowledgement can arrive before it exists); once its metadata is stored it is complete, and every older pending
 * checkpoint but a savepoint is aborted as subsumed; a checkpoint pending longer than the timeout is aborted, and
 * more consecutive failures than tolerated fail the job.
 */
public final class CheckpointCoordinator implements CheckpointGateway
{
    /** The most triggers asked for by the user that may wait for their turn; more are refused. */
    static final int MAX_WAITING_TRIGGERS = 1_000;

    private static final System.Logger LOG = System.getLogger(CheckpointCoordinator.class.getName());

    private final CheckpointedJob job;
    private final CheckpointConfig config;
    private final CheckpointCommitter committer;
    private final Object lock = new Object();
    /** Held for a whole commit (store, then completion); never taken inside {@link #lock}'s critical sections. */
    private final Object commitLock = new Object();
    /** What retention must keep, asked by each prune: built once. */
    private final Supplier<Set<Long>> pinned = this::pinnedCheckpoints;
    private final TreeMap<Long, PendingCheckpoint> pending = new TreeMap<>();
    /** The working arrays every checkpoint's metadata is gathered in. Under {@link #lock}. */
    private final PendingCheckpoint.Scratch metadataScratch = new PendingCheckpoint.Scratch();
    private final ArrayDeque<CompletedCheckpoint> completed = new ArrayDeque<>();
    /** Checkpoints and savepoints completed by this coordinator, retained or not; guarded by the lock. */
    private long completions;
    /** Savepoint triggers waiting for their turn, in the order asked. Under {@link #lock}. */
    private final ArrayDeque<TriggerRequest> waitingSavepoints = new ArrayDeque<>();
    /** Checkpoint triggers waiting for their turn, in the order asked. Under {@link #lock}. */
    private final ArrayDeque<TriggerRequest> waitingCheckpoints = new ArrayDeque<>();
    /** {@link #writesInFlight}'s missing value: a checkpoint with no write under way has no entry. */
    private static final long NO_WRITES = 0;
    /** Per checkpoint, the snapshot writes under way (primitive: no object per write). Under {@link #lock}. */
    private final Long2LongHashMap writesInFlight = new Long2LongHashMap(NO_WRITES);
    /** Ended checkpoints whose files are deleted when their last write ends. Under {@link #lock}. */
    private final LongHashSet discardWhenWritten = new LongHashSet();
    private final int retained;
    private final int tolerableFailures;
    private final int maxConcurrent;
    private final long minPauseNanos;
    private PeriodicTrigger timer;
    private List<CheckpointParticipant> tasks;
    private boolean[] finished;
    private long[] finishedPositions;
    private long nextCheckpointId;
    private long lastCompletionNanos = Long.MIN_VALUE;
    /** Whether a wake-up for the end of the minimum pause is scheduled. Under {@link #lock}. */
    private boolean wakeUpScheduled;
    /**
     * The newest checkpoint (not savepoint) committed by this attempt, or the one it was restored from when that is
     * in this attempt's storage ({@link #restoredFrom}): the base of the next checkpoints' keyed deltas with
     * incremental snapshots. Under {@link #lock}.
     */
    private CheckpointMetadata latestBase;
    /** Checkpoints pending when the job stopped: their files are deleted once the job has terminated. */
    private final List<Long> abortedAtStop = new ArrayList<>();
    private int consecutiveFailures;
    private boolean stopped;
    /** Told of every completed checkpoint, on the thread that completed it; set before the job starts. */
    private volatile java.util.function.Consumer<CompletedCheckpoint> completionListener = done -> { };

    /**
     * @param job             the job attempt.
     * @param config          periodic checkpoints, or null for checkpoints on demand only (no timeout then; at most
     *                        one pending at a time, as by default).
     * @param firstCheckpoint the id of this attempt's first checkpoint: above every id of earlier attempts.
     * @param storage         where checkpoints go; shared by the attempts of a run.
     */
    public CheckpointCoordinator(final CheckpointedJob job, final CheckpointConfig config, final long firstCheckpoint,
        final CheckpointStorage storage)
    {
        this.job = job;
        this.nextCheckpointId = firstCheckpoint;
        this.config = config;
        this.retained = config != null ? config.retained() : 1;
        this.tolerableFailures = config != null ? config.tolerableFailures() : Integer.MAX_VALUE;
        this.maxConcurrent = config != null ? config.maxConcurrent() : 1;
        this.minPauseNanos = config != null ? config.minPause().toNanos() : 0;
        this.committer = new CheckpointCommitter(job.jobName(), storage, retained);
    }

    /**
     * Says that the tasks were restored from {@code checkpoint}, a checkpoint of this coordinator's own storage: with
     * incremental snapshots, the first checkpoints may extend its keyed chains (each subtask whose store says it holds
     * exactly that checkpoint's state, see {@code KeyedStateStore.restoredFrom}; the others write full snapshots),
     * and retention keeps it while they build on it. A savepoint is never a base. Before {@link #start}.
     *
     * @param checkpoint the metadata of the checkpoint restored.
     */
    public void restoredFrom(final CheckpointMetadata checkpoint)
    {
        synchronized (lock)
        {
            if (latestBase == null && !checkpoint.savepoint())
            {
                latestBase = checkpoint;
            }
        }
    }

    /** Called once, after every task is known and before the threads start; triggers already asked for start. */
    public void start(final List<? extends CheckpointParticipant> allTasks)
    {
        final List<PendingCheckpoint> started;
        synchronized (lock)
        {
            tasks = List.copyOf(allTasks);
            finished = new boolean[tasks.size()];
            finishedPositions = new long[tasks.size()];
            if (config != null)
            {
                timer = new PeriodicTrigger(job.jobName(), config.interval(), this::tick);
            }
            started = startWaitingLocked(System.nanoTime());
        }
        requestBarriers(started);
    }

    /** Stops triggering; pending checkpoints and waiting triggers are aborted. Any thread; idempotent. */
    public void stop()
    {
        final List<PendingCheckpoint> aborted;
        final List<TriggerRequest> refused;
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
            // ended earlier, their deletion waiting for a write: the I/O thread no longer takes work after this
            abortedAtStop.addAll(discardWhenWritten);
            discardWhenWritten.clear();
            refused = new ArrayList<>(waitingSavepoints);
            refused.addAll(waitingCheckpoints);
            waitingSavepoints.clear();
            waitingCheckpoints.clear();
        }
        if (timer != null)
        {
            timer.stop();
        }
        committer.shutdown();
        for (final PendingCheckpoint p : aborted)
        {
            if (p.future != null)
            {
                p.future.completeExceptionally(new CheckpointException(CheckpointException.Reason.JOB_STOPPED,
                    "checkpoint " + p.id + " aborted: the job stopped"));
            }
        }
        for (final TriggerRequest request : refused)
        {
            request.future.completeExceptionally(new CheckpointException(CheckpointException.Reason.JOB_STOPPED,
                "the " + (request.savepoint ? "savepoint" : "checkpoint") + " never started: the job stopped"));
        }
    }

    /**
     * The job has terminated: a commit still running finishes, then a cancelled job that does not retain its
     * checkpoints deletes them. Called once, by the job's monitor thread, after {@link #stop()}.
     *
     * @param cancelled whether the job ended CANCELED.
     */
    public void jobTerminated(final boolean cancelled)
    {
        final List<Long> abandoned;
        synchronized (lock)
        {
            abandoned = List.copyOf(abortedAtStop);
        }
        committer.finish(cancelled && config != null && !config.retainOnCancel(), abandoned);
    }

    /**
     * @param listener told of every checkpoint and savepoint completed from now on, with its statistics, on the
     *                 thread that completed it (an acknowledging task or the checkpoint I/O thread): keep it short.
     */
    public void onCompleted(final java.util.function.Consumer<CompletedCheckpoint> listener)
    {
        completionListener = java.util.Objects.requireNonNull(listener, "listener");
    }

    @Override
    public CompletableFuture<CompletedCheckpoint> requestCheckpoint()
    {
        return triggerCheckpoint();
    }

    /**
     * @return completes with the checkpoint once every task acknowledged it, or exceptionally with a
     *     {@link CheckpointException} when it is refused or aborted.
     */
    public CompletableFuture<CompletedCheckpoint> triggerCheckpoint()
    {
        return submit(TriggerRequest.checkpoint()).future.thenApply(c -> c);
    }

    /**
     * @return completes with the savepoint (aligned, marked as a savepoint in its metadata, kept by retention and on
     *     cancel), or exceptionally with a {@link CheckpointException} when it is refused or aborted.
     */
    public CompletableFuture<CompletedCheckpoint> triggerSavepoint()
    {
        return triggerSavepoint(null);
    }

    /**
     * A savepoint whose id is handed to {@code beforeRequest} after it is registered and before its barrier is
     * requested (a stop-with-savepoint stops the sources there). The hook runs under the coordinator's lock: it must
     * only record the id.
     *
     * @param beforeRequest receives the savepoint's id; null for none.
     * @return completes with the savepoint, or exceptionally.
     */
    public CompletableFuture<CompletedCheckpoint> triggerSavepoint(final LongConsumer beforeRequest)
    {
        return submit(TriggerRequest.savepoint(beforeRequest)).future.thenApply(c -> c);
    }

    /**
     * The one way in for triggers asked for by the user: refused when the job has stopped or too many triggers wait,
     * else queued and started as soon as the rules (see the class documentation) allow, possibly at once.
     *
     * @param request the trigger.
     * @return the same request: its id once it started, its future.
     */
    TriggerRequest submit(final TriggerRequest request)
    {
        final List<PendingCheckpoint> started;
        final CheckpointException refusal;
        synchronized (lock)
        {
            if (stopped)
            {
                refusal = new CheckpointException(CheckpointException.Reason.JOB_NOT_RUNNING,
                    "job '" + job.jobName() + "' is not running: no " +
                        (request.savepoint ? "savepoint" : "checkpoint") + " can be taken");
                started = List.of();
            }
            else if (waitingSavepoints.size() + waitingCheckpoints.size() >= MAX_WAITING_TRIGGERS)
            {
                refusal = new CheckpointException(CheckpointException.Reason.TOO_MANY_WAITING_TRIGGERS,
                    "job '" + job.jobName() + "' already has " + MAX_WAITING_TRIGGERS + " checkpoint or " +
                        "savepoint triggers waiting for their turn; wait for some to complete");
                started = List.of();
            }
            else
            {
                refusal = null;
                (request.savepoint ? waitingSavepoints : waitingCheckpoints).addLast(request);
                started = startWaitingLocked(System.nanoTime());
            }
        }
        if (refusal != null)
        {
            request.future.completeExceptionally(refusal);
        }
        requestBarriers(started);
        return request;
    }

    /** @return how many checkpoints and savepoints this coordinator completed, retained or not. Any thread. */
    public long completions()
    {
        synchronized (lock)
        {
            return completions;
        }
    }

    /** @return the retained completed checkpoints, oldest first. */
    public List<CompletedCheckpoint> completedCheckpoints()
    {
        synchronized (lock)
        {
            return List.copyOf(completed);
        }
    }

    /**
     * A task is about to write its snapshot of a checkpoint. While any write of a checkpoint is under way, its files
     * are not deleted; if it ends meanwhile, the last {@link #endWrite} deletes them. Flusher or task thread.
     *
     * @param checkpointId the checkpoint.
     * @return false when the checkpoint is no longer pending: nothing may be written for it.
     */
    @Override
    public boolean beginWrite(final long checkpointId)
    {
        synchronized (lock)
        {
            final PendingCheckpoint p = pendingLocked(checkpointId);
            if (p == null || p.committing)
            {
                return false;
            }
            writesInFlight.put(checkpointId, writesInFlight.get(checkpointId) + 1);
            return true;
        }
    }

    /**
     * A write begun with {@link #beginWrite} is over (acknowledged, declined or failed); if its checkpoint ended
     * meanwhile and this was its last write, its files are deleted now. Same thread as its {@code beginWrite}.
     *
     * @param checkpointId the checkpoint.
     */
    @Override
    public void endWrite(final long checkpointId)
    {
        final boolean discard;
        synchronized (lock)
        {
            final long left = writesInFlight.get(checkpointId) - 1;
            if (left > 0)
            {
                writesInFlight.put(checkpointId, left);
                return;
            }
            writesInFlight.remove(checkpointId);
            discard = discardWhenWritten.remove(checkpointId);
        }
        if (discard)
        {
            committer.discardLater(checkpointId);
        }
    }

    /** The files of an ended checkpoint go now, or when its last write ends. Caller holds the lock. */
    private void discardLocked(final long checkpointId)
    {
        if (writesInFlight.containsKey(checkpointId))
        {
            discardWhenWritten.add(checkpointId);
            return;
        }
        committer.discardLater(checkpointId);
    }

    /** @return whether the checkpoint is still waiting for acknowledgements. */
    public boolean isPending(final long id)
    {
        synchronized (lock)
        {
            final PendingCheckpoint p = pending.get(id);
            return p != null && !p.committing;
        }
    }

    /** @return the id the next checkpoint would get. */
    public long nextCheckpointId()
    {
        synchronized (lock)
        {
            return nextCheckpointId;
        }
    }

    /** @return where checkpoints and their state files go. */
    @Override
    public CheckpointStorage storage()
    {
        return committer.storage();
    }

    /**
     * A task's snapshot of a checkpoint is complete and durable. Task thread (stateless tasks, small snapshots) or the
     * flusher.
     */
    @Override
    public void acknowledge(final CheckpointParticipant task, final TaskAcknowledgement ack)
    {
        final long now = System.nanoTime();
        final PendingCheckpoint p;
        final CheckpointMetadata metadata;
        synchronized (lock)
        {
            p = pendingLocked(ack.checkpointId());
            if (p == null || p.committing)
            {
                return;
            }
            p.acknowledge(task.index(), ack, now);
            metadata = completeLocked(p);
        }
        if (metadata == null)
        {
            return;
        }
        if (committer.runsOnCaller())
        {
            // what committer.run would do, without building the closure
            commit(p, metadata);
        }
        else
        {
            committer.run(() -> commit(p, metadata));
        }
    }

    /**
     * A task gave up a checkpoint on its own (a newer barrier overtook it, or its alignment was cancelled): the
     * checkpoint can no longer complete, and must not complete later because the task finished. Task thread.
     */
    @Override
    public void abortedByTask(final CheckpointParticipant task, final long checkpointId, final AbortReason reason)
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
        failed(List.of(p), reason == AbortReason.SUBSUMED ? CheckpointException.Reason.SUBSUMED :
            CheckpointException.Reason.ABORTED_BY_TASK, "aborted by task " + task.name() + ": " + reason, false);
    }

    /**
     * A task could not write its snapshot of a checkpoint: the checkpoint is declined (aborted, counting as a
     * failure). The flusher.
     */
    @Override
    public void decline(final CheckpointParticipant task, final long checkpointId, final Throwable cause)
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
            job.jobName() + "'", cause);
        failed(List.of(p), CheckpointException.Reason.DECLINED, "declined by task " + task.name() + ": " + cause,
            true);
    }

    /** A task reached the end of its input; {@code position} is a source's end position, else -1. The flusher. */
    @Override
    public void taskFinished(final CheckpointParticipant task, final long position)
    {
        final List<Runnable> commits = new ArrayList<>();
        synchronized (lock)
        {
            finished[task.index()] = true;
            finishedPositions[task.index()] = position;
            for (final PendingCheckpoint p : new ArrayList<>(pending.values()))
            {
                final CheckpointMetadata metadata = completeLocked(p);
                if (metadata != null)
                {
                    commits.add(() -> commit(p, metadata));
                }
            }
        }
        commits.forEach(committer::run);
    }

    /**
     * @return when every task acknowledged or finished, the metadata of {@code p} to commit outside the lock ({@code p}
     *     is then committing); else null.
     */
    private CheckpointMetadata completeLocked(final PendingCheckpoint p)
    {
        if (p.committing || !p.isComplete(finished))
        {
            return null;
        }
        p.committing = true;
        return p.metadata(tasks, finishedPositions, metadataScratch);
    }

    private void commit(final PendingCheckpoint p, final CheckpointMetadata metadata)
    {
        // in-memory commits run on the acknowledging threads: one at a time, so a newer one is never overtaken; what
        // follows a commit (notifications, the caller's future) runs after the commit lock is released
        final CommitOutcome outcome;
        final Exception failure;
        synchronized (commitLock)
        {
            outcome = commitSerialized(p, metadata);
            // read under the lock: a task finishing after a failed store may start a second commit of p
            failure = p.commitFailure;
        }
        switch (outcome)
        {
            case STORED -> announce(p);
            case NOT_STORED -> failed(List.of(p), CheckpointException.Reason.NOT_STORED, "could not be stored: " +
                failure, true);
            case SKIPPED ->
            {
                // the job stopped, or the checkpoint was aborted or subsumed, while this commit waited its turn
            }
        }
    }

    /** What {@link #commitSerialized} did; what follows it is left in the checkpoint's commit fields. */
    private enum CommitOutcome
    {
        /** Stored: {@link #announce} it. */
        STORED,
        /** The storage refused it ({@link PendingCheckpoint#commitFailure}): it failed. */
        NOT_STORED,
        /** No longer pending when its turn came: nothing to do. */
        SKIPPED
    }

    /**
     * Under the commit lock; what follows a stored checkpoint (notifications, futures) is left to {@link #announce},
     * and a refused one to {@link #failed}.
     */
    private CommitOutcome commitSerialized(final PendingCheckpoint p, final CheckpointMetadata metadata)
    {
        synchronized (lock)
        {
            if (stopped || !pending.containsKey(p.key))
            {
                return CommitOutcome.SKIPPED;
            }
        }
        try
        {
            committer.commit(metadata);
        }
        catch (final IOException | RuntimeException ex)
        {
            LOG.log(Level.WARNING, "checkpoint " + p.id + " of job '" + job.jobName() +
                "' could not be committed", ex);
            synchronized (lock)
            {
                // the commit itself failed: the checkpoint is no longer committing, it failed
                p.committing = false;
            }
            p.commitFailure = ex;
            return CommitOutcome.NOT_STORED;
        }
        final CompletedCheckpoint done = p.completed(metadata, tasks);
        p.completedAs = done;
        synchronized (lock)
        {
            // once stored, the checkpoint is complete even if the job stopped meanwhile (retention may already have
            // deleted its predecessor): a restart must know of it
            p.notifyTasks = pending.remove(p.key) != null && !stopped;
            // usually nothing older is pending: no view of the map is built to find that out
            if (!pending.isEmpty() && pending.firstKey() < p.id)
            {
                for (final Iterator<PendingCheckpoint> it = pending.headMap(p.key).values().iterator(); it.hasNext();)
                {
                    final PendingCheckpoint older = it.next();
                    if (older.savepoint)
                    {
                        // a savepoint is never subsumed: it completes on its own, or expires
                        continue;
                    }
                    it.remove();
                    if (p.subsumed == null)
                    {
                        p.subsumed = new ArrayList<>();
                    }
                    p.subsumed.add(older);
                    discardLocked(older.id);
                }
            }
            completed.addLast(done);
            completions++;
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
        return CommitOutcome.STORED;
    }

    /** After {@code p} was stored, outside the commit lock: notifications, listeners, its future, then retention. */
    private void announce(final PendingCheckpoint p)
    {
        final CompletedCheckpoint done = p.completedAs;
        if (p.subsumed != null)
        {
            for (final PendingCheckpoint older : p.subsumed)
            {
                if (p.notifyTasks)
                {
                    job.notifyCheckpointAborted(older.id);
                }
                if (older.future != null)
                {
                    older.future.completeExceptionally(new CheckpointException(
                        CheckpointException.Reason.SUBSUMED, "checkpoint " + older.id + " subsumed by " + p.id));
                }
            }
        }
        if (p.notifyTasks)
        {
            job.notifyCheckpointComplete(done.checkpointId());
        }
        try
        {
            completionListener.accept(done);
        }
        catch (final RuntimeException ex)
        {
            LOG.log(Level.WARNING, "a checkpoint listener of job '" + job.jobName() + "' threw", ex);
        }
        if (p.future != null)
        {
            p.future.complete(done);
        }
        // deleting older checkpoints is not part of this one's duration: announced first, pruned now
        committer.prune(p.id, pinned);
        startWaiting();
    }

    /**
     * @return the checkpoints retention must not prune now: the latest regular checkpoint (the current base, which
     *     incremental checkpoints registered from now on build on, and what a restart falls back to when a savepoint
     *     is newer), and the base of every pending checkpoint (their keyed chains refer to those checkpoints' shared
     *     files).
     */
    private Set<Long> pinnedCheckpoints()
    {
        synchronized (lock)
        {
            // the latest regular checkpoint is pinned whatever the mode, so a savepoint committed after it never lets
            // retention drop the last checkpoint a restart would fall back to; a mutable set is built only when
            // pending incremental checkpoints add their bases
            Set<Long> kept = null;
            // only incremental checkpoints have bases (registerLocked): otherwise no walk of the pending ones
            if (config != null && config.incremental())
            {
                for (final PendingCheckpoint other : pending.values())
                {
                    if (other.incrementalBase != null)
                    {
                        if (kept == null)
                        {
                            kept = new HashSet<>();
                        }
                        kept.add(other.incrementalBase.checkpointId());
                    }
                }
            }
            if (kept == null)
            {
                return latestBase == null ? Set.of() : Set.of(latestBase.checkpointId());
            }
            if (latestBase != null)
            {
                kept.add(latestBase.checkpointId());
            }
            return kept;
        }
    }

    /**
     * Aborts checkpoints that will not complete; a commit already running wins over an expiry or decline. More
     * consecutive failures than tolerated fail the job. Then waiting triggers may start.
     *
     * @param reason          why, for the futures.
     * @param why             why, in words.
     * @param countsAsFailure false for a checkpoint a task dropped because a newer one overtook it (subsumed).
     */
    private void failed(final List<PendingCheckpoint> candidates, final CheckpointException.Reason reason,
        final String why, final boolean countsAsFailure)
    {
        final boolean tooMany;
        boolean counted = false;
        final List<PendingCheckpoint> failedCheckpoints = new ArrayList<>();
        synchronized (lock)
        {
            for (final PendingCheckpoint p : candidates)
            {
                if (!p.committing && pending.remove(p.key) != null)
                {
                    failedCheckpoints.add(p);
                    discardLocked(p.id);
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
            job.notifyCheckpointAborted(p.id);
            if (p.future != null)
            {
                p.future.completeExceptionally(new CheckpointException(reason, (p.savepoint ? "savepoint " :
                    "checkpoint ") + p.id + " " + why));
            }
        }
        if (tooMany)
        {
            job.fail(new IllegalStateException("job '" + job.jobName() + "' exceeded its tolerable " +
                "checkpoint failures (" + tolerableFailures + "): the last checkpoint " + why));
        }
        else if (!failedCheckpoints.isEmpty())
        {
            startWaiting();
        }
    }

    /** The timer: expires overdue checkpoints, starts waiting triggers, then a periodic checkpoint if it may. */
    private void tick()
    {
        expireOverdue();
        final List<PendingCheckpoint> started;
        PendingCheckpoint periodic = null;
        synchronized (lock)
        {
            final long now = System.nanoTime();
            started = startWaitingLocked(now);
            if (!stopped && waitingSavepoints.isEmpty() && waitingCheckpoints.isEmpty() && mayStartLocked(false, now))
            {
                // a periodic trigger that may not start now is dropped, never queued; it has no future: nobody waits
                periodic = registerLocked(false, null);
            }
        }
        requestBarriers(started);
        if (periodic != null)
        {
            // registered after every waiting trigger started above: its barrier is requested after theirs
            requestBarrier(periodic);
        }
    }

    /** Starts the waiting triggers the rules allow now. Any thread. */
    private void startWaiting()
    {
        final List<PendingCheckpoint> started;
        synchronized (lock)
        {
            started = startWaitingLocked(System.nanoTime());
        }
        requestBarriers(started);
    }

    /**
     * Registers the waiting triggers that may start, savepoints first, each queue in order, stopping at the first
     * that may not; a checkpoint held back only by the minimum pause gets a wake-up for when it has passed. Caller
     * holds the lock.
     *
     * @return the checkpoints registered, ascending: their barriers are to be requested, outside the lock. An
     *     immutable empty list when none started (the timer's usual tick builds no list).
     */
    private List<PendingCheckpoint> startWaitingLocked(final long now)
    {
        List<PendingCheckpoint> started = List.of();
        if (stopped || tasks == null)
        {
            return started;
        }
        while (true)
        {
            final ArrayDeque<TriggerRequest> queue = !waitingSavepoints.isEmpty() ? waitingSavepoints :
                waitingCheckpoints;
            final TriggerRequest next = queue.peekFirst();
            if (next == null)
            {
                return started;
            }
            if (!mayStartLocked(next.savepoint, now))
            {
                scheduleWakeUpLocked(next, now);
                return started;
            }
            queue.pollFirst();
            final PendingCheckpoint p = registerLocked(next.savepoint, next.future);
            next.started(p.id);
            if (next.beforeRequest != null)
            {
                next.beforeRequest.accept(p.id);
            }
            if (started.isEmpty())
            {
                started = new ArrayList<>(2);
            }
            started.add(p);
        }
    }

    /** @return whether a checkpoint (or savepoint) may start now under the triggering rules. Caller holds the lock. */
    private boolean mayStartLocked(final boolean savepoint, final long now)
    {
        if (savepointPendingLocked())
        {
            return false;
        }
        if (savepoint)
        {
            return true;
        }
        return pending.size() < maxConcurrent && minPauseLeftLocked(now) <= 0;
    }

    private long minPauseLeftLocked(final long now)
    {
        return lastCompletionNanos == Long.MIN_VALUE ? 0 : minPauseNanos - (now - lastCompletionNanos);
    }

    /** A checkpoint waiting only for the minimum pause starts when it has passed, not at the next tick. */
    private void scheduleWakeUpLocked(final TriggerRequest next, final long now)
    {
        if (next.savepoint || wakeUpScheduled || timer == null || savepointPendingLocked() ||
            pending.size() >= maxConcurrent)
        {
            return;
        }
        final long left = minPauseLeftLocked(now);
        if (left > 0)
        {
            wakeUpScheduled = true;
            timer.wakeUpIn(left, () ->
            {
                synchronized (lock)
                {
                    wakeUpScheduled = false;
                }
                startWaiting();
            });
        }
    }

    /** Asks the sources for the barriers of checkpoints just registered, in ascending order. Outside the lock. */
    private void requestBarriers(final List<PendingCheckpoint> started)
    {
        for (int i = 0; i < started.size(); i++)
        {
            requestBarrier(started.get(i));
        }
    }

    private void requestBarrier(final PendingCheckpoint p)
    {
        job.requestBarrier(p.id, p.savepoint ? BarrierKind.SAVEPOINT : BarrierKind.CHECKPOINT);
    }

    private void expireOverdue()
    {
        // a list only when something expired: the timer's thread runs this at every tick
        List<PendingCheckpoint> expired = null;
        synchronized (lock)
        {
            final long now = System.nanoTime();
            if (pending.isEmpty() || now - pending.get(pending.firstKey()).triggerNanos <= config.timeout().toNanos())
            {
                // ids follow trigger times: when the oldest is not overdue, none is (and no iterator is built)
                return;
            }
            for (final PendingCheckpoint p : pending.values())
            {
                if (!p.committing && now - p.triggerNanos > config.timeout().toNanos())
                {
                    if (expired == null)
                    {
                        expired = new ArrayList<>();
                    }
                    expired.add(p);
                }
            }
        }
        if (expired != null)
        {
            failed(expired, CheckpointException.Reason.EXPIRED, "expired after " + config.timeout(), true);
        }
    }

    /**
     * @return the pending checkpoint of that id, or null. The newest, the usual one, is found by its own key: no id
     *     is boxed for the look-up (acknowledgements and writes ask for it on task threads). Caller holds the lock.
     */
    private PendingCheckpoint pendingLocked(final long id)
    {
        if (!pending.isEmpty())
        {
            final Long newest = pending.lastKey();
            if (newest == id)
            {
                return pending.get(newest);
            }
        }
        return pending.get(id);
    }

    /** A newer barrier would overtake a savepoint's at sources that have not injected it yet: wait for it. */
    private boolean savepointPendingLocked()
    {
        if (pending.isEmpty())
        {
            // the usual trigger: the previous checkpoint completed, and no iterator is needed to know
            return false;
        }
        for (final PendingCheckpoint p : pending.values())
        {
            if (p.savepoint)
            {
                return true;
            }
        }
        return false;
    }

    private PendingCheckpoint registerLocked(final boolean savepoint,
        final CompletableFuture<CompletedCheckpoint> future)
    {
        final PendingCheckpoint p = new PendingCheckpoint(nextCheckpointId++, tasks.size(), savepoint, future);
        if (!savepoint && config != null && config.incremental())
        {
            p.incrementalBase = latestBase;
        }
        pending.put(p.key, p);
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
    @Override
    public KeyedSnapshotPlan keyedSnapshotPlan(final long checkpointId)
    {
        if (config == null || !config.incremental())
        {
            // the usual case, answered without the coordinator's lock: a task thread asks in its synchronous part
            return null;
        }
        synchronized (lock)
        {
            final PendingCheckpoint p = pending.get(checkpointId);
            if (p == null || p.savepoint)
            {
                return null;
            }
            return new KeyedSnapshotPlan(p.incrementalBase, config.fullSnapshotEvery(), config.slices());
        }
    }
}
