package io.ringflow.engine.checkpoint.barrier;


/**
 * Why a task's barrier handler gave up a checkpoint it had started ({@link BarrierController#abortCheckpoint}).
 */
public enum AbortReason
{
    /**
     * A barrier of a newer checkpoint arrived, or the coordinator aborted a newer one, before every barrier of this
     * one was in. A task tracks only its newest checkpoint. Flink's {@code CHECKPOINT_DECLINED_SUBSUMED}.
     */
    SUBSUMED,

    /** The task declined the synchronous snapshot: {@link BarrierController#snapshotState} returned false. */
    DECLINED,

    /**
     * The coordinator aborted this checkpoint (its timeout, or a decline in another task) and the task passed the
     * notification on through {@link BarrierHandler#checkpointAborted(long)}.
     */
    ABORTED_BY_COORDINATOR,

    /** The task closed its handler ({@link BarrierHandler#close()}) while the checkpoint was in progress. */
    TASK_CLOSING
}
