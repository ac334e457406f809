package io.ringflow.state.keyed;

/**
 * The kinds of keyed state, with the stable code each has in snapshots, and what one snapshot entry of each holds.
 */
public enum StateKind
{
    /** One value per key. Entry: (key, value). */
    VALUE(1),
    /** A map per key. Entry: (key, user key as the sub-key, map value); one entry per user key. */
    MAP(2),
    /** A list per key. Entry: (key, the whole list in {@link io.ringflow.state.snapshot.ListCodec}'s format). */
    LIST(3),
    /** One value per key, folded by a reduce function. Entry: (key, folded value). */
    REDUCING(4),
    /** One accumulator per key, folded by an aggregate function. Entry: (key, accumulator). */
    AGGREGATING(5);

    private final int code;

    StateKind(final int code)
    {
        this.code = code;
    }

    /** @return the code written in snapshots; never changes. */
    public int code()
    {
        return code;
    }

    /**
     * @param code a code read from a snapshot.
     * @return its kind.
     * @throws IllegalArgumentException for an unknown code.
     */
    public static StateKind fromCode(final int code)
    {
        for (final StateKind kind : values())
        {
            if (kind.code == code)
            {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown state kind code " + code);
    }
}
