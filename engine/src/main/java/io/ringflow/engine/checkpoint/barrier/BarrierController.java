package io.ringflow.engine.checkpoint.barrier;

import io.ringflow.engine.api.CheckpointingMode;

/**
 * What a {@link BarrierHandler} makes its task do. The task implements it; the handler's states are its only
 * callers.
 *
 * <p><b>Thread contract.</b> Every method is called on the task thread, from inside one of the handler's event
 * methods, and must not call an event method back ({@code IllegalStateException}). While a callback runs, the
 * handler's queries ({@link BarrierHandler#isBlocked}, {@link BarrierHandler#isRecording}) still answer as before the
 * event; they answer for the new state once the event method has returned.
 *
 * <p><b>Errors.</b> Callbacks are assumed not to throw. To decline a checkpoint without failing the task,
 * {@link #snapshotState} returns false. Any exception propagates out of the handler's event method and leaves the
 * handler unusable: the task is expected to fail.
 *
 * <p><b>Order of calls within one event</b>, for checkpoint {@code n}:
 * <ul>
 *   <li>aligned or at-least-once completion: {@code snapshotState(n, false)}, {@code forwardBarrier(n, false)},
 *       {@code unblockAllChannels()} (aligned, when a channel was blocked), {@code allBarriersReceived(n)};</li>
 *   <li>unaligned, on its first barrier: {@code snapshotState(n, true)}, {@code forwardBarrier(n, true)},
 *       {@code startRecordingChannel(c, n)} for each other live channel in ascending order, and
 *       {@code allBarriersReceived(n)} at once if there is none;</li>
 *   <li>alignment timeout: {@code snapshotState(n, true)}, {@code forwardBarrier(n, true)},
 *       {@code unblockAllChannels()}, {@code startRecordingChannel(c, n)} for each live channel still missing its
 *       barrier, ascending;</li>
 *   <li>abort: first {@code unblockAllChannels()} or {@code stopRecordingChannel(c, n)} for each recording channel,
 *       ascending, then {@code abortCheckpoint(n, reason)}; when a newer barrier caused it, the newer checkpoint's
 *       calls follow;</li>
 *   <li>declined snapshot ({@code snapshotState} returned false): no forward; {@code unblockAllChannels()} if a
 *       channel was blocked; {@code abortCheckpoint(n, DECLINED)}.</li>
 * </ul>
 *
 * <p><b>Invariants the handler keeps.</b> For every checkpoint it starts, exactly one of {@link #allBarriersReceived}
 * or {@link #abortCheckpoint} is called, once. {@link #snapshotState} is called at most once per checkpoint, never
 * after its abort, and {@link #forwardBarrier} immediately follows every snapshot taken. Every
 * {@link #startRecordingChannel} is matched by one {@link #stopRecordingChannel} before the checkpoint completes or
 * is aborted. {@link #blockChannel} is never called for a blocked channel, {@link #unblockAllChannels} only when a
 * channel is blocked, and neither in {@link CheckpointingMode#AT_LEAST_ONCE}.
 */
public interface BarrierController
{
    /**
     * Stop reading {@code channel}: its barrier for the checkpoint being aligned has arrived. Its records stay in
     * its ring (that is the back-pressure) until {@link #unblockAllChannels()}. The handler's
     * {@link BarrierHandler#isBlocked(int)} answers the same, so a task that asks it before every poll may ignore
     * this call.
     *
     * @param channel the input channel, 0-based.
     */
    void blockChannel(int channel);

    /** Read every channel that has not ended again: the alignment is over (completed, switched or aborted). */
    void unblockAllChannels();

    /**
     * Take the synchronous part of the task's snapshot for {@code barrier}: operator state as of now, plus, when
     * {@code unaligned}, the start of the checkpoint's channel state (records follow through
     * {@link #startRecordingChannel}). Nothing read after this call belongs to the snapshot. When an announced barrier
     * ({@link BarrierHandler#barrierAnnounced}) starts the checkpoint, the records still unread in front of its slot
     * on the announcing channel were overtaken: the task copies them into the channel state itself (the handler
     * never sees records), here, as it does for the overtaken records of every later announcement of the checkpoint.
     *
     * @param barrier   the checkpoint; its first barrier to arrive here.
     * @param unaligned whether channel state will be recorded for it.
     * @return true when the snapshot was taken; false when the task declines the checkpoint (the handler then
     *         aborts it with {@link AbortReason#DECLINED} and does not forward it; reporting the decline to the
     *         coordinator is the task's business).
     */
    boolean snapshotState(CheckpointBarrier barrier, boolean unaligned);

    /**
     * Send {@code barrier} on every output, right after the snapshot. When {@code unaligned}, the barrier may
     * overtake output the task has queued but downstream has not consumed; output it overtakes belongs to the
     * checkpoint's channel state.
     *
     * @param barrier   the checkpoint.
     * @param unaligned whether the snapshot just taken was unaligned.
     */
    void forwardBarrier(CheckpointBarrier barrier, boolean unaligned);

    /**
     * From now on, every record the task reads from {@code channel} is in flight across checkpoint
     * {@code checkpointId}'s cut (Chandy-Lamport's recorded channel messages): the task processes it as usual and
     * also stores it in the checkpoint's channel state for this channel, until {@link #stopRecordingChannel}.
     * {@link BarrierHandler#isRecording(int)} answers the same.
     *
     * @param channel      the input channel, 0-based.
     * @param checkpointId the unaligned checkpoint whose channel state the records go to.
     */
    void startRecordingChannel(int channel, long checkpointId);

    /**
     * Stop recording {@code channel}: its barrier of {@code checkpointId} or its END_OF_INPUT has arrived (its channel
     * state is complete), or the checkpoint is being aborted (the call comes right before
     * {@link #abortCheckpoint}).
     *
     * @param channel      the input channel, 0-based.
     * @param checkpointId the checkpoint recording stops for.
     */
    void stopRecordingChannel(int channel, long checkpointId);

    /**
     * The handler gave up a checkpoint it had started: discard its channel state and anything else pending for it.
     * Any blocking and recording for it has already been undone.
     *
     * @param checkpointId the checkpoint.
     * @param reason       why.
     */
    void abortCheckpoint(long checkpointId, AbortReason reason);

    /**
     * Every channel has delivered the checkpoint's barrier or ended, after its snapshot was taken and forwarded: the
     * task's input side of the checkpoint is complete (for an unaligned one, its channel state is final). Carries
     * the statistics of the alignment.
     *
     * @param alignment the checkpoint and its barrier timings.
     */
    void allBarriersReceived(CheckpointAlignment alignment);
}
