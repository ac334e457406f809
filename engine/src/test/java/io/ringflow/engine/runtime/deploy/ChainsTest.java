package io.ringflow.engine.runtime.deploy;

import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.functions.CoProcessFunction;
import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.sink.DiscardSink;
import io.ringflow.engine.api.source.CollectionSource;
import io.ringflow.engine.graph.Descriptions;
import io.ringflow.engine.graph.NodeKind;
import io.ringflow.engine.graph.OperatorDescription;
import io.ringflow.engine.graph.PartitionKind;
import io.ringflow.engine.graph.StreamGraph;
import io.ringflow.engine.graph.StreamNode;
import io.ringflow.engine.graph.UserFunction;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ChainsTest
{
    private final StreamGraph graph = new StreamGraph();

    private StreamNode node(final NodeKind kind, final String name, final int parallelism)
    {
        final StreamNode node = graph.addNode(description(kind), name);
        StreamGraph.setParallelism(node, parallelism);
        return node;
    }

    /** @return a description of that shape; the chaining rules look at nothing else. */
    private static OperatorDescription description(final NodeKind kind)
    {
        return switch (kind)
        {
            case SOURCE -> new Descriptions.SourceOp(CollectionSource.of(Long.class, 1L));
            case ONE_INPUT -> new Descriptions.MapOp(UserFunction.shared((io.ringflow.engine.api.functions.MapFunction<Long, Long>)value -> value));
            case TWO_INPUT -> new Descriptions.CoProcessOp(UserFunction.shared(new PassThrough()), null, null);
            case SINK -> new Descriptions.SinkOp(new DiscardSink<Long>());
        };
    }

    /** Two inputs of one type, passed through. */
    private static final class PassThrough extends CoProcessFunction<Long, Long, Long>
    {
        @Override
        public void processElement1(final Long value, final Collector<Long> out)
        {
            out.collect(value);
        }

        @Override
        public void processElement2(final Long value, final Collector<Long> out)
        {
            out.collect(value);
        }
    }

    private Map<StreamNode, List<StreamNode>> chains(final JobConfig config)
    {
        GraphResolver.resolve(graph, config);
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
            final StreamNode source = g.addNode(description(NodeKind.SOURCE), "source");
            final StreamNode sink = g.addNode(description(NodeKind.SINK), "sink");
            g.addEdge(source, sink, 0, kind, value -> value);
            GraphResolver.resolve(g, JobConfig.defaults());
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
