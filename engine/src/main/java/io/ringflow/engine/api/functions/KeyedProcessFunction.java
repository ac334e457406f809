package io.ringflow.engine.api.functions;

/**
 * Processes the records of a keyed stream one at a time, with keyed state scoped to each record's key.
 *
 * <p>Each subtask gets its own instance: pass a factory ({@code CountPerKey::new}) when the function keeps fields,
 * or an instance when the operator's parallelism is 1. Called on the subtask's task thread only.
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
    }
}
