package io.ringflow.state.keyed;

/**
 * Maps keys to key groups and key groups to subtasks.
 *
 * <p>Every key belongs to exactly one of {@code maxParallelism} key groups, fixed for the life of a job and its
 * savepoints. A subtask owns a contiguous range of key groups, so state can later be split or merged by key group
 * when a job is restored at another parallelism. The assignment is a pure function of the key's {@link #stableHashCode}: it must
 * never change between versions, or restored state would be looked up in the wrong subtask.
 */
public final class KeyGroups
{
    /** Maximum parallelism used when a job does not set one. */
    public static final int DEFAULT_MAX_PARALLELISM = 128;

    /** Largest maximum parallelism accepted (same bound as Flink's, 2^15). */
    public static final int UPPER_BOUND_MAX_PARALLELISM = 1 << 15;

    private KeyGroups()
    {
    }

    /**
     * @param key            a non-null key.
     * @param maxParallelism the number of key groups.
     * @return the key group of {@code key}, in {@code [0, maxParallelism)}.
     */
    public static int keyGroupOf(final Object key, final int maxParallelism)
    {
        return keyGroupOfHash(stableHashCode(key), maxParallelism);
    }

    /**
     * A hash code that is the same in every JVM run: {@code hashCode()}, except for enums, whose own hash code is
     * their identity, which are hashed by name.
     *
     * @param key a non-null key.
     * @return its run-independent hash code.
     */
    public static int stableHashCode(final Object key)
    {
        return key instanceof Enum<?> ? ((Enum<?>)key).name().hashCode() : key.hashCode();
    }

    /**
     * @param hashCode       the key's {@code hashCode()}.
     * @param maxParallelism the number of key groups.
     * @return the key group for that hash code, in {@code [0, maxParallelism)}.
     */
    public static int keyGroupOfHash(final int hashCode, final int maxParallelism)
    {
        final int mixed = murmurMix(hashCode);
        // the same result as floorMod, without a division for the usual power-of-two maximum
        return (maxParallelism & (maxParallelism - 1)) == 0 ? mixed & (maxParallelism - 1) :
            Math.floorMod(mixed, maxParallelism);
    }

    /**
     * @param keyGroup       a key group in {@code [0, maxParallelism)}.
     * @param maxParallelism the number of key groups.
     * @param parallelism    the operator's parallelism, at most {@code maxParallelism}.
     * @return the index of the subtask that owns {@code keyGroup}.
     */
    public static int subtaskOf(final int keyGroup, final int maxParallelism, final int parallelism)
    {
        return keyGroup * parallelism / maxParallelism;
    }

    /**
     * @param subtask        the subtask index.
     * @param maxParallelism the number of key groups.
     * @param parallelism    the operator's parallelism.
     * @return the key groups that subtask owns: the inverse of {@link #subtaskOf}.
     */
    public static KeyGroupRange rangeOf(final int subtask, final int maxParallelism, final int parallelism)
    {
        final int start = (subtask * maxParallelism + parallelism - 1) / parallelism;
        final int end = ((subtask + 1) * maxParallelism - 1) / parallelism;
        return new KeyGroupRange(start, end);
    }

    /**
     * Murmur3's 32-bit finaliser plus one round of its body: spreads hash codes such as small consecutive integers
     * across key groups.
     */
    static int murmurMix(final int hashCode)
    {
        int h = hashCode * 0xcc9e2d51;
        h = Integer.rotateLeft(h, 15);
        h *= 0x1b873593;
        h = Integer.rotateLeft(h, 13);
        h = h * 5 + 0xe6546b64;
        h ^= 4;
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }
}
