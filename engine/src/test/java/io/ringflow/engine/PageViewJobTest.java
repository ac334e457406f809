package io.ringflow.engine;

import io.ringflow.engine.api.DataStream;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.JobHandle;
import io.ringflow.engine.api.JobStatus;
import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.KeyedProcessFunction;
import io.ringflow.engine.api.functions.RuntimeContext;
import io.ringflow.engine.api.sink.CollectingSink;
import io.ringflow.engine.api.source.GeneratorSource;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class PageViewJobTest
{
    record PageView(long appId, long timestamp)
    {
    }

    record AppCount(long appId, long count)
    {
    }

    static final class CountPerApp extends KeyedProcessFunction<Long, PageView, AppCount>
    {
        private ValueState<Long> count;

        @Override
        public void open(final RuntimeContext context)
        {
            count = context.getState(new ValueStateDescriptor<>("count", Long.class, 0L));
        }

        @Override
        public void processElement(final PageView view, final Context<Long> ctx, final Collector<AppCount> out)
        {
            final long next = count.value() + 1;
            count.update(next);
            out.collect(new AppCount(ctx.getCurrentKey(), next));
        }
    }

    @ParameterizedTest(name = "parallelism {0}, chaining {1}")
    @CsvSource({"1, true", "2, true", "4, true", "1, false", "4, false"})
    void countsEveryViewOfEveryAppExactlyOnce(final int parallelism, final boolean chaining) throws Exception
    {
        final int apps = 37;
        final long events = 200_000;
        final JobEnvironment env = JobEnvironment.create(
            JobConfig.builder().defaultParallelism(parallelism).chaining(chaining).ringSize(256).build());
        final CollectingSink<AppCount> sink = new CollectingSink<>();
        final DataStream<PageView> views = env.fromSource(
            GeneratorSource.bounded(events, PageView.class, (i, t) -> new PageView(i % apps, t)), "views");
        views.keyBy(PageView::appId).process(CountPerApp::new).name("count").sinkTo(sink).name("sink");

        try (JobHandle job = env.execute("page-view-" + parallelism))
        {
            assertThat(job.awaitTermination(Duration.ofMinutes(2))).isEqualTo(JobStatus.FINISHED);
        }

        final Map<Long, Long> finalCounts = new HashMap<>();
        final Map<Long, Long> emitted = new HashMap<>();
        final List<AppCount> results = sink.results();
        for (final AppCount result : results)
        {
            finalCounts.merge(result.appId(), result.count(), Math::max);
            emitted.merge(result.appId(), 1L, Long::sum);
        }
        assertThat(results).hasSize((int)events);
        assertThat(finalCounts).hasSize(apps);
        for (long app = 0; app < apps; app++)
        {
            final long expected = events / apps + (app < events % apps ? 1 : 0);
            assertThat(finalCounts.get(app)).as("final count of app %d", app).isEqualTo(expected);
            assertThat(emitted.get(app)).as("updates emitted for app %d", app).isEqualTo(expected);
        }
    }
}
