package io.ringflow.engine.api.sink;

import io.ringflow.engine.api.functions.SubtaskInfo;

import java.util.concurrent.atomic.LongAdder;

/**
 * Drops every record, counting them. Each writer counts in a plain field and adds its count to the shared total on
 * flush and close, so {@link #count()} is exact once the job has finished and a lower bound while it runs.
 *
 * @param <T> the record type.
 */
public final class DiscardSink<T> implements Sink<T>
{
    private final LongAdder total = new LongAdder();

    @Override
    public SinkWriter<T> createWriter(final SubtaskInfo subtask)
    {
        return new SinkWriter<>()
        {
            private long unreported;

            @Override
            public void write(final T record)
            {
                unreported++;
            }

            @Override
            public void flush()
            {
                total.add(unreported);
                unreported = 0;
            }

            @Override
            public void close()
            {
                flush();
            }
        };
    }

    /** @return records discarded and reported so far by all writers. */
    public long count()
    {
        return total.sum();
    }
}
