package io.ringflow.state.checkpoint;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The state one operator subtask contributed to a checkpoint. Each single part is null when the subtask has none.
 *
 * <p>Keyed state is a chain: {@code keyed} is its base, a full keyed snapshot, and {@code keyedIncrements} are delta
 * files applied on top of it in list order (oldest first). Invariant: increments exist only on top of a base. The
 * files of a chain usually are shared handles, written by earlier checkpoints and referenced again by this one.
 *
 * @param keyed           the base of its keyed state chain: a full snapshot in the backend-independent keyed snapshot
 *                        format, organised by key group; null when the subtask has no keyed state.
 * @param keyedIncrements the delta files of its keyed state chain, oldest first, applied in that order on top of
 *                        {@code keyed}; never null, immutable, empty unless {@code keyed} is present.
 * @param operator        its operator state (what a {@code CheckpointedFunction} stored).
 * @param channels        the in-flight records of its task's input channels (unaligned checkpoints), for the chain
 *                        head.
 */
public record SubtaskState(StateHandle keyed, List<StateHandle> keyedIncrements, StateHandle operator,
    StateHandle channels)
{
    /** A subtask with no state at all. */
    public static final SubtaskState EMPTY = new SubtaskState(null, null, null);

    /**
     * @param keyed           the chain's base, or null.
     * @param keyedIncrements the chain's deltas, oldest first; not null, no null element; copied.
     * @param operator        the operator state, or null.
     * @param channels        the channel state, or null.
     * @throws IllegalArgumentException when there are increments but no base.
     */
    public SubtaskState
    {
        Objects.requireNonNull(keyedIncrements, "keyedIncrements (use an empty list for none)");
        for (int i = 0; i < keyedIncrements.size(); i++)
        {
            if (keyedIncrements.get(i) == null)
            {
                throw new IllegalArgumentException("keyed increment " + i + " is null");
            }
        }
        if (keyed == null && !keyedIncrements.isEmpty())
        {
            throw new IllegalArgumentException(keyedIncrements.size() + " keyed increments without a keyed base " +
                "(first: " + keyedIncrements.get(0).name() + ")");
        }
        keyedIncrements = List.copyOf(keyedIncrements);
    }

    /**
     * A subtask whose keyed state, if any, is a single full snapshot (no increments).
     *
     * @param keyed    its keyed state, or null.
     * @param operator its operator state, or null.
     * @param channels its channel state, or null.
     */
    public SubtaskState(final StateHandle keyed, final StateHandle operator, final StateHandle channels)
    {
        this(keyed, List.of(), operator, channels);
    }

    /** @return whether every part is absent. */
    public boolean isEmpty()
    {
        return keyed == null && operator == null && channels == null;
    }

    /**
     * @return the keyed state chain in the order it is applied: the base, then each increment, oldest first; empty
     *     when the subtask has no keyed state. Immutable.
     */
    public List<StateHandle> keyedChain()
    {
        if (keyed == null)
        {
            return List.of();
        }
        final List<StateHandle> chain = new ArrayList<>(1 + keyedIncrements.size());
        chain.add(keyed);
        chain.addAll(keyedIncrements);
        return List.copyOf(chain);
    }
}
