package io.ringflow.engine.runtime.task;

/**
 * A message to a task, posted by any thread into its mailbox and run by the task on its own thread at the start of
 * its next work cycle, in the order posted. One per checkpoint outcome, never per record.
 */
public sealed interface TaskMail permits TaskMail.CheckpointComplete, TaskMail.CheckpointAborted
{
    /** @param checkpointId a checkpoint every task acknowledged and the storage committed. */
    record CheckpointComplete(long checkpointId) implements TaskMail
    {
    }

    /** @param checkpointId a checkpoint that will not complete: undo what the task holds for it. */
    record CheckpointAborted(long checkpointId) implements TaskMail
    {
    }
}
