package io.ringflow.state.checkpoint;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * In-memory retention against a model of its rule, over seeded random runs long enough to hold dozens of checkpoints
 * at once (many retained, savepoints, pinned ones, commits overtaking a prune, aborted checkpoints): after every
 * operation the stored ids, and what each reads back, are the model's.
 */
class InMemoryRetentionModelTest
{
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 20261207})
    void storedCheckpointsAreExactlyWhatTheRetentionRuleKeeps(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final InMemoryCheckpointStorage storage = new InMemoryCheckpointStorage();
        // the model: stored id -> whether it is a savepoint
        final TreeMap<Long, Boolean> model = new TreeMap<>();
        final List<Long> committedNotPruned = new ArrayList<>();
        long nextId = 1;
        for (int step = 0; step < 3_000; step++)
        {
            final int retained = 1 + random.nextInt(random.nextInt(10) == 0 ? 40 : 4);
            switch (random.nextInt(6))
            {
                case 0, 1, 2 ->
                {
                    // commit a checkpoint (a savepoint now and then); its prune may come later
                    final long id = nextId++;
                    final boolean savepoint = random.nextInt(12) == 0;
                    storage.commit(metadata(id, savepoint));
                    model.put(id, savepoint);
                    committedNotPruned.add(id);
                }
                case 3, 4 ->
                {
                    if (committedNotPruned.isEmpty())
                    {
                        continue;
                    }
                    // the prune of a committed checkpoint, maybe after newer ones were committed; some pinned
                    final long newest = committedNotPruned.remove(random.nextInt(committedNotPruned.size()));
                    final Set<Long> pinned = new HashSet<>();
                    for (final long id : model.keySet())
                    {
                        if (random.nextInt(8) == 0)
                        {
                            pinned.add(id);
                        }
                    }
                    storage.prune(newest, retained, pinned);
                    prune(model, newest, retained, pinned);
                }
                default ->
                {
                    // a checkpoint aborted after writing: nothing stored changes
                    final long id = nextId++;
                    storage.discardPending(id);
                }
            }
            // not after every step: a listing's walk must not be what prepares the prune's
            if (random.nextInt(4) == 0)
            {
                assertThat(storage.checkpointIds()).as("seed %d, step %d", seed, step)
                    .containsExactlyElementsOf(model.keySet());
            }
        }
        assertThat(storage.checkpointIds()).containsExactlyElementsOf(model.keySet());
        for (final Map.Entry<Long, Boolean> stored : model.entrySet())
        {
            assertThat(storage.load(stored.getKey())).isEqualTo(metadata(stored.getKey(), stored.getValue()));
        }
    }

    /** The rule: below the newest, savepoints stay, the next retained - 1 stay, and the others go unless pinned. */
    private static void prune(final TreeMap<Long, Boolean> model, final long newest, final int retained,
        final Set<Long> pinned)
    {
        int keep = Math.max(1, retained) - 1;
        for (final Long id : new ArrayList<>(model.headMap(newest, false).descendingKeySet()))
        {
            if (model.get(id))
            {
                continue;
            }
            if (keep > 0)
            {
                keep--;
            }
            else if (!pinned.contains(id))
            {
                model.remove(id);
            }
        }
    }

    private static CheckpointMetadata metadata(final long id, final boolean savepoint)
    {
        return new CheckpointMetadata(id, 1_700_000_000_000L + id, savepoint, Map.of("source", List.of(id)),
            Map.of());
    }
}
