package io.ringflow.engine.runtime.deploy;

import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.graph.NodeKind;
import io.ringflow.engine.graph.PartitionKind;
import io.ringflow.engine.graph.StreamEdge;
import io.ringflow.engine.graph.StreamGraph;
import io.ringflow.engine.graph.StreamNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decides which operators are fused into one task. A node joins its upstream's chain when chaining is on for the
 * job and for both nodes, the node has exactly one input edge, that edge is FORWARD between equal parallelisms, and
 * the node is a one-input operator or a sink. Within a chain records are passed as objects, with no ring and no
 * codec.
 */
public final class Chains
{
    private Chains()
    {
    }

    /**
     * @param graph  a resolved graph.
     * @param config the job's settings.
     * @return each chain's nodes in topological order, keyed by its head; in topological order of heads.
     */
    public static Map<StreamNode, List<StreamNode>> compute(final StreamGraph graph, final JobConfig config)
    {
        final Map<StreamNode, StreamNode> headOf = new LinkedHashMap<>();
        final Map<StreamNode, List<StreamNode>> chains = new LinkedHashMap<>();
        for (final StreamNode node : graph.nodes())
        {
            final StreamNode head = isChainedToUpstream(node, config) ?
                headOf.get(node.inputs().get(0).source()) : node;
            headOf.put(node, head);
            chains.computeIfAbsent(head, h -> new ArrayList<>()).add(node);
        }
        return chains;
    }

    /**
     * @param node   a node of a resolved graph.
     * @param config the job's settings.
     * @return whether the node is fused into its upstream's task.
     */
    public static boolean isChainedToUpstream(final StreamNode node, final JobConfig config)
    {
        if (!config.chaining() || !node.chainable())
        {
            return false;
        }
        if (node.kind() != NodeKind.ONE_INPUT && node.kind() != NodeKind.SINK)
        {
            return false;
        }
        if (node.inputs().size() != 1)
        {
            return false;
        }
        final StreamEdge edge = node.inputs().get(0);
        final StreamNode upstream = edge.source();
        return edge.partition() == PartitionKind.FORWARD && upstream.chainable() &&
            upstream.parallelism() == node.parallelism();
    }
}
