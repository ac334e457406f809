package io.ringflow.engine.recovery;

import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.source.Source;
import io.ringflow.engine.api.source.SourceReader;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A test source of the numbers 0, 1, 2, ... that emits only up to a limit the test raises, and ends when the test
 * closes the gate and every number below the limit was emitted. Its position is the next number, so a restored
 * reader resumes exactly where the checkpoint cut. Parallelism 1.
 */
public final class GatedSource implements Source<Long>
{
    private final AtomicLong limit = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();

    /** @param value emit every number below this. */
    public void openUpTo(final long value)
    {
        limit.set(value);
    }

    /** @param value emit every number below this, then end. */
    public void finishAt(final long value)
    {
        limit.set(value);
        closed.set(true);
    }

    @Override
    public Class<Long> producedType()
    {
        return Long.class;
    }

    @Override
    public boolean isBounded()
    {
        return true;
    }

    @Override
    public int maxParallelism()
    {
        return 1;
    }

    @Override
    public SourceReader<Long> createReader(final SubtaskInfo subtask)
    {
        return new SourceReader<>()
        {
            private long next;

            @Override
            public int pollNext(final Collector<Long> output, final int maxRecords)
            {
                final long until = Math.min(limit.get(), next + maxRecords);
                final int emitted = (int)Math.max(0, until - next);
                while (next < until)
                {
                    output.collect(next++);
                }
                if (emitted == 0 && closed.get() && next >= limit.get())
                {
                    return END_OF_INPUT;
                }
                return emitted;
            }

            @Override
            public long position()
            {
                return next;
            }

            @Override
            public void seek(final long position)
            {
                next = position;
            }
        };
    }
}
