package io.ringflow.engine.api.functions;

/**
 * Processes two inputs of possibly different types. Records of the two inputs are interleaved in arrival order; each
 * call sees one record of one input. When both inputs are keyed ({@code a.keyBy(..).connect(b.keyBy(..))}), keyed
 * state is scoped to the key of the current record.
 *
 * <p>Each subtask gets its own instance (see {@link KeyedProcessFunction}). Called on the subtask's task thread only.
 *
 * @param <I1> the first input's type.
 * @param <I2> the second input's type.
 * @param <O>  the output type.
 */
public abstract class CoProcessFunction<I1, I2, O> implements RichFunction
{
    /**
     * @param value a record of the first input.
     * @param out   emits results; valid during this call only.
     * @throws Exception fails the job attempt.
     */
    public abstract void processElement1(I1 value, Collector<O> out) throws Exception;

    /**
     * @param value a record of the second input.
     * @param out   emits results; valid during this call only.
     * @throws Exception fails the job attempt.
     */
    public abstract void processElement2(I2 value, Collector<O> out) throws Exception;
}
