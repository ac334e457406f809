package io.ringflow.engine.api.eventtime;

/**
 * Gives each record its event-time timestamp, in milliseconds since the epoch (or any other unit the job uses
 * consistently: windows and watermarks only compare numbers).
 *
 * @param <T> the record type.
 */
@FunctionalInterface
public interface TimestampAssigner<T>
{
    /**
     * @param element         the record.
     * @param recordTimestamp the timestamp the record already has (a source's, e.g. a Kafka record's), or
     *                        {@link Long#MIN_VALUE} when it has none.
     * @return the record's timestamp; {@link Long#MIN_VALUE} is refused, a negative one unless the strategy
     *     {@link WatermarkStrategy#allowingNegativeTimestamps() allows} it.
     */
    long extractTimestamp(T element, long recordTimestamp);
}
