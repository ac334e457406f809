package io.ringflow.engine.channel;

/**
 * Receives the slots of a {@link ChannelReader#poll}, on the consumer thread.
 */
@FunctionalInterface
public interface SlotHandler
{
    /**
     * @param slot a published slot; valid only during this call.
     * @return true to go on reading this channel in this poll, false to stop after this slot (e.g. after a barrier,
     *     so the task can decide whether the channel is blocked).
     */
    boolean onSlot(Slot slot);
}
