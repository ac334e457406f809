package io.ringflow.engine.api.functions;

/**
 * Processes two keyed streams that share their key ({@code a.keyBy(k1).connect(b.keyBy(k2)).process(...)}): keyed
 * state is shared by key across both inputs, and each call gets the context of a {@link KeyedProcessFunction}: the
 * key, the record's timestamp, event-time and processing-time timers (which call {@link #onTimer} with the key
 * current) and side outputs. Each subtask gets its own instance (pass a factory); called on its task thread only.
 *
 * @param <K>  the key type.
 * @param <I1> the first input's type.
 * @param <I2> the second input's type.
 * @param <O>  the output type.
 */
public abstract class KeyedCoProcessFunction<K, I1, I2, O> implements RichFunction
{
    /**
     * A record of the first input.
     *
     * @param value the record.
     * @param ctx   key, time, timers, side outputs; valid during this call only.
     * @param out   emits results; valid during this call only.
     * @throws Exception fails the job attempt.
     */
    public abstract void processElement1(I1 value, Context<K> ctx, Collector<O> out)
        throws Exception;

    /**
     * A record of the second input.
     *
     * @param value the record.
     * @param ctx   key, time, timers, side outputs; valid during this call only.
     * @param out   emits results; valid during this call only.
     * @throws Exception fails the job attempt.
     */
    public abstract void processElement2(I2 value, Context<K> ctx, Collector<O> out)
        throws Exception;

    /**
     * A timer of this key fired. The default does nothing; a function that registers timers overrides it.
     *
     * @param timestamp the timer's time.
     * @param ctx       the timer's key, domain and the timer service; valid during this call only.
     * @param out       emits results; valid during this call only.
     * @throws Exception fails the job attempt.
     */
    public void onTimer(final long timestamp, final OnTimerContext<K> ctx, final Collector<O> out)
        throws Exception
    {
    }

    /**
     * The context of one call: key, the record's timestamp, timers, side outputs (as a keyed process function's).
     *
     * @param <K> the key type.
     */
    public interface Context<K> extends KeyedProcessFunction.Context<K>
    {
    }

    /**
     * The context of {@link #onTimer}.
     *
     * @param <K> the key type.
     */
    public interface OnTimerContext<K> extends KeyedProcessFunction.OnTimerContext<K>, Context<K>
    {
    }

    /**
     * Makes each subtask's function ({@code MyJoin::new}); a named interface so that
     * {@code connect(...).process(...)} can tell it from a factory of {@link CoProcessFunction}.
     *
     * @param <K>  the key type.
     * @param <I1> the first input's type.
     * @param <I2> the second input's type.
     * @param <O>  the output type.
     */
    @FunctionalInterface
    public interface Factory<K, I1, I2, O>
    {
        /** @return a new function, for one subtask. */
        KeyedCoProcessFunction<K, I1, I2, O> create();
    }
}
