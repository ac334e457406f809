package io.ringflow.samples.pageview;

/**
 * The running count of one application, emitted once per view.
 *
 * @param appId      the application.
 * @param count      views of the application counted so far, this one included.
 * @param eventNanos the {@link PageView#timestamp()} of the view that produced this update.
 */
public record AppCount(long appId, long count, long eventNanos)
{
}
