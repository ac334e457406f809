package io.ringflow.engine.graph;

import java.util.ArrayList;
import java.util.List;

/**
 * A logical operator of the job graph, as the API builds it: its {@link OperatorDescription} (what it does, as data)
 * and its settings. Mutable while the graph is being built (name, uid, parallelism, output type, chaining); read-only
 * once the job is submitted. Holds no runtime object.
 */
public final class StreamNode
{
    private final int id;
    private final OperatorDescription description;
    private final List<StreamEdge> inputs = new ArrayList<>();
    private final List<StreamEdge> outputs = new ArrayList<>();
    private String name;
    private String uid;
    private int parallelism = -1;
    private int maxSourceParallelism = Integer.MAX_VALUE;
    private Class<?> outputType;
    private boolean chainable = true;

    StreamNode(final int id, final OperatorDescription description, final String name)
    {
        this.id = id;
        this.description = description;
        this.name = name;
    }

    /** @return unique id in the graph, in creation order (a topological order). */
    public int id()
    {
        return id;
    }

    /** @return the node's shape. */
    public NodeKind kind()
    {
        return description.shape();
    }

    /** @return what the operator does. */
    public OperatorDescription description()
    {
        return description;
    }

    /** @return incoming edges. */
    public List<StreamEdge> inputs()
    {
        return inputs;
    }

    /** @return outgoing edges. */
    public List<StreamEdge> outputs()
    {
        return outputs;
    }

    /** @return the display name. */
    public String name()
    {
        return name;
    }

    void name(final String value)
    {
        name = value;
    }

    /** @return the stable id of the operator; defaults to a name-derived id at submission. */
    public String uid()
    {
        return uid;
    }

    void uid(final String value)
    {
        uid = value;
    }

    /** @return the parallelism, or -1 for the job's default. */
    public int parallelism()
    {
        return parallelism;
    }

    void parallelism(final int value)
    {
        parallelism = value;
    }

    /** @return the most subtasks a source node allows. */
    public int maxSourceParallelism()
    {
        return maxSourceParallelism;
    }

    void maxSourceParallelism(final int value)
    {
        maxSourceParallelism = value;
    }

    /** @return the output record type, or null when not known. */
    public Class<?> outputType()
    {
        return outputType;
    }

    void outputType(final Class<?> value)
    {
        outputType = value;
    }

    /** @return whether this node may be fused with its upstream. */
    public boolean chainable()
    {
        return chainable;
    }

    void chainable(final boolean value)
    {
        chainable = value;
    }

    /** @return whether the operator has keyed state (its inputs are keyed). */
    public boolean keyedState()
    {
        return description.keyedState();
    }

    /** @return a description for error messages: name and uid. */
    public String describe()
    {
        return "operator '" + name + "'" + (uid != null ? " (uid " + uid + ")" : "");
    }

    @Override
    public String toString()
    {
        return "StreamNode{" + id + ", " + kind() + ", '" + name + "', p=" + parallelism + '}';
    }
}
