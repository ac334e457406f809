package io.ringflow.engine.graph;

import io.ringflow.engine.api.functions.KeySelector;

/**
 * A logical edge: the output of {@code source} feeds input {@code inputIndex} (0, or 0/1 for two-input operators)
 * of {@code target}. Its partitioning may be left open by the API and is then fixed when the graph is resolved.
 */
public final class StreamEdge
{
    private final StreamNode source;
    private final StreamNode target;
    private final int inputIndex;
    private final KeySelector<Object, Object> keySelector;
    private PartitionKind partition;
    /** The side output this edge carries, or null for the main output. */
    private final io.ringflow.engine.api.functions.OutputTag<?> sideOutput;

    StreamEdge(
        final StreamNode source,
        final StreamNode target,
        final int inputIndex,
        final PartitionKind partition,
        final KeySelector<Object, Object> keySelector,
        final io.ringflow.engine.api.functions.OutputTag<?> sideOutput)
    {
        this.sideOutput = sideOutput;
        this.source = source;
        this.target = target;
        this.inputIndex = inputIndex;
        this.partition = partition;
        this.keySelector = keySelector;
    }

    /** @return upstream node. */
    public StreamNode source()
    {
        return source;
    }

    /** @return downstream node. */
    public StreamNode target()
    {
        return target;
    }

    /** @return which input of the target: 0, or 1 for the second input of a two-input operator. */
    public int inputIndex()
    {
        return inputIndex;
    }

    /** @return the partitioning; null until the graph is resolved when the API left it open. */
    public PartitionKind partition()
    {
        return partition;
    }

    void partition(final PartitionKind value)
    {
        partition = value;
    }

    /** @return the key for KEY_HASH, else null. */
    public KeySelector<Object, Object> keySelector()
    {
        return keySelector;
    }

    /** @return the side output this edge carries, or null when it carries the source's main output. */
    public io.ringflow.engine.api.functions.OutputTag<?> sideOutput()
    {
        return sideOutput;
    }

    /** @return the type of the records on this edge: the side output's, or the source's output type (may be null). */
    public Class<?> recordType()
    {
        return sideOutput != null ? sideOutput.type() : source.outputType();
    }

    @Override
    public String toString()
    {
        return source.name() + (sideOutput == null ? "" : "[" + sideOutput.id() + "]") + " -" + (partition == null ? "auto" : partition) + "-> " + target.name() +
            (target.kind() == NodeKind.TWO_INPUT ? "[input " + (inputIndex + 1) + "]" : "");
    }
}
