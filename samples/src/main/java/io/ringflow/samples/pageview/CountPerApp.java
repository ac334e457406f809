package io.ringflow.samples.pageview;

import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.KeyedProcessFunction;
import io.ringflow.engine.api.functions.RuntimeContext;
import io.ringflow.state.keyed.LongValueState;
import io.ringflow.state.keyed.ValueStateDescriptor;

/**
 * Counts the views of each application in keyed state and emits the new count with every view, carrying the view's
 * timestamp. One instance per subtask (pass {@code CountPerApp::new}); the input must be keyed by
 * {@link PageView#appId()}.
 */
public final class CountPerApp extends KeyedProcessFunction<Long, PageView, AppCount>
{
    /** The unboxed view of a {@code ValueState<Long>} named "count": no allocation per view. */
    private LongValueState count;

    @Override
    public void open(final RuntimeContext context)
    {
        count = context.getLongState(new ValueStateDescriptor<>(PageViewCount.COUNT_STATE, Long.class, 0L));
    }

    @Override
    public void processElement(final PageView view, final Context<Long> ctx, final Collector<AppCount> out)
    {
        out.collect(new AppCount(view.appId(), count.add(1), view.timestamp()));
    }
}
