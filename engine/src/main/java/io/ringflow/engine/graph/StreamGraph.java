package io.ringflow.engine.graph;

import io.ringflow.engine.api.functions.KeySelector;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * The logical job graph the API builds: operator descriptions in creation order (which is a topological order, since
 * a node can only consume streams that already exist) and the edges between them. Plain data: no thread, ring or
 * runtime operator; a runner checks it, fills in defaults and turns it into what it runs.
 *
 * <p>Not thread-safe: built by one thread, then handed to a runner, after which it must not change.
 */
public final class StreamGraph
{
    private final List<StreamNode> nodes = new ArrayList<>();

    /**
     * @param description what the operator does.
     * @param name        display name; its default uid is derived from it.
     * @return the new node.
     */
    public StreamNode addNode(final OperatorDescription description, final String name)
    {
        Objects.requireNonNull(description, "description");
        final StreamNode node = new StreamNode(nodes.size(), description, name);
        nodes.add(node);
        if (description instanceof Descriptions.SourceOp source)
        {
            node.maxSourceParallelism(source.source().maxParallelism());
            node.outputType(source.source().producedType());
        }
        return node;
    }

    /**
     * @param source      upstream.
     * @param target      downstream.
     * @param inputIndex  input of the target.
     * @param partition   partitioning, or null for the default (FORWARD at equal parallelism, else REBALANCE).
     * @param keySelector key for KEY_HASH.
     */
    public void addEdge(
        final StreamNode source,
        final StreamNode target,
        final int inputIndex,
        final PartitionKind partition,
        final KeySelector<Object, Object> keySelector)
    {
        addEdge(source, target, inputIndex, partition, keySelector, null);
    }

    /**
     * Adds an edge that carries {@code source}'s side output {@code sideOutput} (its main output when null).
     *
     * @param source      the producing node.
     * @param target      the consuming node.
     * @param inputIndex  the target's input.
     * @param partition   the partitioning, or null for automatic.
     * @param keySelector the key, for a keyed partitioning.
     * @param sideOutput  the side output, or null.
     */
    public void addEdge(
        final StreamNode source,
        final StreamNode target,
        final int inputIndex,
        final PartitionKind partition,
        final KeySelector<Object, Object> keySelector,
        final io.ringflow.engine.api.functions.OutputTag<?> sideOutput)
    {
        final StreamEdge edge = new StreamEdge(source, target, inputIndex, partition, keySelector, sideOutput);
        source.outputs().add(edge);
        target.inputs().add(edge);
    }

    /** @return the nodes, in topological order. */
    public List<StreamNode> nodes()
    {
        return Collections.unmodifiableList(nodes);
    }

    /**
     * One line per node, in topological order: id, shape, name, uid, parallelism, output type, description kind and
     * user object class, chaining, then its input edges ({@code <- id partition}, {@code keyed} when a key selector
     * is set). A stable text to compare graphs with, independent of any runtime.
     *
     * @return the lines.
     */
    public List<String> describe()
    {
        final List<String> lines = new ArrayList<>();
        for (final StreamNode node : nodes)
        {
            final StringBuilder line = new StringBuilder();
            line.append(node.id()).append(' ').append(node.kind()).append(" '").append(node.name()).append('\'');
            line.append(" uid=").append(node.uid() == null ? "-" : node.uid());
            line.append(" p=").append(node.parallelism() < 0 ? "-" : String.valueOf(node.parallelism()));
            line.append(" out=").append(node.outputType() == null ? "?" : node.outputType().getSimpleName());
            line.append(' ').append(node.description().getClass().getSimpleName());
            if (!node.chainable())
            {
                line.append(" unchained");
            }
            for (final StreamEdge edge : node.inputs())
            {
                line.append(" <- ").append(edge.source().id())
                    .append(edge.sideOutput() == null ? "" : "[" + edge.sideOutput().id() + "]").append(' ')
                    .append(edge.partition() == null ? "auto" : edge.partition());
                if (edge.keySelector() != null)
                {
                    line.append(" keyed");
                }
                if (node.kind() == NodeKind.TWO_INPUT)
                {
                    line.append(" input").append(edge.inputIndex() + 1);
                }
            }
            lines.add(line.toString());
        }
        return lines;
    }

    // Setters used by the API's fluent calls; kept here so StreamNode stays read-only to everyone else.

    /** @param node a node. @param name its display name, not blank. */
    public static void setName(final StreamNode node, final String name)
    {
        if (name == null || name.isBlank())
        {
            throw new IllegalArgumentException("operator name must not be blank");
        }
        node.name(name);
    }

    /** @param node a node. @param uid its stable id, not blank. */
    public static void setUid(final StreamNode node, final String uid)
    {
        if (uid == null || uid.isBlank())
        {
            throw new IllegalArgumentException("uid of " + node.describe() + " must not be blank");
        }
        node.uid(uid);
    }

    /**
     * @param node        a node.
     * @param parallelism its parallelism, at least 1 (checked against the job's maximum when it is submitted).
     */
    public static void setParallelism(final StreamNode node, final int parallelism)
    {
        if (parallelism < 1)
        {
            throw new IllegalArgumentException("parallelism of " + node.describe() + " must be at least 1, was " +
                parallelism);
        }
        node.parallelism(parallelism);
    }

    /**
     * Fills in the parallelism of a node that has none; for the runner, when it resolves defaults.
     *
     * @param node        a node without a parallelism.
     * @param parallelism the default.
     */
    public static void setDefaultParallelism(final StreamNode node, final int parallelism)
    {
        node.parallelism(parallelism);
    }

    /** @param node a node. @param type its output type. */
    public static void setOutputType(final StreamNode node, final Class<?> type)
    {
        node.outputType(type);
    }

    /** @param node a node. @param chainable whether it may be fused with its neighbours. */
    public static void setChainable(final StreamNode node, final boolean chainable)
    {
        node.chainable(chainable);
    }

    /**
     * Fills in the partitioning of an edge the API left open; for the runner, when it resolves defaults.
     *
     * @param edge      an edge without a partitioning.
     * @param partition its partitioning.
     */
    public static void setPartition(final StreamEdge edge, final PartitionKind partition)
    {
        edge.partition(partition);
    }
}
