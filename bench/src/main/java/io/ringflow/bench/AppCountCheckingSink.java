package io.ringflow.bench;

import io.ringflow.bench.PageViews.AppCount;
import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.sink.Sink;
import io.ringflow.engine.api.sink.SinkWriter;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the page-view job's output and checks it, without allocating or synchronising per record.
 *
 * <p>Each writer keeps plain fields: the number of records, and the last count seen per application in a
 * {@code long[keys]} allocated when the writer is created (on the sink's task thread, so it is part of the job's
 * start-up cost, like ring allocation). Per record it does one array load and store and one comparison: the count of
 * an application must be exactly one more than the previous count of that application (all records of a key pass
 * through one subtask, in order). The writer adds its record count to the shared totals on flush (end of input,
 * barriers) and its final per-key counts and anomalies on close.
 *
 * <p>Once the job has finished, {@link #verify(long)} checks that exactly the expected number of records arrived,
 * that the final per-key counts add up to it, and that no count was skipped, repeated or reordered.
 */
public final class AppCountCheckingSink implements Sink<AppCount>
{
    private final int keys;
    private final LongAdder received = new LongAdder();
    private final LongAdder finalCountSum = new LongAdder();
    private final LongAdder anomalies = new LongAdder();

    /**
     * @param keys number of applications; application ids are in {@code [0, keys)}.
     */
    public AppCountCheckingSink(final int keys)
    {
        if (keys < 1)
        {
            throw new IllegalArgumentException("keys must be >= 1, was " + keys);
        }
        this.keys = keys;
    }

    @Override
    public SinkWriter<AppCount> createWriter(final SubtaskInfo subtask)
    {
        return new Writer(new long[keys]);
    }

    /** @return records reported by the writers so far; exact once the job has finished. */
    public long received()
    {
        return received.sum();
    }

    /** @return sum over applications of their final count; complete once every writer has closed. */
    public long finalCountSum()
    {
        return finalCountSum.sum();
    }

    /** @return counts that did not follow the application's previous count by exactly one. */
    public long anomalies()
    {
        return anomalies.sum();
    }

    /**
     * Call after the job has terminated.
     *
     * @param expected how many page views were generated.
     * @throws IllegalStateException when the output is not exactly the complete count of {@code expected} views.
     */
    public void verify(final long expected)
    {
        final long records = received();
        final long sum = finalCountSum();
        final long bad = anomalies();
        if (records != expected || sum != expected || bad != 0)
        {
            throw new IllegalStateException("incomplete or wrong page-view output: sink received " + records +
                " records, final per-key counts sum to " + sum + ", " + bad + " counts out of sequence; expected " +
                expected + ", " + expected + ", 0");
        }
    }

    private final class Writer implements SinkWriter<AppCount>
    {
        private final long[] lastCount;
        private long unreported;
        private long outOfSequence;

        Writer(final long[] lastCount)
        {
            this.lastCount = lastCount;
        }

        @Override
        public void write(final AppCount record)
        {
            final int app = (int)record.appId();
            final long count = record.count();
            if (count != lastCount[app] + 1)
            {
                outOfSequence++;
            }
            lastCount[app] = count;
            unreported++;
        }

        @Override
        public void flush()
        {
            received.add(unreported);
            unreported = 0;
        }

        @Override
        public void close()
        {
            flush();
            long sum = 0;
            for (final long count : lastCount)
            {
                sum += count;
            }
            finalCountSum.add(sum);
            anomalies.add(outOfSequence);
        }
    }
}
