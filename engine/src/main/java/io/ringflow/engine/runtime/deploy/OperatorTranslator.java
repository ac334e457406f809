package io.ringflow.engine.runtime.deploy;

import io.ringflow.engine.api.InvalidJobException;
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
import io.ringflow.engine.runtime.task.SourceOperator;
import io.ringflow.engine.runtime.task.StreamOperator;

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
     * @param specializer makes the operator an instance of the node's own copy of its class (a source excepted: its
     *                    task drives it directly).
     * @return a new runtime operator.
     * @throws InvalidJobException when the description is of a kind this runtime does not run, or a user factory
     *                             fails.
     */
    static StreamOperator create(final StreamNode node, final int subtask, final Specializer specializer)
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
                return specializer.operator(node, MapOperator.class, map.function().instance());
            }
            if (description instanceof Descriptions.FilterOp filter)
            {
                return specializer.operator(node, FilterOperator.class, filter.function().instance());
            }
            if (description instanceof Descriptions.FlatMapOp flatMap)
            {
                return specializer.operator(node, FlatMapOperator.class, flatMap.function().instance());
            }
            if (description instanceof Descriptions.KeyedProcessOp process)
            {
                return specializer.operator(node, KeyedProcessOperator.class, process.function().instance(), process.keySelector());
            }
            if (description instanceof Descriptions.KeyedReduceOp reduce)
            {
                return specializer.operator(node, KeyedReduceOperator.class, reduce.function().instance(), reduce.keySelector(), reduce.type());
            }
            if (description instanceof Descriptions.CoProcessOp process)
            {
                return specializer.operator(node, CoProcessOperator.class, process.function().instance(), process.keySelector1(),
                    process.keySelector2());
            }
            if (description instanceof Descriptions.SinkOp sink)
            {
                return specializer.operator(node, SinkOperator.class, sink.sink());
            }
        }
        catch (final RuntimeException ex)
        {
            throw new InvalidJobException("could not create " + node.describe() + " for subtask " + subtask +
                ": its function factory threw " + ex, ex);
        }
        throw new InvalidJobException(node.describe() + " is a " + description.getClass().getName() +
            ", which this runtime does not run (it runs sources, map, filter, flatMap, keyed process and reduce, " +
            "two-input process functions and sinks)");
    }
}
