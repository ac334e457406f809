package io.ringflow.engine.checkpoint;

import io.ringflow.engine.api.CheckpointingMode;
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
public record CheckpointBarrier(long checkpointId, long timestampMillis, Kind kind)
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

    /**
     * What the barrier asks for. The {@link #code()} is the BARRIER payload's type field.
     */
    public enum Kind
    {
        /** A checkpoint: handled as the task's {@link BarrierHandlerOptions} say. */
        CHECKPOINT(0),

        /**
         * A savepoint. In {@link CheckpointingMode#EXACTLY_ONCE} it is always aligned, even when unaligned
         * checkpoints are enabled, and an alignment timeout never switches it to unaligned: a savepoint carries no
         * channel state, so it can be restored into a changed job (as in Flink). In
         * {@link CheckpointingMode#AT_LEAST_ONCE} it is handled like a checkpoint.
         */
        SAVEPOINT(1);

        private final int code;

        Kind(final int code)
        {
            this.code = code;
        }

        /** @return the value of the BARRIER payload's type field for this kind. */
        public int code()
        {
            return code;
        }

        /**
         * @param code a BARRIER payload's type field.
         * @return the kind it stands for.
         * @throws IllegalArgumentException for an unknown code.
         */
        public static Kind fromCode(final int code)
        {
            return switch (code)
            {
                case 0 -> CHECKPOINT;
                case 1 -> SAVEPOINT;
                default -> throw new IllegalArgumentException(
                    "unknown barrier type " + code + ": 0 is CHECKPOINT, 1 is SAVEPOINT");
            };
        }
    }
}
