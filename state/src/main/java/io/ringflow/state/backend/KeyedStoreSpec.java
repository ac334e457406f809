package io.ringflow.state.backend;

import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.keyed.KeyGroupRange;

import java.util.Objects;

/**
 * What one keyed store is for, as the engine asks a {@link StateBackend} for it.
 *
 * @param owner          the operator subtask, for messages, e.g. {@code "operator 'count' (uid count, subtask 0 of 2)"}.
 * @param codecs         codecs for keys, values and the state types the user declares.
 * @param maxParallelism the job's number of key groups.
 * @param keyGroups      the key groups the subtask owns.
 * @param trackChanges   whether the store should track changed keys, for incremental snapshots or local recovery
 *                       (the job uses them); a backend that cannot ignores it, takes full snapshots and is restored
 *                       in full.
 */
public record KeyedStoreSpec(
    String owner, CodecRegistry codecs, int maxParallelism, KeyGroupRange keyGroups, boolean trackChanges)
{
    /** Checks that nothing is missing. */
    public KeyedStoreSpec
    {
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(codecs, "codecs");
        Objects.requireNonNull(keyGroups, "keyGroups");
    }
}
