package io.ringflow.engine.graph;

import io.ringflow.engine.api.InvalidJobException;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.functions.KeySelector;
import io.ringflow.engine.runtime.OperatorFactory;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The logical job graph the API builds: nodes in creation order (which is a topological order, since a node can
 * only consume streams that already exist) and the edges between them.
 *
 * <p>Not thread-safe: built by one thread, then frozen by {@link #resolve}, which checks the whole graph and fills
 * in everything left to defaults. After that it is read-only.
 */
public final class StreamGraph
{
    private final List<StreamNode> nodes = new ArrayList<>();
    private final Map<StreamNode, SharedFunction> sharedFunctions = new HashMap<>();

    /**
     * One function instance that every subtask of a node will share.
     *
     * @param function           the instance.
     * @param finalFieldsAllowed whether final fields are fine to share (plain functions: map, filter, flatMap).
     */
    private record SharedFunction(Object function, boolean finalFieldsAllowed)
    {
    }

    /**
     * @param kind    the node's shape.
     * @param name    display name.
     * @param factory creates the operator of each subtask.
     * @return the new node.
     */
    public StreamNode addNode(final NodeKind kind, final String name, final OperatorFactory factory)
    {
        final StreamNode node = new StreamNode(nodes.size(), kind, name, factory);
        nodes.add(node);
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
        final StreamEdge edge = new StreamEdge(source, target, inputIndex, partition, keySelector);
        source.outputs().add(edge);
        target.inputs().add(edge);
    }

    /**
     * Records that one user function instance will be shared by every subtask of {@code node}: allowed only when
     * the function keeps no per-subtask fields or the parallelism is 1 (checked by {@link #resolve}).
     *
     * @param node     the node.
     * @param function the instance.
     */
    public void markSharedFunction(final StreamNode node, final Object function)
    {
        sharedFunctions.put(node, new SharedFunction(function, false));
    }

    /**
     * Like {@link #markSharedFunction}, for plain functions (map, filter, flatMap): only non-final fields make them
     * unsafe to share, so lambdas and classes that capture constants pass.
     *
     * @param node     the node.
     * @param function the instance.
     */
    public void markSharedPlainFunction(final StreamNode node, final Object function)
    {
        sharedFunctions.put(node, new SharedFunction(function, true));
    }

    /** @return the nodes, in topological order. */
    public List<StreamNode> nodes()
    {
        return Collections.unmodifiableList(nodes);
    }

    // Setters used by the API's fluent calls; kept here so StreamNode stays read-only to everyone else.

    /** @param node a node. @param name its display name. */
    public static void setName(final StreamNode node, final String name)
    {
        if (name == null || name.isBlank())
        {
            throw new IllegalArgumentException("operator name must not be blank");
        }
        node.name(name);
    }

    /** @param node a node. @param uid its stable id. */
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
     * @param parallelism its parallelism; validated against the upper bound of key groups here, and against the
     *                    job's maximum parallelism at submission.
     */
    public static void setParallelism(final StreamNode node, final int parallelism)
    {
        if (parallelism < 1)
        {
            throw new InvalidJobException("parallelism of " + node.describe() + " must be at least 1, was " +
                parallelism);
        }
        node.parallelism(parallelism);
    }

    /** @param node a node. @param type its output type. */
    public static void setOutputType(final StreamNode node, final Class<?> type)
    {
        node.outputType(type);
    }

    /** @param node a node. @param chainable whether it may be fused with its upstream. */
    public static void setChainable(final StreamNode node, final boolean chainable)
    {
        node.chainable(chainable);
    }

    /** @param node a node. @param keyed whether it has keyed state. */
    public static void setKeyedState(final StreamNode node, final boolean keyed)
    {
        node.keyedState(keyed);
    }

    /** @param node a source node. @param max the most subtasks its source allows. */
    public static void setMaxSourceParallelism(final StreamNode node, final int max)
    {
        node.maxSourceParallelism(max);
    }

    /**
     * Checks the graph and fills in defaults: parallelism, uids, the partitioning of every edge. Idempotent.
     *
     * @param config the job's settings.
     * @return the graph's edges, resolved.
     * @throws InvalidJobException naming the operator at fault.
     */
    public List<StreamEdge> resolve(final JobConfig config)
    {
        if (nodes.isEmpty())
        {
            throw new InvalidJobException("the job has no operators: add a source with fromSource(...)");
        }
        boolean hasSink = false;
        for (final StreamNode node : nodes)
        {
            hasSink |= node.kind() == NodeKind.SINK;
        }
        if (!hasSink)
        {
            throw new InvalidJobException("the job has no sink: end every stream with sinkTo(...)");
        }
        for (final StreamNode node : nodes)
        {
            if (node.kind() != NodeKind.SINK && node.outputs().isEmpty())
            {
                throw new InvalidJobException(node.describe() + " has no downstream: its output goes nowhere. " +
                    "End the stream with sinkTo(...) (DiscardSink if the output is not needed)");
            }
            resolveParallelism(node, config);
        }
        assignUids();
        for (final Map.Entry<StreamNode, SharedFunction> shared : sharedFunctions.entrySet())
        {
            checkSharedFunction(
                shared.getKey(), shared.getValue().function(), shared.getValue().finalFieldsAllowed());
        }
        final List<StreamEdge> resolved = new ArrayList<>();
        for (final StreamNode node : nodes)
        {
            for (final StreamEdge edge : node.inputs())
            {
                resolveEdge(edge);
                resolved.add(edge);
            }
        }
        return resolved;
    }

    private static void resolveEdge(final StreamEdge edge)
    {
        final int upstream = edge.source().parallelism();
        final int downstream = edge.target().parallelism();
        if (edge.partition() == null)
        {
            edge.partition(upstream == downstream ? PartitionKind.FORWARD : PartitionKind.REBALANCE);
        }
        else if (edge.partition() == PartitionKind.FORWARD && upstream != downstream)
        {
            throw new InvalidJobException("forward() between " + edge.source().describe() + " (parallelism " +
                upstream + ") and " + edge.target().describe() + " (parallelism " + downstream +
                ") needs equal parallelism; use rebalance() or make the parallelism equal");
        }
    }

    private static void resolveParallelism(final StreamNode node, final JobConfig config)
    {
        int parallelism = node.parallelism();
        if (parallelism == -1)
        {
            parallelism = node.kind() == NodeKind.SOURCE ?
                Math.min(config.defaultParallelism(), node.maxSourceParallelism()) : config.defaultParallelism();
            node.parallelism(parallelism);
        }
        if (parallelism > config.maxParallelism())
        {
            throw new InvalidJobException("parallelism of " + node.describe() + " is " + parallelism +
                ", above the job's maxParallelism " + config.maxParallelism() +
                "; lower it or raise JobConfig maxParallelism");
        }
        if (parallelism > node.maxSourceParallelism())
        {
            throw new InvalidJobException("parallelism of " + node.describe() + " is " + parallelism +
                " but its source supports at most " + node.maxSourceParallelism());
        }
    }

    private void assignUids()
    {
        final Map<String, StreamNode> byUid = new LinkedHashMap<>();
        for (final StreamNode node : nodes)
        {
            if (node.uid() != null)
            {
                final StreamNode other = byUid.put(node.uid(), node);
                if (other != null)
                {
                    throw new InvalidJobException("uid '" + node.uid() + "' is used by both operator '" +
                        other.name() + "' and operator '" + node.name() + "'; uids must be unique");
                }
            }
        }
        for (final StreamNode node : nodes)
        {
            if (node.uid() == null)
            {
                final String base = node.name().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-")
                    .replaceAll("(^-|-$)", "");
                String uid = base.isEmpty() ? "operator" : base;
                for (int n = 2; byUid.containsKey(uid); n++)
                {
                    uid = base + "-" + n;
                }
                node.uid(uid);
                byUid.put(uid, node);
            }
        }
    }

    private static void checkSharedFunction(
        final StreamNode node, final Object function, final boolean finalFieldsAllowed)
    {
        if (node.parallelism() <= 1)
        {
            return;
        }
        for (Class<?> type = function.getClass(); type != null && type != Object.class; type = type.getSuperclass())
        {
            if (type.getPackageName().equals("io.ringflow.engine.api.functions"))
            {
                break;
            }
            for (final java.lang.reflect.Field field : type.getDeclaredFields())
            {
                final int modifiers = field.getModifiers();
                if (!java.lang.reflect.Modifier.isStatic(modifiers) && !field.isSynthetic() &&
                    !(finalFieldsAllowed && java.lang.reflect.Modifier.isFinal(modifiers)))
                {
                    throw new InvalidJobException(node.describe() + " has parallelism " + node.parallelism() +
                        " but was given one instance of " + function.getClass().getName() +
                        ", which has fields (e.g. '" + field.getName() + "') that its subtasks would share. " +
                        (finalFieldsAllowed ? "Keep per-subtask data in a KeyedProcessFunction with state, or run the" +
                        " operator at parallelism 1" :
                        "Pass a factory instead, e.g. process(" + function.getClass().getSimpleName() + "::new)"));
                }
            }
        }
    }
}
