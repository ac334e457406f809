package io.ringflow.state.checkpoint;

import java.util.List;
import java.util.Objects;

/**
 * The state of every subtask of one operator (identified by its uid) in a checkpoint.
 *
 * @param parallelism    the operator's parallelism when the checkpoint was taken.
 * @param maxParallelism the job's number of key groups then: keyed state can only be restored with the same.
 * @param subtasks       per subtask index, what it stored; exactly {@code parallelism} entries.
 */
public record OperatorState(int parallelism, int maxParallelism, List<SubtaskState> subtasks)
{
    /**
     * @param parallelism    the operator's parallelism, positive.
     * @param maxParallelism the number of key groups, at least {@code parallelism}.
     * @param subtasks       one per subtask; copied.
     */
    public OperatorState
    {
        if (parallelism <= 0 || maxParallelism < parallelism)
        {
            throw new IllegalArgumentException("parallelism " + parallelism + " and max parallelism " +
                maxParallelism + " are inconsistent");
        }
        Objects.requireNonNull(subtasks, "subtasks");
        if (subtasks.size() != parallelism)
        {
            throw new IllegalArgumentException(subtasks.size() + " subtask states for parallelism " + parallelism);
        }
        subtasks = List.copyOf(subtasks);
    }
}
