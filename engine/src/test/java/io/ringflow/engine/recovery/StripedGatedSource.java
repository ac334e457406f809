package io.ringflow.engine.recovery;

import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.source.Source;
import io.ringflow.engine.api.source.SourceReader;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The numbers 0, 1, 2, ... split into stripes: subtask {@code s} of {@code p} emits {@code s, s + p, s + 2p, ...}, but
 * only the numbers below a limit the test raises, and ends once the test closed the gate and it emitted every number
 * below the limit. A subtask's position is how many numbers it emitted, so a restored reader resumes exactly at the
 * cut; a restore must keep the source's parallelism (its subtasks own their stripes).
 */
final class StripedGatedSource implements Source<Long>
{
    private final AtomicLong limit = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final int parallelism;

    /** @param parallelism the source's parallelism, fixed across restores. */
    StripedGatedSource(final int parallelism)
    {
        this.parallelism = parallelism;
    }

    /** @param value emit every number below this. */
    void openUpTo(final long value)
    {
        limit.set(value);
    }

    /** @param value emit every number below this, then end. */
    void finishAt(final long value)
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
        return parallelism;
    }

    @Override
    public SourceReader<Long> createReader(final SubtaskInfo subtask)
    {
        if (subtask.parallelism() != parallelism)
        {
            throw new IllegalStateException("a striped source runs at parallelism " + parallelism + ", not " +
                subtask.parallelism());
        }
        final int stripe = subtask.subtaskIndex();
        return new SourceReader<>()
        {
            /** Numbers emitted so far: the next is {@code stripe + emitted * parallelism}. */
            private long emitted;

            @Override
            public int pollNext(final Collector<Long> output, final int maxRecords)
            {
                final long until = limit.get();
                int count = 0;
                while (count < maxRecords && stripe + emitted * parallelism < until)
                {
                    output.collect(stripe + emitted * parallelism);
                    emitted++;
                    count++;
                }
                if (count == 0 && closed.get() && stripe + emitted * parallelism >= limit.get())
                {
                    return END_OF_INPUT;
                }
                return count;
            }

            @Override
            public long position()
            {
                return emitted;
            }

            @Override
            public void seek(final long position)
            {
                emitted = position;
            }
        };
    }
}
