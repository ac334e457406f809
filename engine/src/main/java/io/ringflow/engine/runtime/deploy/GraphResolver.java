package io.ringflow.engine.runtime.deploy;

import io.ringflow.engine.api.InvalidJobException;
import io.ringflow.engine.graph.Descriptions;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.graph.NodeKind;
import io.ringflow.engine.graph.PartitionKind;
import io.ringflow.engine.graph.StreamEdge;
import io.ringflow.engine.graph.StreamGraph;
import io.ringflow.engine.graph.StreamNode;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Checks a logical graph before it is deployed and fills in what the API left to defaults: parallelism, uids, the
 * partitioning of every edge. Every problem is an {@link InvalidJobException} naming the operator at fault. Runs on
 * the submitting thread; idempotent.
 */
final class GraphResolver
{
    private GraphResolver()
    {
    }

    /**
     * @param graph  the job.
     * @param config the job's settings.
     * @return the graph's edges, resolved, by target node in topological order.
     * @throws InvalidJobException naming the operator at fault.
     */
    static List<StreamEdge> resolve(final StreamGraph graph, final JobConfig config)
    {
        final List<StreamNode> nodes = graph.nodes();
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
        assignUids(nodes);
        for (final StreamNode node : nodes)
        {
            final Object shared = node.description().sharedUserObject();
            if (shared != null)
            {
                checkSharedFunction(node, shared, node.description().finalFieldsMayBeShared());
            }
            if (node.description() instanceof Descriptions.SinkOp sink && config.checkpointing() != null)
            {
                try
                {
                    sink.sink().checkCheckpointing(config.checkpointing().interval(),
                        config.checkpointing().timeout());
                }
                catch (final IllegalArgumentException ex)
                {
                    throw new InvalidJobException(node.describe() + " refuses the job's settings: " +
                        ex.getMessage(), ex);
                }
            }
        }
        warnAboutWindowsThatNeverFire(nodes);
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

    /**
     * Event-time windows fire on watermarks: with no watermark strategy anywhere upstream they fire only at the end
     * of a bounded input (never on an unbounded one). Not an error (a bounded job may mean it), so one warning per
     * window operator at submission.
     */
    private static void warnAboutWindowsThatNeverFire(final List<StreamNode> nodes)
    {
        for (final StreamNode node : nodes)
        {
            if (node.description() instanceof Descriptions.WindowOp window && window.assigner().isEventTime() &&
                !hasWatermarksUpstream(node, new java.util.HashSet<>()))
            {
                System.getLogger(GraphResolver.class.getName()).log(System.Logger.Level.WARNING,
                    node.describe() + " has event-time windows but no assignTimestampsAndWatermarks(...) upstream: " +
                    "no watermark will ever fire them before the end of the input");
            }
        }
    }

    /**
     * @param node a node.
     * @param seen nodes already looked at (empty at first).
     * @return whether a timestamp assigner is upstream of {@code node}: its inputs carry timestamps and watermarks.
     */
    static boolean hasWatermarksUpstream(final StreamNode node, final java.util.Set<StreamNode> seen)
    {
        for (final StreamEdge edge : node.inputs())
        {
            final StreamNode source = edge.source();
            if (!seen.add(source))
            {
                continue;
            }
            if (source.description() instanceof Descriptions.TimestampsAndWatermarksOp ||
                hasWatermarksUpstream(source, seen))
            {
                return true;
            }
        }
        return false;
    }

    private static void resolveEdge(final StreamEdge edge)
    {
        final int upstream = edge.source().parallelism();
        final int downstream = edge.target().parallelism();
        if (edge.partition() == null)
        {
            StreamGraph.setPartition(edge, upstream == downstream ? PartitionKind.FORWARD : PartitionKind.REBALANCE);
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
            StreamGraph.setDefaultParallelism(node, parallelism);
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

    private static void assignUids(final List<StreamNode> nodes)
    {
        final Map<String, StreamNode> byUid = new LinkedHashMap<>();
        for (final StreamNode node : nodes)
        {
            if (node.uid() != null)
            {
                final StreamNode other = byUid.put(node.uid(), node);
                if (other != null && other != node)
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
                StreamGraph.setUid(node, uid);
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
            for (final Field field : type.getDeclaredFields())
            {
                final int modifiers = field.getModifiers();
                if (!Modifier.isStatic(modifiers) && !field.isSynthetic() &&
                    !(finalFieldsAllowed && Modifier.isFinal(modifiers)))
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
