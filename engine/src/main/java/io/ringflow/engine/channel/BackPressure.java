package io.ringflow.engine.channel;

/**
 * What a {@link ChannelWriter} does while its ring is full: provided by the task that owns the writer, called on
 * that task's thread.
 */
public interface BackPressure
{
    /**
     * Called repeatedly, with nothing held, while the ring has no free slot. Idles for a moment (spin, yield or park)
     * and returns; or throws to abandon the write because the job is stopping.
     *
     * @param channel the full channel.
     */
    void awaitCapacity(RingChannel channel);
}
