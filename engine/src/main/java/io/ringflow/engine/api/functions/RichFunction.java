package io.ringflow.engine.api.functions;

/**
 * Lifecycle of a user function: {@link #open} before the first record, {@link #close} after the last,
 * both on the subtask's task thread.
 */
public interface RichFunction
{
    /**
     * Called once before any record; declare state here.
     *
     * @param context the subtask's context.
     * @throws Exception fails the job attempt.
     */
    default void open(final RuntimeContext context) throws Exception
    {
    }

    /**
     * Called once when the subtask stops, whether it finished or failed.
     *
     * @throws Exception reported, but does not hide an earlier failure.
     */
    default void close() throws Exception
    {
    }
}
