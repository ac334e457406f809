package io.ringflow.engine.runtime.task;

/**
 * Unwinds a task thread when the job stops while the task is waiting (e.g. on a full ring). A stackless singleton:
 * it carries no information and is never reported.
 */
final class TaskCancelledException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    static final TaskCancelledException INSTANCE = new TaskCancelledException();

    private TaskCancelledException()
    {
        super("task cancelled", null, false, false);
    }
}
