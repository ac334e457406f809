package io.ringflow.bench.peers;

import org.HdrHistogram.Histogram;

import java.util.List;
import java.util.concurrent.Future;

/**
 * The page-view job on one engine, run once: {@link #start()} brings the engine up and submits the job, which then
 * runs on the engine's threads; one monitor thread ({@link PeerRun}) watches it through the other methods, and calls
 * {@link #verify()} and {@link #close()} at the end.
 *
 * <p>Threads: every method is called from the monitor thread; implementations may be read by the engine's threads in
 * between, as documented on each.
 */
public interface PeerJob extends AutoCloseable
{
    /** @return the engine's name in results: {@code ringflow}, {@code flink} or {@code jet}. */
    String engine();

    /**
     * Starts the engine (environment, cluster or member) and submits the job; returns once it is submitted, without
     * waiting for records. Called once.
     *
     * @throws Exception if the engine could not start or refused the job.
     */
    void start() throws Exception;

    /**
     * @return completes when the job has terminated: normally, or exceptionally with the engine's failure.
     *     {@code isDone()} is polled about every millisecond, so it must be cheap.
     */
    Future<?> termination();

    /** @return updates the sink has received so far, over all subtasks; cheap (polled about every millisecond). */
    long recordsReceived();

    /**
     * Adds the end-to-end latencies (ns) recorded since the previous call to {@code into}; the first call gets
     * everything recorded so far. Never blocks the job.
     *
     * @param into an auto-resizing histogram.
     */
    void takeIntervalLatencies(Histogram into);

    /**
     * Lets an engine that can only be polled for its completed checkpoints look (Ringflow retains one completed
     * checkpoint). Called about every millisecond while the job runs, and once after it terminated.
     *
     * @param nowNanos {@link System#nanoTime()}.
     */
    default void observe(final long nowNanos)
    {
    }

    /** @return checkpoints the engine confirmed complete so far (see each engine for how they are confirmed). */
    long checkpointsCompleted();

    /** @return views generated so far; exact once the job has terminated. */
    long generated();

    /**
     * Checks the job's output against the views generated per application. Call once the job has terminated
     * normally.
     *
     * @return one line per problem; empty when the totals verified.
     */
    List<String> verify();

    /** Cancels the job if it still runs and stops the engine. Idempotent. */
    @Override
    void close() throws Exception;
}
