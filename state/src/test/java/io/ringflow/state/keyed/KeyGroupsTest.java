package io.ringflow.state.keyed;

import io.ringflow.state.heap.HeapKeyedStateStore;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class KeyGroupsTest
{
    enum Color
    {
        RED, GREEN
    }

    @Test
    void rangesOfAllSubtasksPartitionTheKeyGroupsAndInvertSubtaskOf()
    {
        for (final int maxParallelism : new int[] {1, 7, 128, 1000})
        {
            for (int parallelism = 1; parallelism <= Math.min(maxParallelism, 40); parallelism++)
            {
                int next = 0;
                for (int subtask = 0; subtask < parallelism; subtask++)
                {
                    final KeyGroupRange range = KeyGroups.rangeOf(subtask, maxParallelism, parallelism);
                    assertThat(range.start()).as("max %d p %d s %d", maxParallelism, parallelism, subtask)
                        .isEqualTo(next);
                    for (int keyGroup = range.start(); keyGroup <= range.end(); keyGroup++)
                    {
                        assertThat(KeyGroups.subtaskOf(keyGroup, maxParallelism, parallelism)).isEqualTo(subtask);
                    }
                    next = range.end() + 1;
                }
                assertThat(next).isEqualTo(maxParallelism);
            }
        }
    }

    @Test
    void keyGroupsStayInRangeAndSpreadConsecutiveKeys()
    {
        final int maxParallelism = 128;
        final int[] hits = new int[maxParallelism];
        final Random random = new Random(7);
        for (int i = 0; i < 128_000; i++)
        {
            final long key = i % 2 == 0 ? i : random.nextLong();
            final int keyGroup = KeyGroups.keyGroupOf(key, maxParallelism);
            assertThat(keyGroup).isBetween(0, maxParallelism - 1);
            hits[keyGroup]++;
        }
        for (final int count : hits)
        {
            // 1000 expected per group; a broken mix (e.g. identity) would leave groups empty or doubled
            assertThat(count).isBetween(800, 1200);
        }
    }

    @Test
    void enumKeysHashByNameSoTheirKeyGroupIsTheSameInEveryRun()
    {
        assertThat(KeyGroups.stableHashCode(Color.RED)).isEqualTo("RED".hashCode());
        assertThat(KeyGroups.keyGroupOf(Color.GREEN, 128)).isEqualTo(KeyGroups.keyGroupOfHash("GREEN".hashCode(), 128));
    }

    @Test
    void heapStoreScopesValuesToTheCurrentKeyAndRejectsARedeclarationWithAnotherType()
    {
        final HeapKeyedStateStore store = new HeapKeyedStateStore();
        final ValueState<Long> count = store.getValueState(new ValueStateDescriptor<>("count", Long.class, 0L));
        store.setCurrentKey("a");
        count.update(count.value() + 5);
        store.setCurrentKey("b");
        assertThat(count.value()).isZero();
        count.update(1L);
        store.setCurrentKey("a");
        assertThat(count.value()).isEqualTo(5L);
        count.clear();
        assertThat(count.value()).isZero();
        assertThat(store.entryCount()).isEqualTo(1);
        assertThat(store.getValueState(new ValueStateDescriptor<>("count", Long.class))).isSameAs(count);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> store.getValueState(new ValueStateDescriptor<>("count", String.class)))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("'count'")
            .hasMessageContaining("java.lang.Long")
            .hasMessageContaining("java.lang.String");
    }

    @Test
    void thePowerOfTwoShortcutAgreesWithFloorMod()
    {
        final Random random = new Random(11);
        for (int i = 0; i < 100_000; i++)
        {
            final int hash = random.nextInt();
            for (final int max : new int[] {1, 2, 64, 128, 1 << 15})
            {
                assertThat(KeyGroups.keyGroupOfHash(hash, max))
                    .isEqualTo(Math.floorMod(KeyGroups.murmurMix(hash), max));
            }
        }
    }
}
