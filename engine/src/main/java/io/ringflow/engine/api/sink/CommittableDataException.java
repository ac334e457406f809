package io.ringflow.engine.api.sink;

import java.io.IOException;

/**
 * Thrown by a {@link Committer} when a committable's data is missing or does not match what was pre-committed
 * (length, checksum): nothing is committed, and no retry is made, since none can cure it.
 */
public final class CommittableDataException extends IOException
{
    private static final long serialVersionUID = 1L;

    /** @param message what is missing or corrupt, naming the file or transaction. */
    public CommittableDataException(final String message)
    {
        super(message);
    }
}
