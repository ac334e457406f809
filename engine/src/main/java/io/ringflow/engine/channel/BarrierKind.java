package io.ringflow.engine.channel;

/**
 * What a barrier asks for: the one enum for a barrier's kind, from the coordinator's request through the BARRIER
 * slot (its {@link #code()} is the payload's type field, {@link SlotDescriptor}) to the task's barrier handler.
 */
public enum BarrierKind
{
    /** A checkpoint: each task handles it as its barrier options say (aligned, unaligned, at-least-once, ...). */
    CHECKPOINT(0),

    /**
     * A savepoint: aligned in every barrier mode (never announced ahead of the data, never switched to unaligned by
     * an alignment timeout, blocking even at-least-once), so it holds no channel state and no record after its cut:
     * it can be restored exactly, into a changed job or at another parallelism.
     */
    SAVEPOINT(1);

    private final int code;

    BarrierKind(final int code)
    {
        this.code = code;
    }

    /** @return the value of the BARRIER payload's type field for this kind. */
    public int code()
    {
        return code;
    }

    /**
     * @param code a BARRIER payload's type field.
     * @return the kind it stands for.
     * @throws IllegalArgumentException for an unknown code.
     */
    public static BarrierKind fromCode(final int code)
    {
        return switch (code)
        {
            case 0 -> CHECKPOINT;
            case 1 -> SAVEPOINT;
            default -> throw new IllegalArgumentException(
                "unknown barrier type " + code + ": 0 is CHECKPOINT, 1 is SAVEPOINT");
        };
    }
}
