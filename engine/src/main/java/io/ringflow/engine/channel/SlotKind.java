package io.ringflow.engine.channel;

/**
 * What a slot carries. The integer codes are part of the slot layout ({@link SlotDescriptor}).
 */
public final class SlotKind
{
    /** A record encoded by the channel's codec. */
    public static final int RECORD = 1;
    /** A checkpoint or savepoint barrier. */
    public static final int BARRIER = 2;
    /** The producer will write nothing more to this channel. */
    public static final int END_OF_INPUT = 3;
    /** Reserved for event time: a watermark. Not produced yet. */
    public static final int WATERMARK = 4;

    private SlotKind()
    {
    }

    /**
     * @param kind a slot kind code.
     * @return its name, for error messages.
     */
    public static String name(final int kind)
    {
        switch (kind)
        {
            case RECORD: return "RECORD";
            case BARRIER: return "BARRIER";
            case END_OF_INPUT: return "END_OF_INPUT";
            case WATERMARK: return "WATERMARK";
            default: return "UNKNOWN(" + kind + ")";
        }
    }
}
