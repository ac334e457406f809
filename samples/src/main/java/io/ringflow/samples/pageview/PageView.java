package io.ringflow.samples.pageview;

/**
 * One view of a page of an application.
 *
 * @param appId     the application viewed; the key of the count.
 * @param timestamp when the view was generated, in {@link System#nanoTime()} units of this JVM; carried through to
 *                  the sink, which measures end-to-end latency from it.
 */
public record PageView(long appId, long timestamp)
{
}
