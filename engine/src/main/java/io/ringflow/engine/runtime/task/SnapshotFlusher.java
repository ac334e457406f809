package io.ringflow.engine.runtime.task;

import io.ringflow.engine.checkpoint.CheckpointGateway;
import io.ringflow.engine.checkpoint.TaskAcknowledgement;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Writes the snapshots tasks took at their barriers (the asynchronous part of a checkpoint), then acknowledges each
 * to the coordinator; a write that fails declines the checkpoint.
 *
 * <p>Thread contract: {@link #flush} is called on task threads; writes run on one daemon thread per attempt, in the
 * order handed over, except a small snapshot into storage that is not durable (memory), which the calling task thread
 * writes at once: a copy of a few kilobytes costs less than a hand-off (on two busy cores a wake-up can cost a
 * millisecond). Each write is bracketed by {@link CheckpointGateway#beginWrite}/{@link CheckpointGateway#endWrite},
 * so an aborted checkpoint's files are deleted only once its writes have ended.
 */
public final class SnapshotFlusher
{
    private final CheckpointGateway checkpoints;
    private final ExecutorService thread;

    /**
     * @param jobName     for the thread's name.
     * @param checkpoints the coordinator.
     */
    public SnapshotFlusher(final String jobName, final CheckpointGateway checkpoints)
    {
        this.checkpoints = checkpoints;
        this.thread = Executors.newSingleThreadExecutor(runnable ->
        {
            final Thread flusher = new Thread(runnable, "ringflow-snapshot-flusher-" + jobName);
            flusher.setDaemon(true);
            return flusher;
        });
    }

    /**
     * Writes a task's capture, then acknowledges it. Task thread; the writing happens on the flusher thread, or
     * here for a small capture into storage that is not durable.
     *
     * @return true when the capture was written here: no one holds it any more, and the task may {@link
     *     TaskSnapshot#reuse} it; false when the flusher holds it.
     */
    boolean flush(final Task task, final TaskSnapshot snapshot, final long position, final long firstBarrierNanos,
        final long syncNanos, final long alignmentNanos, final boolean unaligned)
    {
        if (!checkpoints.storage().isDurable() && snapshot.isSmall())
        {
            // written here: no closure to hand over
            write(task, snapshot, position, firstBarrierNanos, syncNanos, alignmentNanos, unaligned);
            return true;
        }
        final Runnable write = new PendingWrite(snapshot, () -> write(task, snapshot, position, firstBarrierNanos,
            syncNanos, alignmentNanos, unaligned));
        try
        {
            thread.execute(write);
        }
        catch (final RejectedExecutionException stopped)
        {
            // the attempt is stopping: the checkpoint will not complete
            snapshot.release();
        }
        return false;
    }

    private void write(final Task task, final TaskSnapshot snapshot, final long position,
        final long firstBarrierNanos, final long syncNanos, final long alignmentNanos, final boolean unaligned)
    {
        if (!checkpoints.beginWrite(snapshot.checkpointId))
        {
            // aborted or expired while queued: nothing may be written for it
            snapshot.release();
            return;
        }
        try
        {
            final long start = System.nanoTime();
            final List<TaskAcknowledgement.OperatorStateAck> states;
            try
            {
                states = snapshot.write(checkpoints.storage());
            }
            catch (final Exception | LinkageError ex)
            {
                checkpoints.decline(task, snapshot.checkpointId, ex);
                return;
            }
            finally
            {
                snapshot.release();
            }
            checkpoints.acknowledge(task, new TaskAcknowledgement(snapshot.checkpointId, position,
                firstBarrierNanos, syncNanos, System.nanoTime() - start, alignmentNanos, snapshot.bytesWritten(),
                snapshot.inFlightBytes(), snapshot.inFlightRecords(), unaligned, states));
        }
        finally
        {
            // if the checkpoint ended while it was written, its files are deleted now, after the last of them
            checkpoints.endWrite(snapshot.checkpointId);
        }
    }

    /**
     * Runs {@code action} after every write handed over before it (so a finished task's acknowledgements reach the
     * coordinator before its end does); at once when the flusher no longer takes work.
     *
     * @param action what to run.
     */
    public void afterPendingWrites(final Runnable action)
    {
        try
        {
            thread.execute(action);
        }
        catch (final RejectedExecutionException stopping)
        {
            action.run();
        }
    }

    /**
     * Takes no more work and interrupts a write under way. Captures still queued are released, never written: their
     * stores stop preserving old values for them (a store kept for local recovery must have none pending). Any
     * thread.
     */
    public void shutdownNow()
    {
        for (final Runnable dropped : thread.shutdownNow())
        {
            if (dropped instanceof PendingWrite write)
            {
                write.snapshot.release();
            }
        }
    }

    /** A capture handed to the flusher thread and not written yet. */
    private record PendingWrite(TaskSnapshot snapshot, Runnable write) implements Runnable
    {
        @Override
        public void run()
        {
            write.run();
        }
    }

    /**
     * Waits until the flusher thread has ended (after {@link #shutdownNow()}): no snapshot still reads a store.
     *
     * @param timeout the longest wait.
     * @param unit    its unit.
     * @return whether it ended.
     * @throws InterruptedException when the waiting thread is interrupted.
     */
    public boolean awaitTermination(final long timeout, final TimeUnit unit) throws InterruptedException
    {
        return thread.awaitTermination(timeout, unit);
    }
}
