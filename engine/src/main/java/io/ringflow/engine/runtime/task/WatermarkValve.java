package io.ringflow.engine.runtime.task;

/**
 * Combines the watermarks of a task's input channels into the task's own: the minimum over the channels that are
 * active, not ended and aligned, emitted only when it advances (so the output is strictly increasing).
 *
 * <ul>
 *   <li>An <b>idle</b> channel (its upstream said so) is left out, so an idle source subtask does not hold time back.
 *   When every channel that has not ended is idle, the largest watermark among them is emitted (time moves to
 *   what they reached) and then the task goes idle itself.</li>
 *   <li>A channel that becomes <b>active</b> again joins the minimum only once its watermark has caught up with the
 *   task's (it is not <i>aligned</i> before): the task's watermark never goes back.</li>
 *   <li>An <b>ended</b> channel is left out; once every channel ended the watermark is {@link Long#MAX_VALUE}. The
 *   {@code Long.MAX_VALUE} watermark (a finishing channel sends it just before it ends) counts as the channel's end,
 *   so time never jumps past a live idle channel.</li>
 * </ul>
 * A restored task starts with no watermark ({@link Long#MIN_VALUE}) on every channel.
 *
 * <p>Thread contract: the task thread only; allocates nothing.
 */
public final class WatermarkValve
{
    /** What the valve emits. */
    public interface Listener
    {
        /** @param watermark the task's new watermark, larger than any before. */
        void watermark(long watermark);

        /** @param idle whether the task as a whole is now idle (every live channel is). */
        void status(boolean idle);
    }

    private final long[] watermarks;
    private final boolean[] idle;
    private final boolean[] aligned;
    private final boolean[] ended;
    private final Listener listener;
    private long lastEmitted = Long.MIN_VALUE;
    private boolean taskIdle;

    /**
     * @param channels how many input channels.
     * @param listener receives the task's watermarks and status changes.
     */
    public WatermarkValve(final int channels, final Listener listener)
    {
        this.watermarks = new long[channels];
        this.idle = new boolean[channels];
        this.aligned = new boolean[channels];
        this.ended = new boolean[channels];
        this.listener = listener;
        java.util.Arrays.fill(watermarks, Long.MIN_VALUE);
        java.util.Arrays.fill(aligned, true);
    }

    /** @return the last watermark emitted; {@link Long#MIN_VALUE} before the first. */
    public long current()
    {
        return lastEmitted;
    }

    /** @return whether the task is idle (every channel that has not ended is). */
    public boolean isIdle()
    {
        return taskIdle;
    }

    /**
     * A watermark arrived on {@code channel}. A watermark on an idle channel makes it active first.
     *
     * @param channel   the channel.
     * @param watermark its value.
     */
    public void onWatermark(final int channel, final long watermark)
    {
        if (ended[channel])
        {
            return;
        }
        if (watermark == Long.MAX_VALUE)
        {
            // the end of event time on this channel: as its end (a finishing channel sends it just before
            // END_OF_INPUT), so idle live channels are not jumped over
            onEnd(channel);
            return;
        }
        if (idle[channel])
        {
            onActive(channel);
        }
        if (watermark <= watermarks[channel])
        {
            return;
        }
        watermarks[channel] = watermark;
        if (!aligned[channel] && watermark >= lastEmitted)
        {
            aligned[channel] = true;
        }
        emitMinimum();
    }

    /** @param channel the channel that went idle. */
    public void onIdle(final int channel)
    {
        if (ended[channel] || idle[channel])
        {
            return;
        }
        idle[channel] = true;
        aligned[channel] = false;
        if (everyLiveChannelIdle())
        {
            // nothing is active to hold time back: move to what the idle channels reached, then go idle
            emitLargestOfLive();
            if (!taskIdle)
            {
                taskIdle = true;
                listener.status(true);
            }
        }
        else
        {
            emitMinimum();
        }
    }

    /** @param channel the channel that is active again. */
    public void onActive(final int channel)
    {
        if (ended[channel] || !idle[channel])
        {
            return;
        }
        idle[channel] = false;
        aligned[channel] = watermarks[channel] >= lastEmitted;
        if (taskIdle)
        {
            taskIdle = false;
            listener.status(false);
        }
    }

    /** @param channel the channel that ended. */
    public void onEnd(final int channel)
    {
        if (ended[channel])
        {
            return;
        }
        ended[channel] = true;
        idle[channel] = false;
        if (!liveChannelsBesides(-1))
        {
            emit(Long.MAX_VALUE);
            return;
        }
        if (everyLiveChannelIdle())
        {
            // the last active channel ended: the rest are idle; as in onIdle, time moves to what they reached
            emitLargestOfLive();
            if (!taskIdle)
            {
                taskIdle = true;
                listener.status(true);
            }
            return;
        }
        emitMinimum();
    }

    /** @return whether a channel other than {@code channel} has not ended. */
    private boolean liveChannelsBesides(final int channel)
    {
        for (int c = 0; c < ended.length; c++)
        {
            if (c != channel && !ended[c])
            {
                return true;
            }
        }
        return false;
    }

    private void emitLargestOfLive()
    {
        long max = Long.MIN_VALUE;
        for (int c = 0; c < watermarks.length; c++)
        {
            if (!ended[c])
            {
                max = Math.max(max, watermarks[c]);
            }
        }
        emit(max);
    }

    private boolean everyLiveChannelIdle()
    {
        for (int c = 0; c < idle.length; c++)
        {
            if (!ended[c] && !idle[c])
            {
                return false;
            }
        }
        return true;
    }

    private void emitMinimum()
    {
        long min = Long.MAX_VALUE;
        boolean any = false;
        for (int c = 0; c < watermarks.length; c++)
        {
            if (!ended[c] && !idle[c] && aligned[c])
            {
                min = Math.min(min, watermarks[c]);
                any = true;
            }
        }
        if (any)
        {
            emit(min);
        }
    }

    private void emit(final long watermark)
    {
        if (watermark > lastEmitted)
        {
            lastEmitted = watermark;
            listener.watermark(watermark);
        }
    }
}
