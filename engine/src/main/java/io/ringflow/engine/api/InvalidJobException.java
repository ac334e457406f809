package io.ringflow.engine.api;

/**
 * The job graph cannot run: thrown when the graph is built or submitted, before any thread starts, with a message
 * that names the operator and says what to change.
 */
public final class InvalidJobException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what is wrong and how to fix it.
     */
    public InvalidJobException(final String message)
    {
        super(message);
    }

    /**
     * @param message what is wrong and how to fix it.
     * @param cause   the underlying error.
     */
    public InvalidJobException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
