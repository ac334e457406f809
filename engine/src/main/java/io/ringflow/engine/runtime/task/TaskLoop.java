package io.ringflow.engine.runtime.task;

/**
 * A task's loop: runs work cycles (with the mailbox and the idle step between them) until the task finishes or its
 * job stops. It must only ever run in a copy that no other running task runs, or in the template on the general path.
 *
 * <p>Why a class of its own, copied for each running task ({@link TaskLoops}): this loop does not return while the job
 * runs, so the JIT compiles it on the stack (an OSR compilation) and the task thread stays in that code for good.
 * HotSpot shares a method's compiled code among the threads that run it. When one of them hits an uncommon trap in
 * it, the code is made not entrant without deoptimizing the other threads' frames in it: they stay, and HotSpot no
 * longer patches the call sites of code that is not entrant. A task thread left there keeps calling its record loop
 * through whatever entry each call site held: once the record loop is deoptimized and compiled again, that is the
 * interpreter, for the rest of the run, and every record is allocated (seen with a source's and a keyed task's
 * threads sharing this loop: docs/benchmarks.md, "Why: the record loop stranded in the interpreter"). With a copy used
 * by one running task only, a trap in the loop's code is its own thread's, which deoptimizes its own frame and comes
 * back to new code.
 *
 * <p>A template of {@link ClassCopies}: final, one constructor, no static state, no nested class. A copy is a hidden
 * class, and exception stack traces leave out hidden classes' frames by default: a failure's trace shows
 * {@code Task.cycle} called from {@code Task.run}, without this loop in between (thread dumps show it;
 * {@code -XX:+UnlockDiagnosticVMOptions -XX:+ShowHiddenFrames} puts it back in traces).
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
