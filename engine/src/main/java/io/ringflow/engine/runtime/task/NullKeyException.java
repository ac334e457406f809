package io.ringflow.engine.runtime.task;

/**
 * A key selector returned null. Keys are never null: they pick the key group and scope the state.
 */
public final class NullKeyException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private NullKeyException(final String message)
    {
        super(message);
    }

    /**
     * @param operatorName the keyed operator whose key selector returned null.
     * @param record       the record it was given.
     * @return the exception.
     */
    public static NullKeyException of(final String operatorName, final Object record)
    {
        String text;
        try
        {
            text = String.valueOf(record);
            if (text.length() > 200)
            {
                text = text.substring(0, 200) + "...";
            }
        }
        catch (final RuntimeException ex)
        {
            text = record.getClass().getName();
        }
        return new NullKeyException("the key selector of keyBy(...) before operator '" + operatorName +
            "' returned null for record " + text + "; keys must not be null");
    }
}
