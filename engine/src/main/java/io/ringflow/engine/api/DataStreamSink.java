package io.ringflow.engine.api;

import io.ringflow.engine.graph.StreamGraph;
import io.ringflow.engine.graph.StreamNode;

/**
 * A sink operator, to name and configure.
 */
public final class DataStreamSink
{
    private final StreamNode node;

    DataStreamSink(final StreamNode node)
    {
        this.node = node;
    }

    /** @param name display name. @return this. */
    public DataStreamSink name(final String name)
    {
        StreamGraph.setName(node, name);
        return this;
    }

    /** @param uid stable id. @return this. */
    public DataStreamSink uid(final String uid)
    {
        StreamGraph.setUid(node, uid);
        return this;
    }

    /** @param parallelism number of subtasks. @return this. */
    public DataStreamSink setParallelism(final int parallelism)
    {
        DataStream.setParallelism(node, parallelism);
        return this;
    }

    /** @return this sink in its own task, not fused with its upstream. */
    public DataStreamSink disableChaining()
    {
        StreamGraph.setChainable(node, false);
        return this;
    }
}
