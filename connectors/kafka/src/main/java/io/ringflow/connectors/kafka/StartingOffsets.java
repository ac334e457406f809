package io.ringflow.connectors.kafka;

import java.util.Objects;

/**
 * Where a Kafka source starts reading a partition the first time, when no checkpoint holds its offset. After a
 * restore the checkpoint's offsets win; partitions that appear later (discovered while running, or new since the
 * checkpoint) start from their earliest offset so that nothing written to them is missed.
 */
public final class StartingOffsets
{
    enum Kind
    {
        EARLIEST, LATEST, TIMESTAMP, COMMITTED
    }

    final Kind kind;
    final long timestamp;
    /** For COMMITTED: where a partition without a committed offset starts, or null to fail. */
    final StartingOffsets fallback;

    private StartingOffsets(final Kind kind, final long timestamp, final StartingOffsets fallback)
    {
        this.kind = kind;
        this.timestamp = timestamp;
        this.fallback = fallback;
    }

    /** @return the first offset still held by the broker. */
    public static StartingOffsets earliest()
    {
        return new StartingOffsets(Kind.EARLIEST, 0, null);
    }

    /** @return the end of the partition when the source starts: only records written afterwards. */
    public static StartingOffsets latest()
    {
        return new StartingOffsets(Kind.LATEST, 0, null);
    }

    /**
     * @param epochMillis a time.
     * @return the first record whose timestamp is at or after that time (the end when there is none).
     */
    public static StartingOffsets timestamp(final long epochMillis)
    {
        if (epochMillis < 0)
        {
            throw new IllegalArgumentException("starting timestamp must be >= 0, got " + epochMillis);
        }
        return new StartingOffsets(Kind.TIMESTAMP, epochMillis, null);
    }

    /**
     * The offsets committed by the source's consumer group (needs {@link KafkaSource.Builder#groupId}).
     *
     * @param otherwise where a partition with no committed offset starts ({@link #earliest} or {@link #latest}),
     *                  or null to refuse to start.
     * @return the committed offsets.
     */
    public static StartingOffsets committed(final StartingOffsets otherwise)
    {
        if (otherwise != null && otherwise.kind != Kind.EARLIEST && otherwise.kind != Kind.LATEST)
        {
            throw new IllegalArgumentException("the fallback of committed offsets must be earliest() or latest()");
        }
        return new StartingOffsets(Kind.COMMITTED, 0, otherwise);
    }

    @Override
    public String toString()
    {
        switch (kind)
        {
            case TIMESTAMP:
                return "timestamp(" + timestamp + ")";
            case COMMITTED:
                return "committed(" + Objects.toString(fallback, "fail") + ")";
            default:
                return kind.name().toLowerCase(java.util.Locale.ROOT) + "()";
        }
    }
}
