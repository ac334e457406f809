package io.ringflow.engine.api.eventtime;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * How a stream gets event time: which timestamp each record has ({@link TimestampAssigner}) and which watermarks
 * follow from them ({@link WatermarkGenerator}), with an optional idleness timeout. Immutable; each {@code with...}
 * returns a new strategy. Applied with {@code DataStream.assignTimestampsAndWatermarks}, normally right after a
 * source, where it runs in the source's task (one generator per source subtask).
 *
 * <pre>{@code
 * WatermarkStrategy.<PageView>forBoundedOutOfOrderness(Duration.ofSeconds(5))
 *     .withTimestampAssigner((view, previous) -> view.timestamp())
 *     .withIdleness(Duration.ofMinutes(1))
 * }</pre>
 *
 * @param <T> the record type.
 */
public final class WatermarkStrategy<T>
{
    private final Supplier<? extends WatermarkGenerator<T>> generators;
    private final TimestampAssigner<T> assigner;
    private final Duration idleness;
    private final boolean negativeTimestamps;
    private final String description;

    private WatermarkStrategy(final Supplier<? extends WatermarkGenerator<T>> generators,
        final TimestampAssigner<T> assigner, final Duration idleness, final boolean negativeTimestamps,
        final String description)
    {
        this.generators = generators;
        this.assigner = assigner;
        this.idleness = idleness;
        this.negativeTimestamps = negativeTimestamps;
        this.description = description;
    }

    /**
     * @param maxOutOfOrderness how late a record may arrive behind the latest seen and still be on time.
     * @param <T>               the record type.
     * @return watermarks that trail the largest timestamp seen by {@code maxOutOfOrderness}.
     */
    public static <T> WatermarkStrategy<T> forBoundedOutOfOrderness(final Duration maxOutOfOrderness)
    {
        // validated now, not when the first subtask starts
        new BoundedOutOfOrdernessWatermarks<T>(maxOutOfOrderness);
        return new WatermarkStrategy<>(() -> new BoundedOutOfOrdernessWatermarks<>(maxOutOfOrderness), null, null,
            false, "bounded out-of-orderness " + maxOutOfOrderness);
    }

    /**
     * @param <T> the record type.
     * @return watermarks for timestamps that never go back: the largest seen minus one.
     */
    public static <T> WatermarkStrategy<T> forMonotonousTimestamps()
    {
        return new WatermarkStrategy<>(() -> new BoundedOutOfOrdernessWatermarks<>(Duration.ZERO), null, null, false,
            "monotonous");
    }

    /**
     * @param generators makes one generator per source subtask.
     * @param <T>        the record type.
     * @return watermarks from the user's own generator.
     */
    public static <T> WatermarkStrategy<T> forGenerator(final Supplier<? extends WatermarkGenerator<T>> generators)
    {
        return new WatermarkStrategy<>(Objects.requireNonNull(generators, "generators"), null, null, false,
            "custom generator");
    }

    /**
     * @param <T> the record type.
     * @return timestamps (if an assigner is added) but no watermarks: event-time windows downstream never fire
     *     before the end of the input.
     */
    public static <T> WatermarkStrategy<T> noWatermarks()
    {
        return new WatermarkStrategy<>(() -> new WatermarkGenerator<T>()
        {
            @Override
            public void onEvent(final T event, final long timestamp, final WatermarkOutput output)
            {
            }

            @Override
            public void onPeriodicEmit(final WatermarkOutput output)
            {
            }
        }, null, null, false, "no watermarks");
    }

    /**
     * @param timestampAssigner gives each record its timestamp; without one, records keep the timestamp they came
     *                          with (a source's).
     * @return a strategy with this assigner.
     */
    public WatermarkStrategy<T> withTimestampAssigner(final TimestampAssigner<T> timestampAssigner)
    {
        return new WatermarkStrategy<>(generators, Objects.requireNonNull(timestampAssigner, "timestampAssigner"),
            idleness, negativeTimestamps, description);
    }

    /**
     * @param timeout a subtask that sees no record for this long (processing time) is marked idle: downstream
     *                leaves it out of its watermark, so it does not hold event time back. Positive.
     * @return a strategy with this idleness timeout.
     */
    public WatermarkStrategy<T> withIdleness(final Duration timeout)
    {
        if (timeout == null || timeout.isNegative() || timeout.isZero())
        {
            throw new IllegalArgumentException("the idleness timeout must be positive, was " + timeout);
        }
        return new WatermarkStrategy<>(generators, assigner, timeout, negativeTimestamps, description);
    }

    /**
     * @return a strategy that accepts negative timestamps (before 1970); by default one fails the job, naming the
     *     operator and the record, as it is most often a field that was never set.
     */
    public WatermarkStrategy<T> allowingNegativeTimestamps()
    {
        return new WatermarkStrategy<>(generators, assigner, idleness, true, description);
    }

    /** @return a new generator, for one subtask. */
    public WatermarkGenerator<T> createGenerator()
    {
        return Objects.requireNonNull(generators.get(), "the watermark generator supplier returned null");
    }

    /** @return the assigner, or null: records keep the timestamp they came with. */
    public TimestampAssigner<T> timestampAssigner()
    {
        return assigner;
    }

    /** @return the idleness timeout, or null for none. */
    public Duration idleness()
    {
        return idleness;
    }

    /** @return whether negative timestamps are accepted. */
    public boolean negativeTimestampsAllowed()
    {
        return negativeTimestamps;
    }

    @Override
    public String toString()
    {
        return "WatermarkStrategy{" + description + (assigner == null ? "" : ", with assigner") +
            (idleness == null ? "" : ", idleness " + idleness) + (negativeTimestamps ? ", negative allowed" : "") + '}';
    }
}
