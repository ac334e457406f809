package io.ringflow.engine.runtime.task;

import io.ringflow.engine.api.TaskFailureException;
import io.ringflow.engine.channel.BackPressure;
import io.ringflow.engine.channel.BarrierKind;
import io.ringflow.engine.channel.ChannelWriter;
import io.ringflow.engine.channel.RingChannel;
import io.ringflow.engine.checkpoint.CheckpointParticipant;
import io.ringflow.engine.checkpoint.KeyedSnapshotPlan;
import io.ringflow.engine.checkpoint.TaskAcknowledgement;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * One subtask of one chain of operators, run by one thread from start to end.
 *
 * <p>Thread contract: everything here runs on the task thread, except {@link #name()} and the execution's stop
 * flag, which other threads may read. The loop is: do a bounded work cycle, publish everything written (so no record
 * waits in an unpublished batch for more than one cycle), idle if the cycle found nothing.
 */
public abstract class Task implements Runnable, BackPressure, CheckpointParticipant
{
    private static final System.Logger LOG = System.getLogger(Task.class.getName());

    /** See {@link #forgetChangesAtCompletion(boolean)}; set before the task starts. */
    private boolean forgetChangesAtCompletion;

    final TaskHost host;
    final String name;
    /** The chain's operators in topological order; {@code chain[0]} is the head. */
    final StreamOperator[] chain;
    /**
     * The runtimes of {@link #chain}, index for index, built at the first barrier (operators are set up by then) and
     * shared, read only, by every {@link TaskSnapshot}. Task thread.
     */
    private OperatorRuntime[] chainRuntimes;
    final ChannelWriter[] writers;
    final Idler idler;
    private final IdleStrategy backPressureIdle;
    private final int cpu;
    private long lastForwardedBarrier;
    /** Whether barriers are announced ahead of the data (unaligned checkpoints); set before the task starts. */
    private boolean announceBarriers;
    /** The snapshot taken at the last barrier, until it is acknowledged. Task thread only. */
    private TaskSnapshot snapshot;
    /**
     * A capture acknowledged and held by no one else (written on this thread, or empty), for the next barrier; null
     * when the last one went to the flusher. Task thread only.
     */
    private TaskSnapshot spareSnapshot;
    /** Whether the task has finished; task thread only (the loop of {@link TaskLoop} reads it). */
    boolean finished;
    /**
     * Every input ended but an operator still holds output a checkpoint must release: the task takes part in
     * checkpoints by itself (snapshot and acknowledge, no barrier downstream) until it holds none. Task thread only.
     */
    boolean awaitingCommit;
    /** Set by the coordinator's thread when the checkpoint this task asked for was refused or failed. */
    private volatile boolean commitCheckpointFailed;
    /**
     * True while the task thread is in its work loop (from just before it, once the loop's class is ready): only then
     * may a stop interrupt it. Guarded by this.
     */
    private boolean interruptible;
    private boolean flushedWhileWaiting;
    /** Whether the loop runs in a private copy of {@link TaskLoop}; set before the task starts. */
    private boolean privateLoop;
    private int index;
    /** Messages for this task: posted by any thread, run by the task at the start of its next cycle. */
    private final ConcurrentLinkedQueue<TaskMail> mailbox = new ConcurrentLinkedQueue<>();
    /** The chain's operators with timers or periodic work ({@link StreamOperator#usesTimers}); set once opened. */
    private StreamOperator[] timed = new StreamOperator[0];
    /** The highest watermark handed to the chain's head; task thread only. */
    private long headWatermark = Long.MIN_VALUE;

    Task(
        final TaskHost host,
        final String name,
        final StreamOperator[] chain,
        final ChannelWriter[] writers,
        final Idler idler,
        final long maxParkNanos,
        final int cpu)
    {
        this.host = host;
        this.name = name;
        this.chain = chain;
        this.writers = writers;
        this.idler = idler;
        this.backPressureIdle = Idler.backPressure(maxParkNanos);
        this.cpu = cpu;
        for (final ChannelWriter writer : writers)
        {
            writer.backPressure(this);
        }
    }

    /** @return the task's name: the chain's operators and the subtask. */
    @Override
    public final String name()
    {
        return name;
    }

    /** @return for a source task, the source subtask it runs; null for other tasks. */
    @Override
    public CheckpointParticipant.SourceSubtask source()
    {
        return null;
    }

    @Override
    public final void run()
    {
        Throwable failure = null;
        Class<?> loopClass = null;
        try
        {
            if (cpu >= 0)
            {
                ThreadPinning.pinCurrentThread(cpu, name);
            }
            onStart();
            // Open tail first, so every operator is ready before anything upstream of it can emit.
            for (int i = chain.length - 1; i >= 0; i--)
            {
                openOperator(chain[i]);
            }
            collectTimedOperators();
            onOperatorsOpened();
            // Before the loop may be interrupted: a first copy is defined here, which reads its template's class file.
            loopClass = TaskLoops.SHARED.acquire(privateLoop);
            final Loop loop = newLoop(loopClass);
            if (loop instanceof TaskLoop)
            {
                loopClass = TaskLoop.class; // a copy that could not be constructed is not given back to the pool
            }
            synchronized (this)
            {
                interruptible = true;
            }
            if (host.isStopping())
            {
                return;
            }
            loop.run();
        }
        catch (final TaskCancelledException cancelled)
        {
            // the job is stopping; the cause, if any, is reported by whoever failed
        }
        catch (final Throwable ex)
        {
            failure = ex;
            host.fail(toTaskFailure(ex));
        }
        finally
        {
            if (loopClass != null)
            {
                TaskLoops.SHARED.release(loopClass);
            }
            synchronized (this)
            {
                interruptible = false;
            }
            // A stop's interrupt aimed at the loop must not break the operators' close (e.g. a sink's last flush).
            Thread.interrupted();
            if (failure == null && !finished)
            {
                commitCompletedBeforeStop();
            }
            if (snapshot != null)
            {
                snapshot.release();
                snapshot = null;
            }
            onClose();
            closeOperators(failure);
            releaseHeldLookups();
            if (finished && failure == null)
            {
                host.taskFinished(this);
            }
        }
    }

    /**
     * @param loopClass {@link TaskLoop} or a copy of it.
     * @return a loop of that class for this task; of the template itself when a copy cannot be constructed (the
     *     general path, logged: a task never fails for want of a copy).
     */
    private Loop newLoop(final Class<?> loopClass)
    {
        if (loopClass == TaskLoop.class)
        {
            return new TaskLoop(this);
        }
        try
        {
            return ClassCopies.construct(Loop.class, loopClass, this);
        }
        catch (final RuntimeException | LinkageError ex)
        {
            LOG.log(System.Logger.Level.INFO, "task " + name + " runs the shared task loop: its private copy " +
                "could not be constructed (" + ex + ")");
            return new TaskLoop(this);
        }
    }

    /** @param value whether this task's barriers overtake data (unaligned checkpoints). Before the task starts. */
    public final void announceBarriers(final boolean value)
    {
        announceBarriers = value;
    }

    /** @return whether this task's barriers overtake data (unaligned checkpoints). */
    final boolean announcesBarriers()
    {
        return announceBarriers;
    }

    /** @return the task's index in its job, assigned when the job is wired. */
    @Override
    public final int index()
    {
        return index;
    }

    /** @param value the task's index in its job; set once, before the task starts. */
    public final void index(final int value)
    {
        index = value;
    }

    /**
     * @return for a source task that finished, the position after its last record; -1 for other tasks. Task thread,
     *     after the loop.
     */
    public long finishedPosition()
    {
        return -1;
    }

    /**
     * Posts a message; the task runs it at the start of its next cycle. Any thread; the caller unparks the task.
     *
     * @param mail the message.
     */
    public final void post(final TaskMail mail)
    {
        mailbox.add(mail);
    }

    /** @return whether messages wait in the mailbox. Task thread. */
    final boolean hasMail()
    {
        return !mailbox.isEmpty();
    }

    /** Runs every message in the mailbox. Task thread. */
    final void runMailbox()
    {
        TaskMail mail;
        while ((mail = mailbox.poll()) != null)
        {
            if (mail instanceof TaskMail.CheckpointAborted aborted)
            {
                final long id = aborted.checkpointId();
                onCheckpointAborted(id);
                if (snapshot != null && snapshot.checkpointId == id)
                {
                    snapshot.release();
                    snapshot = null;
                }
                notifyOperators(id, false);
            }
            else if (mail instanceof TaskMail.CheckpointComplete complete)
            {
                forgetKeyedChangesUpTo(complete.checkpointId());
                notifyOperators(complete.checkpointId(), true);
            }
        }
    }

    /**
     * Local recovery with full snapshots: the keyed stores track changes only so that they can be reverted to the
     * newest completed checkpoint, so changes up to a completed one are never needed again (it stays a possible
     * base). With incremental snapshots the stores already forget up to each delta's base.
     */
    private void forgetKeyedChangesUpTo(final long checkpointId)
    {
        if (!forgetChangesAtCompletion)
        {
            return;
        }
        for (final StreamOperator operator : chain)
        {
            final io.ringflow.state.backend.KeyedStateStore keyed = operator.runtime().keyedStateStore();
            if (keyed != null)
            {
                keyed.forgetChangesUpTo(checkpointId);
            }
        }
    }

    /**
     * @param value whether the task's loop runs in a private copy of {@link TaskLoop}, used by no other running task
     *              (the specialised path), or in the template, shared (the general path). Before the task starts.
     */
    public final void privateLoop(final boolean value)
    {
        privateLoop = value;
    }

    /**
     * @param value whether each completed checkpoint lets the keyed stores forget their changes up to it (local
     *              recovery without incremental snapshots). Before the task starts.
     */
    public final void forgetChangesAtCompletion(final boolean value)
    {
        forgetChangesAtCompletion = value;
    }

    /**
     * The task stops early (cancel, stop with savepoint, another task's failure): checkpoints that completed before
     * still have their notifications in the mailbox; deliver them, so a stop-with-savepoint's output is committed.
     * A failure here is logged: the committables are in the completed checkpoint and are committed again on restore.
     */
    private void commitCompletedBeforeStop()
    {
        TaskMail mail;
        while ((mail = mailbox.poll()) != null)
        {
            if (mail instanceof TaskMail.CheckpointComplete complete)
            {
                try
                {
                    notifyOperators(complete.checkpointId(), true);
                }
                catch (final RuntimeException ex)
                {
                    System.getLogger(Task.class.getName()).log(System.Logger.Level.WARNING, "task " + name +
                        " stopped; committing checkpoint " + complete.checkpointId() + " failed (committed again " +
                        "when the job is restored from it)", ex);
                    return;
                }
            }
        }
    }

    /**
     * One cycle of a task whose inputs ended while an operator holds uncommitted output: finishes once none does;
     * takes a requested checkpoint by itself (the end of input stands for its barriers downstream, so none is
     * emitted); asks again for a checkpoint when the one asked for failed.
     *
     * @return 1 when something was done, else 0.
     */
    final int awaitCommit()
    {
        if (!chainHoldsUncommittedOutput())
        {
            finished = true;
            return 1;
        }
        final long requested = host.requestedBarrier() >>> 1;
        if (requested > lastForwardedBarrier)
        {
            final long start = System.nanoTime();
            snapshotChain(requested);
            lastForwardedBarrier = requested;
            acknowledgeSnapshot(requested, finishedPosition(), start, System.nanoTime() - start, 0, false);
            return 1;
        }
        if (commitCheckpointFailed)
        {
            commitCheckpointFailed = false;
            requestCommitCheckpoint();
            return 1;
        }
        return 0;
    }

    /**
     * One work cycle: the task's own work, then due timers (at most a batch per operator), then everything written is
     * published.
     *
     * @return how much was done; 0 when idle.
     * @throws Exception fails the task.
     */
    final int cycle() throws Exception
    {
        int work = doWork();
        if (timed.length > 0 && !finished)
        {
            work += advanceTimers();
        }
        flushWriters();
        return work;
    }

    /** Finds the chain's operators with timers; once they are open. */
    final void collectTimedOperators()
    {
        final java.util.List<StreamOperator> found = new java.util.ArrayList<>();
        for (final StreamOperator operator : chain)
        {
            if (operator.usesTimers())
            {
                found.add(operator);
            }
        }
        timed = found.toArray(new StreamOperator[0]);
    }

    /**
     * Fires what is due in the chain's timed operators, each at most one batch: the processing-time clock is read
     * only when some operator has a processing-time deadline.
     *
     * @return how many timers fired.
     */
    private int advanceTimers()
    {
        long now = Long.MIN_VALUE;
        int fired = 0;
        for (final StreamOperator operator : timed)
        {
            final long due = operator.nextProcessingTime();
            if (due != Long.MAX_VALUE && now == Long.MIN_VALUE)
            {
                now = operator.runtime().time().now();
            }
            if (operator.hasPendingTimers() || (due != Long.MAX_VALUE && due <= now))
            {
                try
                {
                    fired += operator.fireTimers(now == Long.MIN_VALUE ? operator.runtime().time().now() : now,
                        operator.runtime().time().firingBatch());
                }
                catch (final Throwable ex)
                {
                    throw OperatorException.wrap(operator.runtime(), ex);
                }
            }
        }
        return fired;
    }

    /**
     * Hands a watermark to the chain's head (which forwards it through the chain), unless it does not advance.
     *
     * @param watermark the task's new watermark.
     */
    final void watermarkToChain(final long watermark)
    {
        if (watermark <= headWatermark)
        {
            return;
        }
        headWatermark = watermark;
        try
        {
            chain[0].processWatermark(watermark);
        }
        catch (final Throwable ex)
        {
            throw OperatorException.wrap(chain[0].runtime(), ex);
        }
    }

    /**
     * Hands a change of the task's input status to the chain.
     *
     * @param idle whether every input is idle.
     */
    final void watermarkStatusToChain(final boolean idle)
    {
        chain[0].processWatermarkStatus(idle);
    }

    private boolean chainHoldsUncommittedOutput()
    {
        for (final StreamOperator operator : chain)
        {
            if (operator.holdsUncommittedOutput())
            {
                return true;
            }
        }
        return false;
    }

    private void requestCommitCheckpoint()
    {
        host.checkpoints().requestCheckpoint().whenComplete((done, failed) ->
        {
            if (failed != null)
            {
                commitCheckpointFailed = true;
            }
        });
    }

    private void notifyOperators(final long checkpointId, final boolean complete)
    {
        for (final StreamOperator operator : chain)
        {
            try
            {
                if (complete)
                {
                    operator.notifyCheckpointComplete(checkpointId);
                }
                else
                {
                    operator.notifyCheckpointAborted(checkpointId);
                }
            }
            catch (final Throwable ex)
            {
                throw OperatorException.wrap(operator.runtime(), ex);
            }
        }
    }

    /** What a task thread runs between its operators' opening and closing: {@link TaskLoop} or a copy of it. */
    interface Loop
    {
        /**
         * Runs work cycles until the task finishes or its job stops. Task thread.
         *
         * @throws Exception fails the task.
         */
        void run() throws Exception;
    }

    /** Called on the task thread before operators are opened. */
    void onStart()
    {
    }

    /**
     * The coordinator aborted a checkpoint (expired, declined elsewhere, subsumed): undo any alignment or recording
     * still held for it. Task thread.
     *
     * @param checkpointId the checkpoint.
     */
    void onCheckpointAborted(final long checkpointId)
    {
    }

    /** Called on the task thread once every operator is open, before the first work cycle. */
    void onOperatorsOpened()
    {
    }

    /** Called on the task thread when the loop has ended, finished or not, before operators are closed. */
    void onClose()
    {
    }

    /**
     * One bounded work cycle.
     *
     * @return how much was done; 0 when idle.
     * @throws Exception fails the task.
     */
    abstract int doWork() throws Exception;

    /** @param work what the last cycle did. */
    abstract void idle(int work);

    /**
     * Forwards a barrier through the chain and on every output channel, after everything written before it: the
     * snapshot hook of every operator, then the barrier itself. Ids at or below the last forwarded are ignored.
     *
     * @param checkpointId the barrier's checkpoint.
     * @param kind         checkpoint or savepoint.
     * @param timestamp    trigger time, epoch ms.
     * @return the nanoseconds of the synchronous part (the snapshot of the chain), without the emission of the
     *     barrier, which may wait for room in a ring; -1 when the barrier was ignored.
     */
    final long forwardBarrier(final long checkpointId, final BarrierKind kind, final long timestamp)
    {
        if (checkpointId <= lastForwardedBarrier)
        {
            return -1;
        }
        final long start = System.nanoTime();
        snapshotChain(checkpointId);
        final long syncNanos = System.nanoTime() - start;
        emitBarrier(checkpointId, kind, timestamp);
        return syncNanos;
    }

    /**
     * The synchronous part of a snapshot: every operator of the chain, head first, sees the barrier, then its keyed
     * and operator state are captured (keyed state copy-on-write or copied, operator state encoded). The capture is
     * held until {@link #acknowledgeSnapshot}; a capture not acknowledged by then (its checkpoint was abandoned) is
     * released.
     *
     * @param checkpointId the barrier's checkpoint.
     */
    final void snapshotChain(final long checkpointId)
    {
        OperatorRuntime[] runtimes = chainRuntimes;
        if (runtimes == null)
        {
            runtimes = new OperatorRuntime[chain.length];
            for (int i = 0; i < chain.length; i++)
            {
                runtimes[i] = chain[i].runtime();
            }
            chainRuntimes = runtimes;
        }
        final TaskSnapshot spare = spareSnapshot;
        spareSnapshot = null;
        final TaskSnapshot taken = spare != null ? spare.reuse(checkpointId) :
            new TaskSnapshot(checkpointId, chain.length, runtimes);
        KeyedSnapshotPlan plan = null;
        boolean planned = false;
        for (int i = 0; i < chain.length; i++)
        {
            final StreamOperator operator = chain[i];
            try
            {
                operator.onBarrier(checkpointId);
                final io.ringflow.state.backend.KeyedStateStore keyed = runtimes[i].keyedStateStore();
                final long entries = keyed == null ? 0 : keyed.entryCount();
                if (entries > 0)
                {
                    if (!planned)
                    {
                        plan = host.checkpoints().keyedSnapshotPlan(checkpointId);
                        planned = true;
                    }
                    snapshotKeyed(taken, checkpointId, i, runtimes[i], keyed, entries, plan);
                }
                else if (keyed != null)
                {
                    // empty: this checkpoint records no keyed state, so no later delta can build on what changed
                    keyed.forgetAllChanges();
                }
                final OperatorStateStore operatorState = runtimes[i].operatorStateStore();
                if (operatorState != null && !operatorState.isEmpty())
                {
                    taken.operatorState(i, operatorState.capture());
                }
            }
            catch (final Throwable ex)
            {
                taken.release();
                throw OperatorException.wrap(operator.runtime(), ex);
            }
        }
        if (snapshot != null)
        {
            snapshot.release();
        }
        snapshot = taken;
    }

    /**
     * Captures one operator's keyed state: full and in the checkpoint's folder without a plan (savepoints, or no
     * incremental snapshots); with one, a delta on top of the subtask's chain in the plan's base when the store can
     * take it and not so much changed that a full snapshot is cheaper, else a full snapshot that starts a new chain,
     * both for the shared area.
     */
    private static void snapshotKeyed(final TaskSnapshot taken, final long checkpointId, final int index,
        final OperatorRuntime runtime, final io.ringflow.state.backend.KeyedStateStore keyed, final long entries,
        final KeyedSnapshotPlan plan)
    {
        if (plan == null)
        {
            taken.keyed(index, keyed.snapshot(checkpointId), entries, null);
            return;
        }
        // a store whose deltas rewrite slices cuts its chain to a round of fullSnapshotEvery files itself
        final int slices = plan.fullSnapshotEvery();
        final boolean sliced = plan.slicesFor(keyed);
        final java.util.List<io.ringflow.state.checkpoint.StateHandle> chain = plan.chainToExtend(runtime.uid(),
            runtime.subtaskIndex(), runtime.parallelism(), sliced ? 2 * slices : slices);
        final long baseId = plan.base() == null ? -1 : plan.base().checkpointId();
        if (!chain.isEmpty() && keyed.canSnapshotIncrementally(baseId) && !keyed.prefersFullSnapshot(baseId))
        {
            taken.keyed(index, sliced ? keyed.incrementalSnapshot(checkpointId, baseId, slices) :
                keyed.incrementalSnapshot(checkpointId, baseId), entries, chain);
            return;
        }
        if (baseId >= 0)
        {
            // bases only move forward: changes up to this one are never needed again
            keyed.forgetChangesUpTo(baseId);
        }
        taken.keyed(index, keyed.snapshot(checkpointId), entries, java.util.List.of());
    }

    /**
     * @return the capture of the last {@link #snapshotChain}, for the head to add its channel state; null when none
     *     is pending.
     */
    final TaskSnapshot pendingSnapshot()
    {
        return snapshot;
    }

    /**
     * The task is done with checkpoint {@code checkpointId}: its capture goes to the flusher to be written, which
     * acknowledges it to the coordinator once durable; a task with nothing to write acknowledges at once.
     *
     * @param checkpointId      the checkpoint.
     * @param position          a source's position at the barrier, -1 for other tasks.
     * @param firstBarrierNanos when the first barrier reached the task.
     * @param syncNanos         the synchronous part.
     * @param alignmentNanos    first to last barrier.
     * @param unaligned         whether the task took it unaligned.
     */
    final void acknowledgeSnapshot(final long checkpointId, final long position, final long firstBarrierNanos,
        final long syncNanos, final long alignmentNanos, final boolean unaligned)
    {
        final TaskSnapshot taken = snapshot;
        if (taken == null || taken.checkpointId != checkpointId)
        {
            // no capture for this checkpoint (it was superseded): nothing to acknowledge with
            return;
        }
        snapshot = null;
        if (taken.isEmpty())
        {
            host.checkpoints().acknowledge(this, new TaskAcknowledgement(checkpointId, position, firstBarrierNanos, syncNanos,
                0, alignmentNanos, 0, 0, 0, unaligned, java.util.List.of()));
            spareSnapshot = taken;
            return;
        }
        if (host.flusher().flush(this, taken, position, firstBarrierNanos, syncNanos, alignmentNanos, unaligned))
        {
            spareSnapshot = taken;
        }
    }

    /**
     * Writes the barrier on every output channel, after the records written before it.
     *
     * @param checkpointId the barrier's checkpoint.
     * @param kind         checkpoint or savepoint.
     * @param timestamp    trigger time, epoch ms.
     */
    final void emitBarrier(final long checkpointId, final BarrierKind kind, final long timestamp)
    {
        lastForwardedBarrier = Math.max(lastForwardedBarrier, checkpointId);
        // announce on every output first, then write the slots: a full ring delays a slot, never an announcement
        if (announceBarriers && kind == BarrierKind.CHECKPOINT)
        {
            for (final ChannelWriter writer : writers)
            {
                writer.announceBarrier(checkpointId, kind, timestamp);
            }
        }
        for (final ChannelWriter writer : writers)
        {
            writer.writeBarrier(checkpointId, kind, timestamp);
        }
    }

    /** @return the last barrier this task forwarded. */
    final long lastForwardedBarrier()
    {
        return lastForwardedBarrier;
    }

    /**
     * Every input has ended: lets each operator emit what it buffers (head first, so its output reaches the rest),
     * then sends END_OF_INPUT on every output channel and stops the loop.
     */
    final void finish()
    {
        // the end of the input is the end of event time: every event-time timer and window fires
        watermarkToChain(Long.MAX_VALUE);
        drainPendingTimers();
        for (final StreamOperator operator : chain)
        {
            try
            {
                operator.endInput();
            }
            catch (final Throwable ex)
            {
                throw OperatorException.wrap(operator.runtime(), ex);
            }
        }
        for (final ChannelWriter writer : writers)
        {
            writer.writeEndOfInput();
        }
        if (chainHoldsUncommittedOutput())
        {
            awaitingCommit = true;
            requestCommitCheckpoint();
        }
        else
        {
            finished = true;
        }
    }

    /** At the end of the input: fires every event-time timer left in an interrupted pass, batch after batch. */
    private void drainPendingTimers()
    {
        boolean pending = true;
        while (pending)
        {
            pending = false;
            for (final StreamOperator operator : timed)
            {
                if (operator.hasPendingTimers())
                {
                    pending = true;
                    try
                    {
                        operator.fireTimers(operator.runtime().time().now(), operator.runtime().time().firingBatch());
                    }
                    catch (final Throwable ex)
                    {
                        throw OperatorException.wrap(operator.runtime(), ex);
                    }
                }
            }
        }
    }

    final boolean isFinished()
    {
        return finished;
    }

    @Override
    public final void awaitCapacity(final RingChannel channel)
    {
        if (host.isStopping())
        {
            throw TaskCancelledException.INSTANCE;
        }
        if (!flushedWhileWaiting)
        {
            // publish what the other outputs hold, so their consumers are not held up by this one's backlog
            flushedWhileWaiting = true;
            for (final ChannelWriter writer : writers)
            {
                writer.flush();
            }
            // and let go of any state lookup a record left open, so a snapshot flusher never waits for this wait
            for (final StreamOperator operator : chain)
            {
                final io.ringflow.state.backend.KeyedStateStore keyed = operator.runtime().keyedStateStore();
                if (keyed != null)
                {
                    keyed.beforeWaiting();
                }
            }
        }
        backPressureIdle.idle();
    }

    /**
     * Interrupts the task thread if it is in its work loop; once it has left the loop (closing its operators) a stop
     * no longer interrupts it. Any thread; once per stop.
     *
     * @param thread the task's thread.
     */
    public final synchronized void interruptIfInLoop(final Thread thread)
    {
        if (interruptible)
        {
            thread.interrupt();
        }
    }

    private void flushWriters()
    {
        for (final ChannelWriter writer : writers)
        {
            writer.flush();
        }
        backPressureIdle.reset();
        flushedWhileWaiting = false;
    }

    private static void openOperator(final StreamOperator operator)
    {
        try
        {
            operator.initializeState();
            operator.open();
        }
        catch (final Throwable ex)
        {
            throw OperatorException.wrap(operator.runtime(), ex);
        }
    }

    /**
     * Closes any lookup a keyed store keeps open between a read and a write (a function that threw between them): its
     * locks belong to this thread, and the store may be used by the next attempt's thread (local recovery). Task
     * thread, last.
     */
    private void releaseHeldLookups()
    {
        for (final StreamOperator operator : chain)
        {
            final io.ringflow.state.backend.KeyedStateStore keyed =
                operator.runtime() == null ? null : operator.runtime().keyedStateStore();
            if (keyed != null)
            {
                try
                {
                    keyed.beforeWaiting();
                }
                catch (final RuntimeException ex)
                {
                    LOG.log(System.Logger.Level.WARNING, "could not release the open lookup of " + keyed, ex);
                }
            }
        }
    }

    private void closeOperators(final Throwable earlier)
    {
        for (final StreamOperator operator : chain)
        {
            try
            {
                operator.close();
            }
            catch (final Throwable ex)
            {
                if (earlier != null)
                {
                    earlier.addSuppressed(ex);
                }
                else if (finished)
                {
                    // the task processed all its input: losing its close (a sink's last flush) loses output
                    host.failAfterFinish(toTaskFailure(OperatorException.wrap(operator.runtime(), ex)));
                }
                else if (!host.isStopping())
                {
                    host.fail(toTaskFailure(OperatorException.wrap(operator.runtime(), ex)));
                }
            }
        }
    }

    private TaskFailureException toTaskFailure(final Throwable failure)
    {
        final OperatorRuntime blamed;
        final Throwable cause;
        if (failure instanceof OperatorException)
        {
            blamed = ((OperatorException)failure).operator();
            cause = failure.getCause();
        }
        else
        {
            blamed = chain[0].runtime();
            cause = failure;
        }
        return new TaskFailureException(
            blamed.operatorName(), blamed.uid(), blamed.subtaskIndex(), blamed.parallelism(), cause);
    }

    @Override
    public String toString()
    {
        return "Task{" + name + '}';
    }
}
