package io.ringflow.samples.windowed;

import io.ringflow.state.keyed.AggregateFunction;

/** Counts views and sums their durations, incrementally: one accumulator per app and window. */
public final class ViewStats implements AggregateFunction<TimedView, ViewStats.Accumulator, ViewStats.Accumulator>
{
    /**
     * @param views         views so far.
     * @param totalDuration their durations' sum.
     */
    public record Accumulator(long views, long totalDuration)
    {
    }

    @Override
    public Accumulator createAccumulator()
    {
        return new Accumulator(0, 0);
    }

    @Override
    public Accumulator add(final TimedView value, final Accumulator accumulator)
    {
        return new Accumulator(accumulator.views() + 1, accumulator.totalDuration() + value.durationMs());
    }

    @Override
    public Accumulator getResult(final Accumulator accumulator)
    {
        return accumulator;
    }

    @Override
    public Accumulator merge(final Accumulator a, final Accumulator b)
    {
        return new Accumulator(a.views() + b.views(), a.totalDuration() + b.totalDuration());
    }
}
