package io.ringflow.engine.runtime.task;

import java.util.function.LongUnaryOperator;

/** A template for {@link ClassCopiesTest}: adds a step that grows by one at each call. */
public final class Adder implements LongUnaryOperator
{
    private long step;

    /** @param step the first step. */
    public Adder(final long step)
    {
        this.step = step;
    }

    @Override
    public long applyAsLong(final long value)
    {
        return value + step++;
    }
}
