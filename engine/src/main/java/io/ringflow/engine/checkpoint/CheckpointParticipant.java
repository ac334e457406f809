package io.ringflow.engine.checkpoint;

/**
 * One task of the job as its {@link CheckpointCoordinator} sees it: every task acknowledges every checkpoint (or
 * finishes); a source task's acknowledgement carries its position, the cut. Implemented by the tasks.
 *
 * <p>Thread contract: the values are fixed before the job starts; any thread may read them.
 */
public interface CheckpointParticipant
{
    /** @return the task's index in its job, from 0, dense. */
    int index();

    /** @return the task's name, for messages: its chain's operators and the subtask. */
    String name();

    /**
     * @return for a source task, which source subtask it is (its position goes into the checkpoint under that
     *     operator's uid); null for any other task.
     */
    SourceSubtask source();

    /**
     * A source subtask.
     *
     * @param uid         the source operator's uid.
     * @param subtask     the subtask index.
     * @param parallelism the source's parallelism.
     */
    record SourceSubtask(String uid, int subtask, int parallelism)
    {
    }
}
