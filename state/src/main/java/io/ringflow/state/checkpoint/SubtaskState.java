package io.ringflow.state.checkpoint;

/**
 * The state one operator subtask contributed to a checkpoint. Each part is null when the subtask has none.
 *
 * @param keyed    its keyed state, in the backend-independent keyed snapshot format, organised by key group.
 * @param operator its operator state (what a {@code CheckpointedFunction} stored).
 * @param channels the in-flight records of its task's input channels (unaligned checkpoints), for the chain head.
 */
public record SubtaskState(StateHandle keyed, StateHandle operator, StateHandle channels)
{
    /** A subtask with no state at all. */
    public static final SubtaskState EMPTY = new SubtaskState(null, null, null);

    /** @return whether every part is absent. */
    public boolean isEmpty()
    {
        return keyed == null && operator == null && channels == null;
    }
}
