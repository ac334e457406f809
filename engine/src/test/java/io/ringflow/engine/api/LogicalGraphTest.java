package io.ringflow.engine.api;

import io.ringflow.engine.api.functions.CoProcessFunction;
import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.KeyedProcessFunction;
import io.ringflow.engine.api.sink.DiscardSink;
import io.ringflow.engine.api.source.CollectionSource;
import io.ringflow.engine.graph.Descriptions;
import io.ringflow.engine.graph.NodeKind;
import io.ringflow.engine.graph.OperatorDescription;
import io.ringflow.engine.graph.StreamGraph;
import io.ringflow.engine.graph.StreamNode;
import io.ringflow.state.codec.CodecRegistry;
import org.junit.jupiter.api.Test;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The API builds a logical graph of plain descriptions: every API shape gives the expected graph, the descriptions
 * hold the user's own objects and nothing of a runtime, and a runner sees only that graph. A description the
 * runtime does not know fails the submission, naming the operator.
 */
class LogicalGraphTest
{
    /** A runner that only keeps the graph it was given; what a Flink runner would receive. */
    private static final class CapturingRunner implements JobRunner
    {
        final AtomicReference<StreamGraph> graph = new AtomicReference<>();

        @Override
        public JobHandle run(final String jobName, final StreamGraph given, final JobConfig config,
            final CodecRegistry codecs)
        {
            graph.set(given);
            return null;
        }
    }

    static final class Count extends KeyedProcessFunction<Long, Long, Long>
    {
        @Override
        public void processElement(final Long value, final Context<Long> ctx, final Collector<Long> out)
        {
            out.collect(value);
        }
    }

    static final class Join extends CoProcessFunction<Long, String, String>
    {
        @Override
        public void processElement1(final Long value, final Collector<String> out)
        {
            out.collect(String.valueOf(value));
        }

        @Override
        public void processElement2(final String value, final Collector<String> out)
        {
            out.collect(value);
        }
    }

    @Test
    void everyApiShapeBuildsTheExpectedDescriptions()
    {
        final CapturingRunner runner = new CapturingRunner();
        final JobEnvironment env = JobEnvironment.create(JobConfig.defaults(), runner);
        final CollectionSource<Long> numbers = CollectionSource.of(Long.class, 1L, 2L, 3L);
        final DataStream<Long> a = env.fromSource(numbers, "numbers").uid("numbers-uid").setParallelism(2);
        final DataStream<Long> b = env.fromSource(CollectionSource.of(Long.class, 4L), "more");
        final io.ringflow.engine.api.functions.MapFunction<Long, Long> twice = n -> n * 2;
        final DataStream<Long> mapped = a.map(twice).name("twice");
        final DataStream<Long> evens = mapped.filter(n -> n % 2 == 0).disableChaining();
        final DataStream<Long> spread = b.<Long>flatMap((n, out) -> out.collect(n)).returns(Long.class).rebalance();
        final DataStream<Long> counted = evens.union(spread).keyBy(n -> n % 3).process(Count::new).name("count");
        final DataStream<String> words = env.fromSource(CollectionSource.of(String.class, "w"), "words").broadcast();
        final DataStream<String> joined = counted.connect(words).process(new Join());
        final DiscardSink<String> sink = new DiscardSink<>();
        joined.forward().sinkTo(sink).name("out").setParallelism(3);
        env.execute("graph");

        final StreamGraph graph = runner.graph.get();
        assertThat(graph.describe()).containsExactly(
            "0 SOURCE 'numbers' uid=numbers-uid p=2 out=Long SourceOp",
            "1 SOURCE 'more' uid=- p=- out=Long SourceOp",
            "2 ONE_INPUT 'twice' uid=- p=- out=Long MapOp <- 0 auto",
            "3 ONE_INPUT 'Filter' uid=- p=- out=Long FilterOp unchained <- 2 auto",
            "4 ONE_INPUT 'FlatMap' uid=- p=- out=Long FlatMapOp <- 1 auto",
            "5 ONE_INPUT 'count' uid=- p=- out=Long KeyedProcessOp <- 3 KEY_HASH keyed <- 4 KEY_HASH keyed",
            "6 SOURCE 'words' uid=- p=- out=String SourceOp",
            "7 TWO_INPUT 'Join' uid=- p=- out=String CoProcessOp <- 5 auto input1 <- 6 BROADCAST input2",
            "8 SINK 'out' uid=- p=3 out=? SinkOp <- 7 FORWARD");

        final List<StreamNode> nodes = graph.nodes();
        assertThat(((Descriptions.SourceOp)nodes.get(0).description()).source()).isSameAs(numbers);
        assertThat(((Descriptions.MapOp)nodes.get(2).description()).function().shared()).isSameAs(twice);
        final Descriptions.KeyedProcessOp count = (Descriptions.KeyedProcessOp)nodes.get(5).description();
        assertThat(count.function().isShared()).as("a factory: one instance per subtask").isFalse();
        assertThat(count.function().instance()).isInstanceOf(Count.class).isNotSameAs(count.function().instance());
        assertThat(count.keyedState()).isTrue();
        final Descriptions.CoProcessOp join = (Descriptions.CoProcessOp)nodes.get(7).description();
        assertThat(join.function().isShared()).isTrue();
        assertThat(join.keyedState()).as("the second input is not keyed").isFalse();
        assertThat(((Descriptions.SinkOp)nodes.get(8).description()).sink()).isSameAs(sink);
        for (final StreamNode node : nodes)
        {
            assertHoldsNoRuntimeObject(node.description());
        }
    }

    @Test
    void aDescriptionTheRuntimeDoesNotKnowFailsTheSubmissionNamingTheOperator()
    {
        final JobEnvironment env = JobEnvironment.create();
        final DataStream<Long> numbers = env.fromSource(CollectionSource.of(Long.class, 1L), "numbers");
        final StreamNode window = env.graph().addNode(new SlidingWindow(), "windows");
        env.graph().addEdge(numbers.singleNode("test"), window, 0, null, null);
        final StreamNode sink = env.graph().addNode(new Descriptions.SinkOp(new DiscardSink<>()), "sink");
        env.graph().addEdge(window, sink, 0, null, null);

        assertThatThrownBy(() -> env.execute("unknown-kind"))
            .isInstanceOf(InvalidJobException.class)
            .hasMessageContaining("operator 'windows'")
            .hasMessageContaining(SlidingWindow.class.getName())
            .hasMessageContaining("does not run");
    }

    /** A kind of operator a later version may describe (the event-time issue adds windows). */
    private record SlidingWindow() implements OperatorDescription
    {
        @Override
        public NodeKind shape()
        {
            return NodeKind.ONE_INPUT;
        }

        @Override
        public String defaultName()
        {
            return "Window";
        }
    }

    /** Every component of a description is the user's (function, factory, selector, source, sink) or plain data. */
    private static void assertHoldsNoRuntimeObject(final Object description)
    {
        final List<String> found = new ArrayList<>();
        for (final RecordComponent component : description.getClass().getRecordComponents())
        {
            final Object value;
            try
            {
                value = component.getAccessor().invoke(description);
            }
            catch (final ReflectiveOperationException ex)
            {
                throw new AssertionError(ex);
            }
            if (value == null)
            {
                continue;
            }
            final String type = value.getClass().getName();
            if (type.startsWith("io.ringflow.engine.runtime") || type.startsWith("io.ringflow.engine.channel") ||
                type.startsWith("io.ringflow.engine.checkpoint"))
            {
                found.add(component.getName() + ": " + type);
            }
            if (value instanceof Record)
            {
                assertHoldsNoRuntimeObject(value);
            }
        }
        assertThat(found).as("runtime objects in %s", description).isEmpty();
    }
}
