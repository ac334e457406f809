package io.ringflow.engine.runtime.deploy;

import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.runtime.task.ChannelInput;
import io.ringflow.engine.runtime.task.ClassCopies;
import io.ringflow.engine.runtime.task.FanOutOutput;
import io.ringflow.engine.runtime.task.InputChannel;
import io.ringflow.engine.runtime.task.Output;
import io.ringflow.engine.runtime.task.StreamOperator;
import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.codec.Codec;


/**
 * Decides which class each record-path object of a deployment is an instance of: a private copy of its template
 * ({@link ClassCopies}) per shape, the template and the classes its call sites will call. So each operator, edge output
 * and channel loop gets a copy whose call sites see one class each, and places of the same shape (the subtasks of a
 * place, a job's next attempt, the same job deployed again) share it. With {@link JobConfig#specializeChains()} off,
 * every place uses the templates themselves: the general path.
 *
 * <p>Shapes are built downstream first: an operator's shape includes its output's class, an output's the next
 * operator's, so the Deployer creates a chain's operators from its tail to its head.
 *
 * <p>Thread contract: one per deployment, used by the deploying thread only.
 */
final class Specializer
{
    private final ClassCopies copies;

    Specializer(final JobConfig config)
    {
        this.copies = new ClassCopies(config.specializeChains());
    }

    /**
     * @param template   the runtime operator's class.
     * @param output     where the operator's records go, already built.
     * @param keyedStore the operator's keyed state, or null.
     * @param arguments  the constructor's arguments (the user function, key selectors).
     * @return a new instance for one subtask, of the copy of {@code template} for this shape.
     */
    StreamOperator operator(final Class<? extends StreamOperator> template, final Output output,
        final KeyedStateStore keyedStore, final Object... arguments)
    {
        return ClassCopies.construct(StreamOperator.class,
            copies.copyFor(template, output, keyedStore, arguments), arguments);
    }

    /**
     * @param template  the output's class.
     * @param arguments the constructor's arguments (the next operator, or writers, codec and key selector).
     * @return a new output for one upstream subtask, of the copy of {@code template} for this shape.
     */
    Output output(final Class<? extends Output> template, final Object... arguments)
    {
        return ClassCopies.construct(Output.class, copies.copyFor(template, arguments), arguments);
    }

    /**
     * @param outputs one per edge, in the node's edge order.
     * @return an output that hands each record to all of them, of the copy of {@link FanOutOutput} for them.
     */
    Output fanOut(final Output[] outputs)
    {
        return ClassCopies.construct(Output.class, copies.copyFor(FanOutOutput.class, (Object)outputs),
            (Object)outputs);
    }

    /**
     * @param codec the records' codec.
     * @param head  the operator the channel feeds.
     * @return the class of the record loop of a channel with that codec into that operator.
     */
    Class<? extends InputChannel> inputLoop(final Codec<Object> codec, final StreamOperator head)
    {
        return copies.copyFor(ChannelInput.class, codec, head);
    }
}
