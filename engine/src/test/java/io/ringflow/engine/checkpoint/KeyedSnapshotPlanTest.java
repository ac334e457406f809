package io.ringflow.engine.checkpoint;

import io.ringflow.engine.api.CheckpointConfig;
import io.ringflow.state.backend.KeyedStateStore;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;

import static org.assertj.core.api.Assertions.assertThat;

/** Which stores rewrite a slice of their state in a delta, by the configured {@link CheckpointConfig.Slices}. */
class KeyedSnapshotPlanTest
{
    @Test
    void autoRewritesSlicesOnceAStoreThatCanHoldsMillionsOfEntriesAlwaysAndNeverAsTheySay()
    {
        final long large = KeyedStateStore.SLICES_FROM_ENTRIES;
        final KeyedSnapshotPlan auto = new KeyedSnapshotPlan(null, 10, CheckpointConfig.Slices.AUTO);
        assertThat(auto.slicesFor(store(true, large))).as("auto, a large state").isTrue();
        assertThat(auto.slicesFor(store(true, large - 1))).as("auto, a smaller one").isFalse();
        assertThat(auto.slicesFor(store(false, large))).as("auto, a store that cannot").isFalse();

        final KeyedSnapshotPlan always = new KeyedSnapshotPlan(null, 10, CheckpointConfig.Slices.ALWAYS);
        assertThat(always.slicesFor(store(true, 1))).isTrue();
        assertThat(always.slicesFor(store(false, large))).isFalse();

        final KeyedSnapshotPlan never = new KeyedSnapshotPlan(null, 10, CheckpointConfig.Slices.NEVER);
        assertThat(never.slicesFor(store(true, large))).isFalse();
        assertThat(CheckpointConfig.every(java.time.Duration.ofSeconds(1)).build().slices())
            .as("the default").isEqualTo(CheckpointConfig.Slices.AUTO);
    }

    /** A store answering only whether it can rewrite slices and how many entries it holds. */
    private static KeyedStateStore store(final boolean rewritesSlices, final long entries)
    {
        return (KeyedStateStore)Proxy.newProxyInstance(KeyedStateStore.class.getClassLoader(),
            new Class<?>[] {KeyedStateStore.class}, (proxy, method, args) -> switch (method.getName())
            {
                case "rewritesSlices" -> rewritesSlices;
                case "entryCount" -> entries;
                default -> throw new UnsupportedOperationException(method.getName());
            });
    }
}
