package io.ringflow.engine.api.functions;

/**
 * Processes the records of a keyed stream one at a time, with keyed state scoped to each record's key.
 *
 * <p>Each subtask gets its own instance: pass a factory ({@code CountPerKey::new}) when the function keeps fields,
 * or an instance when the operator's parallelism is 1. Called on the subtask's task thread only.
 *
 * <p>Time: {@code ctx.timestamp()} is the record's event time (when a {@code WatermarkStrategy} upstream gave it
 * one); {@code ctx.timerService()} registers event-time and processing-time timers for the current key, which call
 * {@link #onTimer} with that key current. Records emitted from {@code onTimer} of an event-time timer carry the timer's
 * time as their timestamp.
 *
 * @param <K> the key type.
 * @param <I> the input type.
 * @param <O> the output type.
 */
public abstract class KeyedProcessFunction<K, I, O> implements RichFunction
{
    /**
     * Processes one record.
     *
     * @param value the record.
     * @param ctx   the current key and time; valid during this call only.
     * @param out   emits results; valid during this call only.
     * @throws Exception fails the job attempt.
     */
    public abstract void processElement(I value, Context<K> ctx, Collector<O> out) throws Exception;

    /**
     * A timer of this key fired. The default does nothing.
     *
     * @param timestamp the timer's time.
     * @param ctx       the timer's key, domain and the timer service; valid during this call only.
     * @param out       emits results; valid during this call only.
     * @throws Exception fails the job attempt.
     */
    public void onTimer(final long timestamp, final OnTimerContext<K> ctx, final Collector<O> out) throws Exception
    {
    }

    /**
     * The context of one call.
     *
     * @param <K> the key type.
     */
    public interface Context<K>
    {
        /** @return the key of the record being processed. */
        K getCurrentKey();

        /** @return the processing time, epoch milliseconds. */
        long currentProcessingTime();

        /**
         * @return the record's event-time timestamp, or {@link Long#MIN_VALUE} when it has none (no
         *     {@code WatermarkStrategy} upstream); in {@code onTimer}, the timer's time.
         */
        long timestamp();

        /** @return timers and watermark, for the current key. */
        TimerService timerService();

        /**
         * Sends a record to a side output instead of the main output.
         *
         * @param tag   the side output.
         * @param value the record, not null.
         * @param <X>   its type.
         */
        <X> void output(OutputTag<X> tag, X value);
    }

    /**
     * The context of {@link #onTimer}.
     *
     * @param <K> the key type.
     */
    public interface OnTimerContext<K> extends Context<K>
    {
        /** @return which clock the timer ran on. */
        TimeDomain timeDomain();
    }
}
