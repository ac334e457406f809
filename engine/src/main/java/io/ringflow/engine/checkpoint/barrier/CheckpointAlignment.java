package io.ringflow.engine.checkpoint.barrier;


/**
 * How one checkpoint's barriers went through one task, reported once per completed checkpoint
 * ({@link BarrierController#allBarriersReceived}). All times are readings of the handler's {@link NanoClock}.
 *
 * <p>Invariant: {@code firstBarrierNanos <= snapshotNanos <= lastBarrierNanos}. Aligned and at-least-once:
 * {@code snapshotNanos == lastBarrierNanos}. Unaligned from the first barrier: {@code snapshotNanos ==
 * firstBarrierNanos}. Switched to unaligned by the alignment timeout: {@code snapshotNanos} is the switch.
 *
 * @param checkpointId      the checkpoint.
 * @param unaligned         whether the snapshot was unaligned (channel state was recorded).
 * @param firstBarrierNanos when its first barrier arrived at this task.
 * @param snapshotNanos     when the synchronous snapshot was taken.
 * @param lastBarrierNanos  when its last barrier (or the END_OF_INPUT standing in for it) arrived.
 */
public record CheckpointAlignment(
    long checkpointId,
    boolean unaligned,
    long firstBarrierNanos,
    long snapshotNanos,
    long lastBarrierNanos)
{
    /** @return the alignment duration statistic: how long records waited in blocked channels for the snapshot. */
    public long alignmentDurationNanos()
    {
        return snapshotNanos - firstBarrierNanos;
    }

    /** @return how long channels were recorded as channel state after an unaligned snapshot; 0 when aligned. */
    public long recordingDurationNanos()
    {
        return lastBarrierNanos - snapshotNanos;
    }
}
