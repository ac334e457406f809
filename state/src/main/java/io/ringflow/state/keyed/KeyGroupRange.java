package io.ringflow.state.keyed;

/**
 * An inclusive range of key groups owned by one subtask. Empty when {@code end < start}.
 *
 * @param start first key group, inclusive.
 * @param end   last key group, inclusive.
 */
public record KeyGroupRange(int start, int end)
{
    /**
     * @param keyGroup a key group.
     * @return whether this range owns it.
     */
    public boolean contains(final int keyGroup)
    {
        return keyGroup >= start && keyGroup <= end;
    }

    /**
     * @return how many key groups the range holds.
     */
    public int size()
    {
        return Math.max(0, end - start + 1);
    }
}
