package io.ringflow.bench;

import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.KeyedProcessFunction;
import io.ringflow.engine.api.functions.RuntimeContext;
import io.ringflow.engine.api.source.RecordGenerator;
import io.ringflow.state.keyed.LongValueState;
import io.ringflow.state.keyed.ValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;

/**
 * The page-view job's records and functions, shared by {@link PageViewThroughputBenchmark} and
 * {@link LatencyHarness}: the same job as {@code PageViewJobTest} in the engine.
 */
public final class PageViews
{
    private PageViews()
    {
    }

    /**
     * One page view.
     *
     * @param appId     the application viewed; the key.
     * @param timestamp when the view was due, {@link System#nanoTime()} units (the generator's creation time).
     */
    public record PageView(long appId, long timestamp)
    {
    }

    /**
     * The running count of one application, emitted once per view.
     *
     * @param appId the application.
     * @param count its views so far.
     */
    public record AppCount(long appId, long count)
    {
    }

    /**
     * {@link AppCount} that carries the view's timestamp on, so the sink can measure end-to-end latency.
     *
     * @param appId     the application.
     * @param count     its views so far.
     * @param timestamp the timestamp of the view that produced this count.
     */
    public record TimedAppCount(long appId, long count, long timestamp)
    {
    }

    /**
     * @param keys number of applications; view {@code i} is of application {@code i % keys}.
     * @return a generator of page views; allocates one view per record, as a real source would.
     */
    public static RecordGenerator<PageView> generator(final int keys)
    {
        return (index, creationNanos) -> new PageView(index % keys, creationNanos);
    }

    /**
     * Counts views per application in keyed state (the unboxed {@code LongValueState} view) and emits the new count
     * for every view.
     */
    public static final class CountPerApp extends KeyedProcessFunction<Long, PageView, AppCount>
    {
        private LongValueState count;

        @Override
        public void open(final RuntimeContext context)
        {
            count = context.getLongState(new ValueStateDescriptor<>("count", Long.class, 0L));
        }

        @Override
        public void processElement(final PageView view, final Context<Long> ctx, final Collector<AppCount> out)
        {
            out.collect(new AppCount(view.appId(), count.add(1)));
        }
    }

    /**
     * {@link CountPerApp} written against {@code ValueState<Long>} (boxed value and update), as a job ported from
     * Flink would be: the same state, for measuring what the boxing costs.
     */
    public static final class BoxedCountPerApp extends KeyedProcessFunction<Long, PageView, AppCount>
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
            out.collect(new AppCount(view.appId(), next));
        }
    }

    /**
     * {@link CountPerApp} that passes each view's timestamp on.
     */
    public static final class TimedCountPerApp extends KeyedProcessFunction<Long, PageView, TimedAppCount>
    {
        private LongValueState count;

        @Override
        public void open(final RuntimeContext context)
        {
            count = context.getLongState(new ValueStateDescriptor<>("count", Long.class, 0L));
        }

        @Override
        public void processElement(
            final PageView view, final Context<Long> ctx, final Collector<TimedAppCount> out)
        {
            out.collect(new TimedAppCount(view.appId(), count.add(1), view.timestamp()));
        }
    }
}
