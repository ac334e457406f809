package io.ringflow.engine.runtime.deploy;

import io.ringflow.engine.api.InvalidJobException;
import io.ringflow.engine.api.sink.TwoPhaseCommitSink;
import io.ringflow.engine.graph.Descriptions;
import io.ringflow.engine.graph.OperatorDescription;
import io.ringflow.engine.graph.StreamNode;
import io.ringflow.engine.runtime.operators.CoProcessOperator;
import io.ringflow.engine.runtime.operators.FilterOperator;
import io.ringflow.engine.runtime.operators.FlatMapOperator;
import io.ringflow.engine.runtime.operators.KeyedProcessOperator;
import io.ringflow.engine.runtime.operators.KeyedReduceOperator;
import io.ringflow.engine.runtime.operators.MapOperator;
import io.ringflow.engine.runtime.operators.SinkOperator;
import io.ringflow.engine.runtime.operators.TwoPhaseCommitSinkOperator;
import io.ringflow.engine.runtime.task.Output;
import io.ringflow.engine.runtime.task.SourceOperator;
import io.ringflow.engine.runtime.task.StreamOperator;
import io.ringflow.state.backend.KeyedStateStore;

/**
 * Turns an operator description into the runtime operator of one subtask: the only place that knows both. A
 * description it does not know fails the submission, naming the operator.
 *
 * <p>Called on the submitting thread, once per subtask of every operator, when an attempt is deployed.
 */
final class OperatorTranslator
{
    private OperatorTranslator()
    {
    }

    /**
     * @param node        the operator.
     * @param subtask     the subtask the operator will run in.
     * @param specializer makes the operator an instance of a copy of its class for its shape (a source excepted: its
     *                    task drives it directly).
     * @param output      where the operator's records go.
     * @param keyedStore  the operator's keyed state, or null.
     * @return a new runtime operator.
     * @throws InvalidJobException when the description is of a kind this runtime does not run, or a user factory
     *                             fails.
     */
    static StreamOperator create(final StreamNode node, final int subtask, final Specializer specializer,
        final Output output, final KeyedStateStore keyedStore)
    {
        final OperatorDescription description = node.description();
        try
        {
            if (description instanceof Descriptions.SourceOp source)
            {
                return new SourceOperator(source.source());
            }
            if (description instanceof Descriptions.MapOp map)
            {
                return specializer.operator(MapOperator.class, output, keyedStore, map.function().instance());
            }
            if (description instanceof Descriptions.FilterOp filter)
            {
                return specializer.operator(FilterOperator.class, output, keyedStore, filter.function().instance());
            }
            if (description instanceof Descriptions.FlatMapOp flatMap)
            {
                return specializer.operator(FlatMapOperator.class, output, keyedStore, flatMap.function().instance());
            }
            if (description instanceof Descriptions.KeyedProcessOp process)
            {
                return specializer.operator(KeyedProcessOperator.class, output, keyedStore,
                    process.function().instance(), process.keySelector());
            }
            if (description instanceof Descriptions.KeyedReduceOp reduce)
            {
                return specializer.operator(KeyedReduceOperator.class, output, keyedStore,
                    reduce.function().instance(), reduce.keySelector(), reduce.type());
            }
            if (description instanceof Descriptions.CoProcessOp process)
            {
                return specializer.operator(CoProcessOperator.class, output, keyedStore,
                    process.function().instance(), process.keySelector1(), process.keySelector2());
            }
            if (description instanceof Descriptions.TimestampsAndWatermarksOp timestamps)
            {
                return specializer.operator(
                    io.ringflow.engine.runtime.operators.TimestampsAndWatermarksOperator.class, output, keyedStore,
                    timestamps.strategy());
            }
            if (description instanceof Descriptions.KeyedCoProcessOp process)
            {
                return specializer.operator(io.ringflow.engine.runtime.operators.KeyedCoProcessOperator.class, output,
                    keyedStore, process.function().instance(), process.keySelector1(), process.keySelector2());
            }
            if (description instanceof Descriptions.WindowOp window)
            {
                return new io.ringflow.engine.runtime.operators.WindowOperator(window.assigner(), window.trigger(),
                    window.allowedLatenessMillis(), window.lateTag(), window.keySelector(), window.reduce(),
                    window.aggregate(), window.process() == null ? null : window.process().instance(),
                    window.result(), window.valueType(), window.inputType());
            }
            if (description instanceof Descriptions.SinkOp sink && sink.sink() instanceof TwoPhaseCommitSink<?, ?> tx)
            {
                return specializer.operator(TwoPhaseCommitSinkOperator.class, output, keyedStore, tx);
            }
            if (description instanceof Descriptions.SinkOp sink)
            {
                return specializer.operator(SinkOperator.class, output, keyedStore, sink.sink());
            }
        }
        catch (final RuntimeException ex)
        {
            throw new InvalidJobException("could not create " + node.describe() + " for subtask " + subtask +
                ": its function factory threw " + ex, ex);
        }
        throw new InvalidJobException(node.describe() + " is a " + description.getClass().getName() +
            ", which this runtime does not run (it runs sources, map, filter, flatMap, keyed process and reduce, " +
            "two-input process functions, windows, timestamp assigners and sinks)");
    }
}
