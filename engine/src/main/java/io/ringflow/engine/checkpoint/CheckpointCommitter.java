package io.ringflow.engine.checkpoint;

import io.ringflow.state.checkpoint.CheckpointMetadata;
import io.ringflow.state.checkpoint.CheckpointStorage;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The storage side of the coordinator: commits completed checkpoints and deletes what aborted ones wrote.
 *
 * <p>Thread contract: durable storage is written by one I/O thread (a daemon, never a task thread), so commits and
 * deletions happen one at a time, in the order they were handed over. In-memory storage has nothing to make durable:
 * its commits run on the calling thread, which saves a thread hand-off (on two busy cores a wake-up can cost a
 * millisecond).
 */
final class CheckpointCommitter
{
    private static final System.Logger LOG = System.getLogger(CheckpointCommitter.class.getName());

    private final String jobName;
    private final CheckpointStorage storage;
    private final int retained;
    private final ExecutorService io;

    CheckpointCommitter(final String jobName, final CheckpointStorage storage, final int retained)
    {
        this.jobName = jobName;
        this.storage = storage;
        this.retained = retained;
        this.io = Executors.newSingleThreadExecutor(runnable ->
        {
            final Thread thread = new Thread(runnable, "ringflow-checkpoint-io-" + jobName);
            thread.setDaemon(true);
            return thread;
        });
    }

    CheckpointStorage storage()
    {
        return storage;
    }

    /**
     * Runs a commit where the storage wants it: here for in-memory storage, on the I/O thread otherwise. A commit
     * handed over after {@link #shutdown()} is dropped (the job stopped: the checkpoint is not committed).
     *
     * @param commit writes the metadata and completes the checkpoint.
     */
    void run(final Runnable commit)
    {
        where(commit, false);
    }

    /** @return whether {@link #run} runs its work on the calling thread: the storage is in memory. */
    boolean runsOnCaller()
    {
        return !storage.isDurable();
    }

    /**
     * Runs {@code work} here for in-memory storage, else on the I/O thread, after what was handed over before it.
     *
     * @param work             the storage work.
     * @param hereWhenStopping once the I/O thread takes no more work: true to run it here, false to drop it.
     */
    private void where(final Runnable work, final boolean hereWhenStopping)
    {
        if (runsOnCaller())
        {
            work.run();
            return;
        }
        try
        {
            io.execute(work);
        }
        catch (final RejectedExecutionException stopping)
        {
            if (hereWhenStopping)
            {
                work.run();
            }
        }
    }

    /**
     * Stores the metadata, its state files being durable already: the commit point. Deletes nothing ({@link #prune}).
     *
     * @param metadata the checkpoint.
     * @throws IOException when it cannot be stored: the checkpoint fails.
     */
    void commit(final CheckpointMetadata metadata) throws IOException
    {
        storage.commit(metadata);
    }

    /**
     * Retention and the shared area's collection after checkpoint {@code newest} was committed and announced: on the
     * I/O thread for durable storage (deleting folders costs file-system work, with a tail of milliseconds), on the
     * calling thread otherwise, or when the I/O thread takes no more work (the job is stopping; a prune that is missed
     * leaves one checkpoint too many, which the next run's first prune deletes).
     *
     * @param newest the checkpoint just committed.
     * @param pinned the checkpoints not to prune, asked when the prune runs (pending checkpoints may have registered
     *               meanwhile).
     */
    void prune(final long newest, final Supplier<Set<Long>> pinned)
    {
        if (!storage.isDurable())
        {
            // what where() would do, without building the closure: the acknowledging thread prunes memory itself
            storage.prune(newest, retained, pinned.get());
            return;
        }
        where(() -> storage.prune(newest, retained, pinned.get()), true);
    }

    /** Deletes what an aborted checkpoint wrote, on the I/O thread (after any commit handed over before). */
    void discardLater(final long id)
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
                    LOG.log(Level.WARNING, "could not delete the files of aborted checkpoint " + id + " of job '" +
                        jobName + "'", ex);
                }
            });
        }
        catch (final RejectedExecutionException stopped)
        {
            // the job stopped; an aborted checkpoint's folder has no metadata and is never restored from
        }
    }

    /** Accepts no more work; what was handed over still runs. */
    void shutdown()
    {
        io.shutdown();
    }

    /**
     * Waits for the work handed over, then, for a cancelled job that does not retain its checkpoints, deletes them.
     *
     * @param deleteCheckpoints whether to delete every stored checkpoint but savepoints.
     * @param abandoned         checkpoints pending when the job stopped: what they wrote is deleted (a storage never
     *                          deletes a committed checkpoint, so one whose commit finished meanwhile stays).
     */
    void finish(final boolean deleteCheckpoints, final List<Long> abandoned)
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
        for (final long id : abandoned)
        {
            try
            {
                storage.discardPending(id);
            }
            catch (final IOException | RuntimeException ex)
            {
                LOG.log(Level.WARNING, "could not delete the files of checkpoint " + id + ", pending when job '" +
                    jobName + "' stopped", ex);
            }
        }
        if (!deleteCheckpoints)
        {
            return;
        }
        try
        {
            storage.discardAll();
        }
        catch (final IOException | RuntimeException ex)
        {
            LOG.log(Level.WARNING, "could not delete the checkpoints of cancelled job '" + jobName + "'", ex);
        }
    }
}
