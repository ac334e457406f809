package io.ringflow.engine.runtime.task;

/**
 * A task's loop: work cycles, each followed by an idle step when it found nothing, until the task finishes or its job
 * stops; messages first, then either the cycle of a task awaiting its output's commit or a plain work cycle.
 *
 * <p>Why a class of its own, copied for each running task ({@link TaskLoops}): this loop does not return while the job
 * runs, so the JIT compiles it on the stack (an OSR compilation) and the task thread stays in that code for good.
 * HotSpot shares a method's compiled code among the threads that run it. When one of them hits an uncommon trap in
 * it, the code is made not entrant: that thread leaves it, but the other threads' frames stay in it, and HotSpot no
 * longer updates the call sites of code that is not entrant. A task thread left there keeps calling its record loop
 * through whatever entry each call site held: once the record loop is deoptimized and compiled again, that is the
 * interpreter, for the rest of the run, and every record is allocated (seen with a source's and a keyed task's
 * threads sharing this loop: docs/benchmarks.md, "Why: the record loop stranded in the interpreter"). With a copy used
 * by one running task only, a trap in the loop's code is its own thread's, which deoptimizes its own frame and comes
 * back to new code.
 *
 * <p>A template of {@link ClassCopies}: final, one constructor, no static state, no nested class.
 *
 * <p>Thread contract: the task thread only, from {@link Task#run()}.
 */
final class TaskLoop implements Task.Loop
{
    private final Task task;

    TaskLoop(final Task task)
    {
        this.task = task;
    }

    @Override
    public void run() throws Exception
    {
        final Task task = this.task;
        while (!task.finished)
        {
            if (task.host.isStopping())
            {
                break;
            }
            if (task.hasMail())
            {
                task.runMailbox();
            }
            if (task.awaitingCommit)
            {
                final int work = task.awaitCommit();
                if (!task.finished)
                {
                    task.idle(work);
                }
                continue;
            }
            final int work = task.cycle();
            if (!task.finished)
            {
                task.idle(work);
            }
        }
    }
}
