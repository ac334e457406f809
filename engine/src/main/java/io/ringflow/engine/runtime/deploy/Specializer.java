package io.ringflow.engine.runtime.deploy;

import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.graph.StreamEdge;
import io.ringflow.engine.graph.StreamNode;
import io.ringflow.engine.runtime.task.ChannelInput;
import io.ringflow.engine.runtime.task.ClassCopies;
import io.ringflow.engine.runtime.task.FanOutOutput;
import io.ringflow.engine.runtime.task.InputChannel;
import io.ringflow.engine.runtime.task.Output;
import io.ringflow.engine.runtime.task.StreamOperator;

import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Decides which class each record-path object of a deployment is an instance of: one private copy of its template
 * ({@link ClassCopies}) per place in the logical graph (an operator, an edge's output, the channels of an edge into a
 * task), shared by all subtasks of that place, since they see the same classes downstream. With
 * {@link JobConfig#specializeChains()} off, every place uses the templates themselves: the general path.
 *
 * <p>Thread contract: one per deployment, used by the deploying thread only.
 */
final class Specializer
{
    private final ClassCopies copies;
    /** Per place (a node or an edge, by identity), per template, its copy. */
    private final Map<Object, Map<Class<?>, Class<?>>> copiesByPlace = new IdentityHashMap<>();

    Specializer(final JobConfig config)
    {
        this.copies = new ClassCopies(config.specializeChains());
    }

    /**
     * @param node      the operator.
     * @param template  its runtime operator's class.
     * @param arguments the constructor's arguments.
     * @return a new instance for one subtask, of the node's copy of {@code template}.
     */
    StreamOperator operator(final StreamNode node, final Class<? extends StreamOperator> template,
        final Object... arguments)
    {
        return ClassCopies.construct(StreamOperator.class, copyFor(node, template), arguments);
    }

    /**
     * @param edge      the edge the output serves.
     * @param template  the output's class.
     * @param arguments the constructor's arguments.
     * @return a new output for one upstream subtask, of the edge's copy of {@code template}.
     */
    Output output(final StreamEdge edge, final Class<? extends Output> template, final Object... arguments)
    {
        return ClassCopies.construct(Output.class, copyFor(edge, template), arguments);
    }

    /**
     * @param node    the operator with several downstream edges.
     * @param outputs one per edge, in the node's edge order.
     * @return an output that hands each record to all of them, of the node's copy of {@link FanOutOutput}.
     */
    Output fanOut(final StreamNode node, final Output[] outputs)
    {
        return ClassCopies.construct(Output.class, copyFor(node, FanOutOutput.class), (Object)outputs);
    }

    /**
     * @param edge an edge that crosses into a task.
     * @return the class of the record loops of its channels (in every downstream subtask): the edge's copy of
     *     {@link ChannelInput}.
     */
    Class<? extends InputChannel> input(final StreamEdge edge)
    {
        return copyFor(edge, ChannelInput.class);
    }

    @SuppressWarnings("unchecked")
    private <T> Class<? extends T> copyFor(final Object place, final Class<T> template)
    {
        return (Class<? extends T>)copiesByPlace.computeIfAbsent(place, unused -> new HashMap<>())
            .computeIfAbsent(template, copies::copyOf);
    }
}
