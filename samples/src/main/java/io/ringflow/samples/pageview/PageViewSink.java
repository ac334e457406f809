package io.ringflow.samples.pageview;

import io.ringflow.engine.api.functions.SubtaskInfo;
import io.ringflow.engine.api.sink.Sink;
import io.ringflow.engine.api.sink.SinkWriter;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The end of the page-view job. Each subtask's writer, on its own task thread and without locks:
 * <ul>
 *   <li>records the end-to-end latency of every update ({@code System.nanoTime() - eventNanos}, in nanoseconds)
 *   into its own {@link SingleWriterRecorder}, which one reader thread may drain at any time through
 *   {@link #takeIntervalLatencies(Histogram)};</li>
 *   <li>counts the updates it received in a counter that any thread may read ({@link #recordsReceived()});</li>
 *   <li>keeps, in two {@link LongColumn}s confined to its thread, the last count and the number of updates seen per
 *   application, and hands them over as {@link SubtaskTotals} when the subtask closes; {@link #subtaskTotals()} is
 *   complete once the job has terminated. Columns of more than {@link LongColumn#ON_HEAP_UP_TO} apps are memory-mapped
 *   files in the tables directory.</li>
 * </ul>
 * Application ids must lie in {@code [0, apps)}; any other id fails the job.
 */
final class PageViewSink implements Sink<AppCount>
{
    private static final int SIGNIFICANT_DIGITS = 3;

    private final int apps;
    private final Path tablesDirectory;
    private final List<Writer> writers = new CopyOnWriteArrayList<>();
    private final ConcurrentLinkedQueue<SubtaskTotals> closed = new ConcurrentLinkedQueue<>();

    /**
     * What one sink subtask saw, handed over when it closed.
     *
     * @param subtask     the subtask index.
     * @param parallelism the sink's parallelism.
     * @param lastCounts  by application id: the count of the last update received, 0 when none was.
     * @param updates     by application id: how many updates were received.
     * @param received    updates received in all.
     */
    record SubtaskTotals(int subtask, int parallelism, LongColumn lastCounts, LongColumn updates, long received)
    {
    }

    /**
     * @param apps            the number of applications; ids lie in {@code [0, apps)}.
     * @param tablesDirectory where the per-app columns of many apps are mapped, or null for the JVM's temporary
     *                        directory.
     */
    PageViewSink(final int apps, final Path tablesDirectory)
    {
        if (apps < 1)
        {
            throw new IllegalArgumentException("apps must be at least 1, was " + apps);
        }
        this.apps = apps;
        this.tablesDirectory = tablesDirectory;
    }

    @Override
    public SinkWriter<AppCount> createWriter(final SubtaskInfo subtask)
    {
        final Writer writer = new Writer(subtask.subtaskIndex(), subtask.parallelism(), apps);
        writers.add(writer);
        return writer;
    }

    /** @return updates received so far by all subtasks; exact once the job has terminated. Any thread. */
    long recordsReceived()
    {
        long sum = 0;
        for (final Writer writer : writers)
        {
            sum += writer.received.get();
        }
        return sum;
    }

    /**
     * Adds the latencies recorded by all subtasks since the previous call to {@code into}, and starts the next
     * interval. One reader thread at a time (calls are serialized); the writers are never blocked.
     *
     * @param into receives the latencies, in nanoseconds; should auto-resize.
     */
    synchronized void takeIntervalLatencies(final Histogram into)
    {
        for (final Writer writer : writers)
        {
            writer.spare = writer.recorder.getIntervalHistogram(writer.spare);
            into.add(writer.spare);
        }
    }

    /** @return the totals of every subtask that has closed so far, in no particular order. */
    List<SubtaskTotals> subtaskTotals()
    {
        return new ArrayList<>(closed);
    }

    private final class Writer implements SinkWriter<AppCount>
    {
        private final int subtask;
        private final int parallelism;
        private final SingleWriterRecorder recorder = new SingleWriterRecorder(SIGNIFICANT_DIGITS);
        private final AtomicLong received = new AtomicLong();
        private final LongColumn lastCounts;
        private final LongColumn updates;
        private long count;
        private boolean handedOver;
        /** Owned by the reader of {@link #takeIntervalLatencies}. */
        private Histogram spare;

        Writer(final int subtask, final int parallelism, final int apps)
        {
            this.subtask = subtask;
            this.parallelism = parallelism;
            this.lastCounts = LongColumn.forLength(apps, tablesDirectory);
            this.updates = LongColumn.forLength(apps, tablesDirectory);
        }

        @Override
        public void write(final AppCount record)
        {
            final long latency = System.nanoTime() - record.eventNanos();
            recorder.recordValue(Math.max(0, latency));
            final long appId = record.appId();
            if (appId < 0 || appId >= apps)
            {
                throw new IllegalStateException("application id " + appId + " is outside [0, " + apps + ")");
            }
            lastCounts.set((int)appId, record.count());
            updates.add((int)appId, 1);
            received.lazySet(++count);
        }

        @Override
        public void close()
        {
            if (!handedOver)
            {
                handedOver = true;
                closed.add(new SubtaskTotals(subtask, parallelism, lastCounts, updates, count));
            }
        }
    }
}
