package io.ringflow.engine.channel;

/**
 * An unaligned checkpoint barrier announced ahead of the data: the producer publishes it on the channel as soon as it
 * forwards the barrier, so the consumer can act on it before it has read the records queued in front of it (the
 * barrier overtakes them). {@code sequence} is where the barrier's own slot is in the ring: every record at a lower
 * sequence is before the barrier, every record at a higher one after it.
 *
 * <p>Immutable; published through a volatile reference, so reading the reference gives a consistent announcement and
 * makes every slot below {@code sequence} visible (the producer published them before announcing).
 *
 * @param checkpointId the checkpoint.
 * @param kind         checkpoint or savepoint.
 * @param timestamp    trigger time, epoch ms.
 * @param sequence     the ring sequence of the barrier's slot.
 */
public record BarrierAnnouncement(long checkpointId, BarrierKind kind, long timestamp, long sequence)
{
}
