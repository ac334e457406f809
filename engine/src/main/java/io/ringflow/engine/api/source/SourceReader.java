package io.ringflow.engine.api.source;

import io.ringflow.engine.api.functions.Collector;

/**
 * Reads one subtask's split of a {@link Source}. Used by that subtask's task thread only.
 *
 * <p>{@link #position()} is the position after the last record emitted: seeking a new reader to it and reading on
 * yields exactly the records that follow.
 *
 * @param <T> the record type.
 */
public interface SourceReader<T> extends AutoCloseable
{
    /** Returned by {@link #pollNext} when the split is exhausted. */
    int END_OF_INPUT = -1;

    /**
     * Emits up to {@code maxRecords} records that are available now, without blocking for long.
     *
     * @param output     receives the records.
     * @param maxRecords the most to emit in this call.
     * @return how many were emitted (0 when none is available yet), or {@link #END_OF_INPUT}.
     * @throws Exception fails the job attempt.
     */
    int pollNext(Collector<T> output, int maxRecords) throws Exception;

    /**
     * @return the position after the last emitted record.
     */
    long position();

    /**
     * Moves to a position earlier returned by {@link #position()}.
     *
     * @param position where to resume.
     * @throws Exception when the position is invalid or cannot be reached.
     */
    void seek(long position) throws Exception;

    /**
     * For a source that {@link Source#keepsPositionInState() keeps its position in state}: called once on restore,
     * before its state is initialized, with the {@link #position()} every former subtask reported at the checkpoint,
     * in former-subtask order (the list's size is the former parallelism). A subtask that had finished reported its
     * position at its end and contributes no operator state to later checkpoints: this is how its successors learn
     * that its splits were read to the end.
     *
     * @param positions the former subtasks' positions.
     */
    default void restoreFormerPositions(final java.util.List<Long> positions)
    {
    }

    @Override
    default void close() throws Exception
    {
    }
}
