package io.ringflow.state.chronicle;

import io.ringflow.state.keyed.KeyGroupRange;
import io.ringflow.state.snapshot.KeyedSnapshotWriter;
import io.ringflow.state.snapshot.KeyedStateSnapshot;
import io.ringflow.state.snapshot.StateMeta;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The asynchronous part of a Chronicle store snapshot: reads every state's live map, substituting the values the task
 * thread preserved since the barrier, and writes the result in the backend-independent keyed snapshot format.
 *
 * <p>Thread contract: created on the task thread by {@link ChronicleKeyedStateStore#snapshot}; {@link #writeTo}
 * once, on a flusher; {@link #release} on any thread, any number of times. Until it is written or released, the task
 * thread preserves old values for it, so an abandoned snapshot must be released.
 */
final class ChronicleKeyedStateSnapshot implements KeyedStateSnapshot
{
    private final long checkpointId;
    private final int maxParallelism;
    private final KeyGroupRange keyGroups;
    private final PendingStatePart[] states;
    private final AtomicBoolean done = new AtomicBoolean();
    private final boolean delta;
    private final long spillAfterBytes;
    private final Path spillDirectory;
    /** See {@link #filesHoldingEverything()}. */
    private final int filesHoldingEverything;
    /** How many times the flusher spilled the entries to a file while writing; set by {@link #writeTo}. */
    private volatile int spilledRuns;

    /**
     * Registers nothing: the store adds each part to its state before handing this out.
     *
     * @param checkpointId   the checkpoint, for messages.
     * @param maxParallelism the job's number of key groups.
     * @param keyGroups      the store's key groups.
     * @param states         one part per state that existed at the barrier.
     * @param delta          whether the parts are deltas since a base checkpoint.
     * @param spillAfterBytes  the most entries the flusher buffers on the heap before it spills them to a file.
     * @param spillDirectory   where it spills them; null for the JVM's temporary directory.
     * @param filesHoldingEverything for a delta that completes a round of rewritten slices, the round's length; else 0.
     */
    ChronicleKeyedStateSnapshot(
        final long checkpointId, final int maxParallelism, final KeyGroupRange keyGroups,
        final PendingStatePart[] states, final boolean delta, final long spillAfterBytes, final Path spillDirectory,
        final int filesHoldingEverything)
    {
        this.filesHoldingEverything = filesHoldingEverything;
        this.spillAfterBytes = spillAfterBytes;
        this.spillDirectory = spillDirectory;
        this.delta = delta;
        this.checkpointId = checkpointId;
        this.maxParallelism = maxParallelism;
        this.keyGroups = keyGroups;
        this.states = states;
    }

    @Override
    public void writeTo(final OutputStream out) throws IOException
    {
        writeTo(out, PendingStatePart.SegmentObserver.NONE);
    }

    /**
     * {@link #writeTo(OutputStream)}, telling {@code observer} after each segment is read.
     *
     * <p>An interrupt of the writing thread abandons the snapshot: after each segment (a full snapshot) or each
     * changed key (a delta) read, an interrupted thread stops reading, releases the snapshot's parts and throws an
     * {@link InterruptedIOException}, its interrupt status kept. A failed attempt's flusher is interrupted so: its
     * checkpoint can no longer complete, and the restart waits for the flusher to stop (a delta of millions of changed
     * keys reads for seconds).
     *
     * @param out      where to write; not closed here.
     * @param observer told after each segment, on the flusher, with no lock held.
     * @throws IOException when writing fails, or {@link InterruptedIOException} when abandoned.
     */
    void writeTo(final OutputStream out, final PendingStatePart.SegmentObserver observer) throws IOException
    {
        if (!done.compareAndSet(false, true))
        {
            throw new IllegalStateException("the keyed snapshot of checkpoint " + checkpointId +
                " was already written or released");
        }
        // the engine's own writes pass NONE: checking for an interrupt then allocates nothing per snapshot
        final PendingStatePart.SegmentObserver told = observer == PendingStatePart.SegmentObserver.NONE ?
            STOP_IF_INTERRUPTED : (stateIndex, segment) ->
            {
                observer.segmentRead(stateIndex, segment);
                STOP_IF_INTERRUPTED.segmentRead(stateIndex, segment);
            };
        long expectedEntries = 0;
        for (final PendingStatePart state : states)
        {
            expectedEntries += state.expectedEntries();
        }
        try (KeyGroupBuckets entries = new KeyGroupBuckets(keyGroups, expectedEntries, spillAfterBytes,
            spillDirectory))
        {
            final List<StateMeta> metas = new ArrayList<>(states.length);
            try
            {
                for (int i = 0; i < states.length; i++)
                {
                    metas.add(states[i].meta());
                    // this thread reads this part to the end now, needing nothing of the task but its segment locks
                    states[i].startCollecting();
                    states[i].collect(i, entries, told);
                    // everything as of the barrier is copied: the task thread may stop preserving for this state
                    states[i].state().removePending(states[i]);
                }
            }
            catch (final UncheckedIOException spillFailed)
            {
                throw spillFailed.getCause();
            }
            catch (final Abandoned abandoned)
            {
                throw new InterruptedIOException("the keyed snapshot of checkpoint " + checkpointId + " was " +
                    "abandoned: its writing thread was interrupted");
            }
            finally
            {
                releaseParts();
            }
            final KeyedSnapshotWriter writer = new KeyedSnapshotWriter(out, maxParallelism, keyGroups, metas, delta,
                entries.bytes());
            spilledRuns = entries.spilledRuns();
            entries.writeTo(writer);
            writer.finish();
        }
    }

    /** Told after each segment or changed key read: stops the read on an interrupted thread. */
    private static final PendingStatePart.SegmentObserver STOP_IF_INTERRUPTED = (stateIndex, segment) ->
    {
        if (Thread.currentThread().isInterrupted())
        {
            throw new Abandoned();
        }
    };

    /** Thrown out of a part's read by {@link #STOP_IF_INTERRUPTED}, caught by {@link #writeTo}; carries nothing. */
    private static final class Abandoned extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        Abandoned()
        {
            super(null, null, false, false);
        }
    }

    /** @return how many times the entries were spilled to a file while this snapshot was written. */
    int spilledRuns()
    {
        return spilledRuns;
    }

    @Override
    public boolean isIncremental()
    {
        return delta;
    }

    @Override
    public int filesHoldingEverything()
    {
        return filesHoldingEverything;
    }

    @Override
    public void release()
    {
        if (done.compareAndSet(false, true))
        {
            releaseParts();
        }
    }

    private void releaseParts()
    {
        for (final PendingStatePart state : states)
        {
            state.state().removePending(state);
            state.release();
        }
    }

    @Override
    public String toString()
    {
        return "ChronicleKeyedStateSnapshot{checkpointId=" + checkpointId + ", states=" + states.length +
            ", delta=" + delta + '}';
    }
}
