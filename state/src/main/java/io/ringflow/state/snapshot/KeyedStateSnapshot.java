package io.ringflow.state.snapshot;

import java.io.IOException;
import java.io.OutputStream;

/**
 * The asynchronous part of one keyed state snapshot: the state exactly as it was when
 * {@link io.ringflow.state.backend.KeyedStateStore#snapshot} returned, written in {@link KeyedSnapshotFormat} while the
 * task goes on changing the live state.
 *
 * <p>Thread contract: created on the task thread; {@link #writeTo} is then called once, by another thread (a snapshot
 * flusher), and {@link #release} by either, once the snapshot is written or abandoned.
 */
public interface KeyedStateSnapshot
{
    /**
     * Writes the snapshot.
     *
     * @param out where to write; not closed here. It must copy what {@code write} hands it before returning (any
     *            stream of the JDK does): the arrays it is handed are reused for the next snapshot written on this
     *            thread.
     * @throws IOException when writing fails.
     */
    void writeTo(OutputStream out) throws IOException;

    /**
     * @return whether this is a delta of an incremental checkpoint (written as {@link KeyedSnapshotFormat#TYPE_DELTA},
     *     meaningful only on top of the chain of its base), rather than a full snapshot.
     */
    default boolean isIncremental()
    {
        return false;
    }

    /**
     * @return for a delta, how many of the newest files of its chain, this one included, together hold every entry of
     *     the state as of this snapshot's barrier, so that the chain may drop the files before them; 0 when every file
     *     of the chain is still needed (and for a full snapshot, which starts a chain of its own).
     */
    default int filesHoldingEverything()
    {
        return 0;
    }

    /** Frees what the snapshot holds on to (copies, pinned versions). Idempotent; any thread. */
    void release();
}
