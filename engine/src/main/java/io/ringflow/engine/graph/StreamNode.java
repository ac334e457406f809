package io.ringflow.engine.graph;

import io.ringflow.engine.runtime.OperatorFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * A logical operator of the job graph, as the API builds it. Mutable while the graph is being built (name, uid,
 * parallelism, output type); read-only once the job is submitted.
 */
public final class StreamNode
{
    private final int id;
    private final NodeKind kind;
    private final OperatorFactory factory;
    private final List<StreamEdge> inputs = new ArrayList<>();
    private final List<StreamEdge> outputs = new ArrayList<>();
    private String name;
    private String uid;
    private int parallelism = -1;
    private int maxSourceParallelism = Integer.MAX_VALUE;
    private Class<?> outputType;
    private boolean chainable = true;
    private boolean keyedState;

    StreamNode(final int id, final NodeKind kind, final String name, final OperatorFactory factory)
    {
        this.id = id;
        this.kind = kind;
        this.name = name;
        this.factory = factory;
    }

    /** @return unique id in the graph, in creation order (a topological order). */
    public int id()
    {
        return id;
    }

    /** @return the node's shape. */
    public NodeKind kind()
    {
        return kind;
    }

    /** @return creates the runtime operator of each subtask. */
    public OperatorFactory factory()
    {
        return factory;
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
        return keyedState;
    }

    void keyedState(final boolean value)
    {
        keyedState = value;
    }

    /** @return a description for error messages: name and uid. */
    public String describe()
    {
        return "operator '" + name + "'" + (uid != null ? " (uid " + uid + ")" : "");
    }

    @Override
    public String toString()
    {
        return "StreamNode{" + id + ", " + kind + ", '" + name + "', p=" + parallelism + '}';
    }
}
