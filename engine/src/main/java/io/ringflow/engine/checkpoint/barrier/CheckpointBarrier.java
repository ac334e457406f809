package io.ringflow.engine.checkpoint.barrier;

import io.ringflow.engine.channel.BarrierKind;

import java.util.Objects;

/**
 * A barrier of one checkpoint, as decoded from a BARRIER slot ({@code io.ringflow.engine.channel.SlotDescriptor}:
 * checkpoint id, barrier type, trigger time). The task creates one per barrier slot it reads, never one per record.
 *
 * <p>Along one channel barrier ids strictly increase, but a channel may skip ids (a source skips checkpoints that
 * are requested faster than its cycles). Barriers of one checkpoint carry the same id and kind on every channel;
 * their timestamps may differ, because each source stamps its own.
 *
 * @param checkpointId    the checkpoint or savepoint; positive.
 * @param timestampMillis when it was triggered, epoch ms. Informational: used for statistics, never compared.
 * @param kind            checkpoint or savepoint.
 */
public record CheckpointBarrier(long checkpointId, long timestampMillis, BarrierKind kind)
{
    /**
     * @throws IllegalArgumentException if {@code checkpointId} is not positive.
     * @throws NullPointerException     if {@code kind} is null.
     */
    public CheckpointBarrier
    {
        if (checkpointId <= 0)
        {
            throw new IllegalArgumentException("checkpointId must be positive, got " + checkpointId);
        }
        Objects.requireNonNull(kind, "kind");
    }
}
