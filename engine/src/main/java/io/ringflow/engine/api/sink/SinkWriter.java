package io.ringflow.engine.api.sink;

/**
 * Writes one subtask's records. Used by that subtask's task thread only.
 *
 * @param <T> the record type.
 */
public interface SinkWriter<T> extends AutoCloseable
{
    /**
     * @param record a record, never null.
     * @throws Exception fails the job attempt.
     */
    void write(T record) throws Exception;

    /**
     * Makes everything written so far visible; called when a barrier passes and at end of input.
     *
     * @throws Exception fails the job attempt.
     */
    default void flush() throws Exception
    {
    }

    /**
     * Called once when the subtask stops, finished or failed.
     *
     * @throws Exception reported, but does not hide an earlier failure.
     */
    @Override
    default void close() throws Exception
    {
    }
}
