package io.ringflow.engine.checkpoint.barrier;

import io.ringflow.engine.api.CheckpointingMode;
import io.ringflow.engine.channel.BarrierKind;

import java.time.Duration;

/**
 * How a task handles barriers, validated on construction. Four combinations are valid:
 *
 * <table>
 *   <caption>Valid combinations</caption>
 *   <tr><th>mode</th><th>unaligned</th><th>alignedTimeoutNanos</th><th>a CHECKPOINT barrier is handled</th></tr>
 *   <tr><td>EXACTLY_ONCE</td><td>false</td><td>none</td><td>aligned</td></tr>
 *   <tr><td>EXACTLY_ONCE</td><td>true</td><td>none</td><td>unaligned from its first barrier</td></tr>
 *   <tr><td>EXACTLY_ONCE</td><td>true</td><td>&gt; 0</td><td>aligned, switched to unaligned when alignment lasts
 *       longer than the timeout</td></tr>
 *   <tr><td>AT_LEAST_ONCE</td><td>false</td><td>none</td><td>tracked, never blocking</td></tr>
 * </table>
 *
 * A SAVEPOINT barrier is aligned in every combination, at-least-once included ({@link BarrierKind#SAVEPOINT}).
 *
 * @param mode                exactly-once or at-least-once.
 * @param unaligned           whether exactly-once checkpoints may be unaligned.
 * @param alignedTimeoutNanos how long an aligned checkpoint may align before it switches to unaligned, measured
 *                            from its first barrier at this task; {@link #NO_ALIGNED_TIMEOUT} for none.
 */
public record BarrierHandlerOptions(CheckpointingMode mode, boolean unaligned, long alignedTimeoutNanos)
{
    /** The value of {@code alignedTimeoutNanos} that means "no timeout". */
    public static final long NO_ALIGNED_TIMEOUT = -1;

    /**
     * @throws IllegalArgumentException naming the option at fault, for any combination not listed above.
     */
    public BarrierHandlerOptions
    {
        if (mode == null)
        {
            throw new IllegalArgumentException("mode must be EXACTLY_ONCE or AT_LEAST_ONCE, got null");
        }
        if (unaligned && mode != CheckpointingMode.EXACTLY_ONCE)
        {
            throw new IllegalArgumentException("unaligned checkpoints require mode EXACTLY_ONCE, but mode is " + mode +
                ": at-least-once never blocks a channel, so there is no alignment to avoid");
        }
        if (alignedTimeoutNanos != NO_ALIGNED_TIMEOUT)
        {
            if (alignedTimeoutNanos <= 0)
            {
                throw new IllegalArgumentException("alignedTimeout must be positive or none, got " +
                    alignedTimeoutNanos + " ns; for checkpoints unaligned from the first barrier, enable unaligned " +
                    "without a timeout");
            }
            if (mode != CheckpointingMode.EXACTLY_ONCE)
            {
                throw new IllegalArgumentException("alignedTimeout requires mode EXACTLY_ONCE, but mode is " + mode +
                    ": at-least-once never aligns");
            }
            if (!unaligned)
            {
                throw new IllegalArgumentException("alignedTimeout requires unaligned checkpoints to be enabled: " +
                    "when the timeout expires, an aligned checkpoint switches to unaligned");
            }
        }
    }

    /** @return exactly-once, always aligned. */
    public static BarrierHandlerOptions aligned()
    {
        return new BarrierHandlerOptions(CheckpointingMode.EXACTLY_ONCE, false, NO_ALIGNED_TIMEOUT);
    }

    /** @return exactly-once, checkpoints unaligned from their first barrier (savepoints stay aligned). */
    public static BarrierHandlerOptions unalignedCheckpoints()
    {
        return new BarrierHandlerOptions(CheckpointingMode.EXACTLY_ONCE, true, NO_ALIGNED_TIMEOUT);
    }

    /**
     * @param alignedTimeout how long a checkpoint may align before it switches to unaligned; positive.
     * @return exactly-once, aligned first, unaligned after the timeout (savepoints stay aligned).
     */
    public static BarrierHandlerOptions alignedWithTimeout(final Duration alignedTimeout)
    {
        return new BarrierHandlerOptions(CheckpointingMode.EXACTLY_ONCE, true, alignedTimeout.toNanos());
    }

    /** @return at-least-once: nothing blocked, snapshot on the last barrier. */
    public static BarrierHandlerOptions atLeastOnce()
    {
        return new BarrierHandlerOptions(CheckpointingMode.AT_LEAST_ONCE, false, NO_ALIGNED_TIMEOUT);
    }

    /** @return whether an aligned checkpoint switches to unaligned after {@link #alignedTimeoutNanos()}. */
    public boolean hasAlignedTimeout()
    {
        return alignedTimeoutNanos != NO_ALIGNED_TIMEOUT;
    }
}
