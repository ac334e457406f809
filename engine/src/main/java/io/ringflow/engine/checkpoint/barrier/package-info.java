/**
 * Checkpoint barrier handling inside one task: Flink's asynchronous barrier snapshots (a Chandy-Lamport variant)
 * over ring channels.
 *
 * <p>The task owns a {@link io.ringflow.engine.checkpoint.barrier.BarrierHandler} and implements
 * {@link io.ringflow.engine.checkpoint.barrier.BarrierController}. The handler holds one protocol state; each event
 * (barrier read, barrier announced, END_OF_INPUT, timeout check, coordinator abort, close) returns the next state. States are immutable and
 * own their data; they reach the task only through the controller passed to each event.
 *
 * <pre>
 *                          WaitingForFirstBarrier  &lt;------------------------------------+
 *                                    |                                                 |
 *                       barrier n, newer than the latest                               |
 *           +------------------------+-------------------------+                       |
 *           | a savepoint (any mode);| EXACTLY_ONCE: unaligned | AT_LEAST_ONCE         |
 *           | EXACTLY_ONCE: aligned, | without a timeout       | (not a savepoint)     |
 *           | or with a timeout      |                         |                       |
 *           v                        v                         v                       |
 *    AligningBarriers  --------&gt; RecordingChannels         TrackingBarriers            |
 *    blocks each channel  timeout  snapshot + forward at    nothing blocked            |
 *    whose barrier arrived         once; records the live                              |
 *                                  channels missing theirs                             |
 *           |                        |                         |                       |
 *           +--- every live channel delivered n or ended: ----+-- complete (aligned:  -+
 *                                                                 snapshot + forward +
 *                                                                 unblock)
 *
 *   From any of the three: a newer barrier, read or announced (an announcement may arrive on a blocked channel),
 *   aborts n (SUBSUMED) and starts the newer one as if waiting; the coordinator's abort aborts n; a declined
 *   snapshot aborts n (DECLINED); back to WaitingForFirstBarrier.
 *   Every channel ended: AllChannelsEnded. close(): Closed.
 * </pre>
 *
 * <p>Rules shared by every state:
 * <ul>
 *   <li>END_OF_INPUT on a channel counts as its barrier for the checkpoint in progress and every later one, so a
 *       checkpoint can complete on it; once every channel has ended no barrier can arrive.</li>
 *   <li>Only the newest unfinished checkpoint is tracked. A barrier older than it is ignored; a newer one aborts it
 *       with {@link io.ringflow.engine.checkpoint.barrier.AbortReason#SUBSUMED}. Several checkpoints may still be in flight
 *       in the job: barriers of different checkpoints can sit in one ring.</li>
 *   <li>With one live channel, the first barrier completes the checkpoint: snapshot and forward at once.</li>
 *   <li>Aligned: blocking a channel means the task stops reading it; its records stay in the ring, nothing is
 *       copied. Unaligned: a recorded channel is still read and processed; its records up to its barrier are also
 *       stored with the checkpoint as channel state.</li>
 * </ul>
 *
 * <p>Where this departs from Flink: the alignment timeout is measured from the first barrier's arrival at this task
 * on the handler's {@link io.ringflow.engine.checkpoint.barrier.NanoClock} (Flink measures from the checkpoint's start), and
 * a switched checkpoint's barrier is not marked unaligned for downstream tasks; at-least-once also tracks only the
 * newest checkpoint (Flink's tracker keeps several).
 */
package io.ringflow.engine.checkpoint.barrier;

