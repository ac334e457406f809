package io.ringflow.engine.api;

import io.ringflow.engine.TestJobs;
import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.KeyedProcessFunction;
import io.ringflow.engine.api.sink.DiscardSink;
import io.ringflow.engine.api.source.CollectionSource;
import io.ringflow.engine.api.source.GeneratorSource;
import io.ringflow.engine.channel.RecordTooLargeException;
import io.ringflow.engine.runtime.task.NullKeyException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Bad input gets a clear, specific error; nothing starts when the graph is invalid. */
class ValidationTest
{
    private static GeneratorSource<Long> numbers(final long count)
    {
        return GeneratorSource.bounded(count, Long.class, (i, t) -> i);
    }

    @Test
    void aJobWithoutSinkIsRejected()
    {
        final JobEnvironment env = JobEnvironment.create();
        env.fromSource(numbers(10), "numbers").map(n -> n).name("orphan");
        assertThatThrownBy(() -> env.execute("no-sink"))
            .isInstanceOf(InvalidJobException.class)
            .hasMessageContaining("no sink");
        assertThat(TestJobs.liveThreadsOf("no-sink")).isEmpty();
    }

    @Test
    void aDanglingStreamIsRejectedNamingItsOperator()
    {
        final JobEnvironment env = JobEnvironment.create();
        final DataStream<Long> numbers = env.fromSource(numbers(10), "numbers");
        numbers.sinkTo(new DiscardSink<>());
        numbers.map(n -> n + 1).name("forgotten");
        assertThatThrownBy(() -> env.execute("dangling"))
            .isInstanceOf(InvalidJobException.class)
            .hasMessageContaining("operator 'forgotten'")
            .hasMessageContaining("no downstream");
    }

    @Test
    void aNullKeyFailsTheJobNamingTheKeyedOperator()
    {
        final JobEnvironment env = JobEnvironment.create();
        env.fromSource(numbers(100), "numbers")
            .keyBy(n -> n == 42 ? null : n)
            .map(n -> n).name("by-key")
            .sinkTo(new DiscardSink<>());
        final JobHandle job = env.execute("null-key");
        assertThatThrownBy(() -> job.awaitTermination(TestJobs.HANG_GUARD))
            .isInstanceOf(JobExecutionException.class)
            .hasRootCauseInstanceOf(NullKeyException.class)
            .rootCause()
            .hasMessageContaining("operator 'by-key'")
            .hasMessageContaining("returned null for record 42");
    }

    @Test
    void aNullKeyInAKeyedProcessFunctionIsReportedToo()
    {
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().chaining(false).build());
        env.fromSource(CollectionSource.of(String.class, "a", "", "c"), "words")
            .keyBy(w -> w.isEmpty() ? null : w)
            .process(new KeyedProcessFunction<String, String, String>()
            {
                @Override
                public void processElement(final String value, final Context<String> ctx, final Collector<String> out)
                {
                    out.collect(value);
                }
            })
            .sinkTo(new DiscardSink<>());
        final JobHandle job = env.execute("null-key-2");
        assertThatThrownBy(() -> job.awaitTermination(TestJobs.HANG_GUARD))
            .hasRootCauseInstanceOf(NullKeyException.class);
    }

    @Test
    void aRecordLargerThanASlotFailsNamingTypeAndSizeInsteadOfBeingTruncated()
    {
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().slotSize(64).build());
        env.fromSource(CollectionSource.of(String.class, "short", "x".repeat(1000)), "texts")
            .rebalance()
            .sinkTo(new DiscardSink<>());
        final JobHandle job = env.execute("too-large");
        assertThatThrownBy(() -> job.awaitTermination(TestJobs.HANG_GUARD))
            .hasRootCauseInstanceOf(RecordTooLargeException.class)
            .rootCause()
            .hasMessageContaining("java.lang.String")
            .hasMessageContaining("1004 bytes")
            .hasMessageContaining("slotSize");
    }

    static final class NoCodec
    {
        final int value;

        NoCodec(final int value)
        {
            this.value = value;
        }
    }

    @Test
    void aTypeWithoutCodecIsRejectedAtSubmissionNamingTheType()
    {
        final JobEnvironment env = JobEnvironment.create();
        env.fromSource(numbers(10), "numbers")
            .map(n -> new NoCodec(n.intValue())).name("wrap")
            .rebalance()
            .sinkTo(new DiscardSink<>());
        assertThatThrownBy(() -> env.execute("no-codec"))
            .isInstanceOf(InvalidJobException.class)
            .hasMessageContaining(NoCodec.class.getName())
            .hasMessageContaining("operator 'wrap'");
        assertThat(TestJobs.liveThreadsOf("no-codec")).isEmpty();
    }

    @Test
    void aChainedTypeNeedsNoCodec() throws Exception
    {
        final JobEnvironment env = JobEnvironment.create();
        final DiscardSink<NoCodec> sink = new DiscardSink<>();
        env.fromSource(numbers(10), "numbers").map(n -> new NoCodec(n.intValue())).sinkTo(sink);
        TestJobs.awaitFinished(env.execute("chained-no-codec"));
        assertThat(sink.count()).isEqualTo(10);
    }

    @Test
    void anErasedOutputTypeThatCrossesAChannelAsksForReturns()
    {
        final JobEnvironment env = JobEnvironment.create();
        env.fromSource(numbers(10), "numbers")
            .flatMap((Long n, Collector<String> out) -> out.collect("n" + n)).name("explode")
            .rebalance()
            .sinkTo(new DiscardSink<>());
        assertThatThrownBy(() -> env.execute("erased"))
            .isInstanceOf(InvalidJobException.class)
            .hasMessageContaining("operator 'explode'")
            .hasMessageContaining(".returns(");
    }

    @Test
    void parallelismMustBePositiveAndAtMostTheMaximum()
    {
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().maxParallelism(8).build());
        final DataStream<Long> numbers = env.fromSource(numbers(10), "numbers");
        assertThatThrownBy(() -> numbers.setParallelism(0))
            .isInstanceOf(InvalidJobException.class)
            .hasMessageContaining("operator 'numbers'")
            .hasMessageContaining("at least 1");
        numbers.map(n -> n).name("wide").setParallelism(9).sinkTo(new DiscardSink<>());
        assertThatThrownBy(() -> env.execute("too-wide"))
            .isInstanceOf(InvalidJobException.class)
            .hasMessageContaining("operator 'wide'")
            .hasMessageContaining("maxParallelism 8");
    }

    @Test
    void invalidConfigurationFailsWhenBuiltNamingTheOption()
    {
        assertThatThrownBy(() -> JobConfig.builder().ringSize(1000).build())
            .hasMessageContaining("ringSize").hasMessageContaining("power of two").hasMessageContaining("1000");
        assertThatThrownBy(() -> JobConfig.builder().slotSize(20).build()).hasMessageContaining("slotSize");
        assertThatThrownBy(() -> JobConfig.builder().defaultParallelism(0).build())
            .hasMessageContaining("defaultParallelism");
        assertThatThrownBy(() -> JobConfig.builder().maxParallelism(8).defaultParallelism(9).build())
            .hasMessageContaining("defaultParallelism");
        assertThatThrownBy(() -> JobConfig.builder().ringSize(64).publishBatch(64).build())
            .hasMessageContaining("publishBatch");
        assertThatThrownBy(() -> JobConfig.builder().cpus(9999).build()).hasMessageContaining("cpus");
        assertThatThrownBy(() -> JobConfig.builder().keyPrefetch(-1).build()).hasMessageContaining("keyPrefetch")
            .hasMessageContaining("-1");
        assertThatThrownBy(() -> JobConfig.builder().keyPrefetch(JobConfig.MAX_KEY_PREFETCH + 1).build())
            .hasMessageContaining("keyPrefetch");
        assertThat(JobConfig.builder().keyPrefetch(0).build().keyPrefetch()).isZero();
        assertThat(JobConfig.builder().keyPrefetch(JobConfig.MAX_KEY_PREFETCH).build().keyPrefetch())
            .isEqualTo(JobConfig.MAX_KEY_PREFETCH);
        assertThat(JobConfig.defaults().keyPrefetch()).isEqualTo(JobConfig.DEFAULT_KEY_PREFETCH);
    }

    @Test
    void forwardBetweenDifferentParallelismsIsRejected()
    {
        final JobEnvironment env = JobEnvironment.create();
        env.fromSource(numbers(10), "numbers").forward().map(n -> n).name("wider").setParallelism(2)
            .sinkTo(new DiscardSink<>()).setParallelism(2);
        assertThatThrownBy(() -> env.execute("bad-forward"))
            .isInstanceOf(InvalidJobException.class)
            .hasMessageContaining("forward()")
            .hasMessageContaining("operator 'wider'");
    }

    static final class CountingFunction extends KeyedProcessFunction<Long, Long, Long>
    {
        private long seen;

        @Override
        public void processElement(final Long value, final Context<Long> ctx, final Collector<Long> out)
        {
            out.collect(++seen);
        }
    }

    @Test
    void oneFunctionInstanceWithFieldsCannotBeSharedBySeveralSubtasks()
    {
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().defaultParallelism(2).build());
        env.fromSource(numbers(10), "numbers").keyBy(n -> n).process(new CountingFunction()).name("count")
            .sinkTo(new DiscardSink<>());
        assertThatThrownBy(() -> env.execute("shared"))
            .isInstanceOf(InvalidJobException.class)
            .hasMessageContaining("operator 'count'")
            .hasMessageContaining("'seen'")
            .hasMessageContaining("CountingFunction::new");
    }

    @Test
    void uidsMustBeUnique()
    {
        final JobEnvironment env = JobEnvironment.create();
        env.fromSource(numbers(10), "numbers").uid("same").map(n -> n).uid("same").sinkTo(new DiscardSink<>());
        assertThatThrownBy(() -> env.execute("uids"))
            .isInstanceOf(InvalidJobException.class)
            .hasMessageContaining("uid 'same'");
    }

    @Test
    void keyedStateOnAnUnkeyedStreamIsAClearError()
    {
        final JobEnvironment env = JobEnvironment.create();
        final DataStream<Long> numbers = env.fromSource(numbers(10), "numbers");
        numbers.connect(numbers).process(new io.ringflow.engine.api.functions.CoProcessFunction<Long, Long, Long>()
        {
            @Override
            public void open(final io.ringflow.engine.api.functions.RuntimeContext context)
            {
                context.getState(new io.ringflow.state.keyed.ValueStateDescriptor<>("x", Long.class));
            }

            @Override
            public void processElement1(final Long value, final Collector<Long> out)
            {
            }

            @Override
            public void processElement2(final Long value, final Collector<Long> out)
            {
            }
        }).name("unkeyed").sinkTo(new DiscardSink<>());
        final JobHandle job = env.execute("unkeyed-state");
        assertThatThrownBy(() -> job.awaitTermination(TestJobs.HANG_GUARD))
            .rootCause()
            .hasMessageContaining("'unkeyed'")
            .hasMessageContaining("keyBy");
    }

    @Test
    void aFunctionFactoryThatThrowsIsReportedAtSubmissionNamingTheOperator()
    {
        final JobEnvironment env = JobEnvironment.create();
        final int[] calls = {0};
        env.fromSource(numbers(10), "numbers").keyBy(n -> n)
            .process(() ->
            {
                if (calls[0]++ > 0)
                {
                    throw new IllegalStateException("factory broke");
                }
                return new CountingFunction();
            }).name("fragile")
            .sinkTo(new DiscardSink<>());
        assertThatThrownBy(() -> env.execute("fragile-factory"))
            .isInstanceOf(InvalidJobException.class)
            .hasMessageContaining("operator 'fragile'")
            .hasRootCauseMessage("factory broke");
        assertThat(TestJobs.liveThreadsOf("fragile-factory")).isEmpty();
    }

    /** Counts in a plain field: unsafe to share between subtasks. */
    static final class CountingMap implements io.ringflow.engine.api.functions.MapFunction<Long, Long>
    {
        private long seen;

        @Override
        public Long map(final Long value)
        {
            return ++seen;
        }
    }

    @Test
    void aMapFunctionWithMutableFieldsCannotBeSharedButCapturedConstantsCan() throws Exception
    {
        final JobEnvironment shared = JobEnvironment.create(JobConfig.builder().defaultParallelism(2).build());
        shared.fromSource(numbers(10), "numbers").map(new CountingMap()).name("counting")
            .sinkTo(new DiscardSink<>());
        assertThatThrownBy(() -> shared.execute("shared-map"))
            .isInstanceOf(InvalidJobException.class)
            .hasMessageContaining("operator 'counting'")
            .hasMessageContaining("'seen'");

        final long offset = 1000;
        final JobEnvironment capturing = JobEnvironment.create(JobConfig.builder().defaultParallelism(2).build());
        final DiscardSink<Long> sink = new DiscardSink<>();
        capturing.fromSource(numbers(10), "numbers").map(n -> n + offset).sinkTo(sink);
        TestJobs.awaitFinished(capturing.execute("capturing-map"));
        assertThat(sink.count()).isEqualTo(10);
    }

    @Test
    void nullRecordsAreRejectedWhereTheyWouldCrossAChannel()
    {
        final JobEnvironment env = JobEnvironment.create();
        env.fromSource(numbers(10), "numbers")
            .flatMap((Long n, Collector<Long> out) -> out.collect(n == 5 ? null : n)).returns(Long.class)
            .name("leaky")
            .rebalance()
            .sinkTo(new DiscardSink<>());
        final JobHandle job = env.execute("null-record");
        assertThatThrownBy(() -> job.awaitTermination(TestJobs.HANG_GUARD))
            .hasMessageContaining("'leaky'")
            .hasRootCauseInstanceOf(NullPointerException.class)
            .rootCause().hasMessageContaining("null record");
    }

    @Test
    void toBuilderKeepsADerivedPublishBatchDerived()
    {
        final JobConfig derived = JobConfig.builder().build().toBuilder().ringSize(256).build();
        assertThat(derived.publishBatch()).isEqualTo(64);
    }

    record Wide(long a, long b, long c, long d, long e, long f)
    {
    }

    @Test
    void aRecordTypeThatCanNeverFitASlotIsRejectedAtSubmission()
    {
        final JobEnvironment env = JobEnvironment.create(JobConfig.builder().slotSize(48).build());
        env.fromSource(numbers(10), "numbers")
            .map(n -> new Wide(n, n, n, n, n, n)).name("widen")
            .rebalance()
            .sinkTo(new DiscardSink<>());
        assertThatThrownBy(() -> env.execute("too-wide"))
            .isInstanceOf(InvalidJobException.class)
            .hasMessageContaining(Wide.class.getName())
            .hasMessageContaining("48 bytes")
            .hasMessageContaining("slotSize to at least 56");
    }
}
