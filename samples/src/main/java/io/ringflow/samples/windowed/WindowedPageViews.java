package io.ringflow.samples.windowed;

import io.ringflow.engine.api.DataStream;
import io.ringflow.engine.api.JobEnvironment;
import io.ringflow.engine.api.eventtime.WatermarkStrategy;
import io.ringflow.engine.api.source.GeneratorSource;
import io.ringflow.engine.api.windowing.WindowAssigner;

import java.time.Duration;

/**
 * The seeds' windowed job: page views per app per minute, and the average view duration per app over the last five
 * minutes, every minute, in event time, with out-of-order timestamps and a bounded-out-of-orderness watermark
 * strategy.
 */
public final class WindowedPageViews
{
    /** The job's two outputs. */
    public record Streams(DataStream<WindowCount> perMinute, DataStream<WindowCount> slidingAverage)
    {
    }

    private WindowedPageViews()
    {
    }

    /**
     * @param env              the job.
     * @param events           views to generate.
     * @param apps             distinct apps.
     * @param viewsPerSecond   event-time rate of the generated views.
     * @param outOfOrderness   how far out of order they are, and what the watermarks allow for.
     * @param window           the tumbling window (the seeds': one minute).
     * @param slidingSize      the sliding window's size (five minutes).
     * @param slide            how often it starts (one minute).
     * @param parallelism      parallelism of the windows.
     * @return the two result streams, for the caller to sink.
     */
    public static Streams build(final JobEnvironment env, final long events, final int apps,
        final long viewsPerSecond, final Duration outOfOrderness, final Duration window, final Duration slidingSize,
        final Duration slide, final int parallelism)
    {
        final long ooo = outOfOrderness.toMillis();
        final DataStream<TimedView> views = env
            .fromSource(GeneratorSource.bounded(events, TimedView.class,
                (i, created) -> TimedView.generate(i, apps, viewsPerSecond, ooo)), "views")
            .uid("views")
            .assignTimestampsAndWatermarks(WatermarkStrategy.<TimedView>forBoundedOutOfOrderness(outOfOrderness)
                .withTimestampAssigner((view, previous) -> view.time()))
            .uid("event-time");
        final DataStream<WindowCount> perMinute = views
            .keyBy(TimedView::app)
            .window(WindowAssigner.tumblingEventTime(window))
            .aggregate(new ViewStats(), (app, w, stats) ->
                new WindowCount(app, w.start(), w.end(), stats.views(), stats.totalDuration()))
            .uid("views-per-window").name("views per app per window").setParallelism(parallelism);
        final DataStream<WindowCount> sliding = views
            .keyBy(TimedView::app)
            .window(WindowAssigner.slidingEventTime(slidingSize, slide))
            .aggregate(new ViewStats(), (app, w, stats) ->
                new WindowCount(app, w.start(), w.end(), stats.views(), stats.totalDuration()))
            .uid("sliding-average").name("sliding average duration").setParallelism(parallelism);
        return new Streams(perMinute, sliding);
    }
}
