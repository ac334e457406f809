package io.ringflow.engine.graph;

import io.ringflow.engine.api.JobConfig;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ChainsTest
{
    private final StreamGraph graph = new StreamGraph();

    private StreamNode node(final NodeKind kind, final String name, final int parallelism)
    {
        final StreamNode node = graph.addNode(kind, name, subtask -> null);
        StreamGraph.setParallelism(node, parallelism);
        return node;
    }

    private Map<StreamNode, List<StreamNode>> chains(final JobConfig config)
    {
        graph.resolve(config);
        return Chains.compute(graph, config);
    }

    @Test
    void forwardEdgesOfEqualParallelismAreFusedIntoOneChain()
    {
        final StreamNode source = node(NodeKind.SOURCE, "source", 2);
        final StreamNode map = node(NodeKind.ONE_INPUT, "map", 2);
        final StreamNode sink = node(NodeKind.SINK, "sink", 2);
        graph.addEdge(source, map, 0, null, null);
        graph.addEdge(map, sink, 0, PartitionKind.FORWARD, null);

        assertThat(chains(JobConfig.defaults())).containsExactly(Map.entry(source, List.of(source, map, sink)));
    }

    @Test
    void aChangeOfParallelismStartsANewChainWithRebalance()
    {
        final StreamNode source = node(NodeKind.SOURCE, "source", 1);
        final StreamNode map = node(NodeKind.ONE_INPUT, "map", 2);
        final StreamNode sink = node(NodeKind.SINK, "sink", 2);
        graph.addEdge(source, map, 0, null, null);
        graph.addEdge(map, sink, 0, null, null);

        final Map<StreamNode, List<StreamNode>> chains = chains(JobConfig.defaults());
        assertThat(chains).containsOnlyKeys(source, map);
        assertThat(chains.get(map)).containsExactly(map, sink);
        assertThat(map.inputs().get(0).partition()).isEqualTo(PartitionKind.REBALANCE);
    }

    @Test
    void keyedRebalancedAndBroadcastEdgesAreNeverChained()
    {
        for (final PartitionKind kind : List.of(PartitionKind.KEY_HASH, PartitionKind.REBALANCE,
            PartitionKind.BROADCAST))
        {
            final StreamGraph g = new StreamGraph();
            final StreamNode source = g.addNode(NodeKind.SOURCE, "source", subtask -> null);
            final StreamNode sink = g.addNode(NodeKind.SINK, "sink", subtask -> null);
            g.addEdge(source, sink, 0, kind, value -> value);
            g.resolve(JobConfig.defaults());
            assertThat(Chains.isChainedToUpstream(sink, JobConfig.defaults())).as(kind.name()).isFalse();
        }
    }

    @Test
    void unionsAndTwoInputOperatorsHeadTheirOwnChains()
    {
        final StreamNode a = node(NodeKind.SOURCE, "a", 1);
        final StreamNode b = node(NodeKind.SOURCE, "b", 1);
        final StreamNode union = node(NodeKind.ONE_INPUT, "union-consumer", 1);
        final StreamNode join = node(NodeKind.TWO_INPUT, "join", 1);
        final StreamNode sink = node(NodeKind.SINK, "sink", 1);
        graph.addEdge(a, union, 0, null, null);
        graph.addEdge(b, union, 0, null, null);
        graph.addEdge(union, join, 0, null, null);
        graph.addEdge(b, join, 1, null, null);
        graph.addEdge(join, sink, 0, null, null);

        final Map<StreamNode, List<StreamNode>> chains = chains(JobConfig.defaults());
        assertThat(chains).containsOnlyKeys(a, b, union, join);
        assertThat(chains.get(join)).containsExactly(join, sink);
    }

    @Test
    void chainingCanBeSwitchedOffForTheJobOrOneOperator()
    {
        final StreamNode source = node(NodeKind.SOURCE, "source", 1);
        final StreamNode map = node(NodeKind.ONE_INPUT, "map", 1);
        final StreamNode sink = node(NodeKind.SINK, "sink", 1);
        graph.addEdge(source, map, 0, null, null);
        graph.addEdge(map, sink, 0, null, null);
        StreamGraph.setChainable(sink, false);

        assertThat(chains(JobConfig.defaults())).containsOnlyKeys(source, sink);
        assertThat(Chains.compute(graph, JobConfig.builder().chaining(false).build()))
            .containsOnlyKeys(source, map, sink);
    }
}
