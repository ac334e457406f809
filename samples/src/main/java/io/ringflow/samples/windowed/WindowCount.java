package io.ringflow.samples.windowed;

/**
 * A window's result for one app: views in it, and their total and average duration.
 *
 * @param app           the app.
 * @param windowStart   the window's start, epoch ms.
 * @param windowEnd     its end.
 * @param views         views in it.
 * @param totalDuration their durations' sum, ms.
 */
public record WindowCount(long app, long windowStart, long windowEnd, long views, long totalDuration)
{
    /** @return the average view duration, ms. */
    public double averageDuration()
    {
        return views == 0 ? 0 : (double)totalDuration / views;
    }
}
