package io.ringflow.state.chronicle;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The order a front's counters are written in: {@link FrontOverlay#scatterByKeyGroup} puts every entry in its key
 * group's region, keeps the gathering order within a group, and touches nothing past {@code size} (the arrays come
 * from a pool and are longer than the run, with an earlier snapshot's entries in their tails).
 */
class KeyGroupScatterTest
{
    @ParameterizedTest(name = "{0} entries over {1} key groups, seed {2}")
    @CsvSource({"0, 128, 1", "1, 1, 2", "1000, 1, 3", "1000, 7, 4", "100000, 128, 5", "5000, 32768, 6"})
    void everyEntryLandsInItsGroupsRegionInTheOrderItWasGathered(final int size, final int groupCount,
        final long seed)
    {
        final Random random = new Random(seed);
        final int capacity = size + random.nextInt(64);
        final long[] keys = new long[capacity];
        final long[] values = new long[capacity];
        final char[] groups = new char[capacity];
        final int[] groupStarts = new int[groupCount + 1];
        for (int i = 0; i < capacity; i++)
        {
            keys[i] = random.nextLong();
            values[i] = i;
            // a skewed spread: some groups empty, some crowded
            groups[i] = (char)(random.nextBoolean() ? random.nextInt(groupCount) :
                random.nextInt(Math.max(1, groupCount / 4)));
            if (i < size)
            {
                groupStarts[groups[i] + 1]++;
            }
        }
        for (int g = 1; g <= groupCount; g++)
        {
            groupStarts[g] += groupStarts[g - 1];
        }
        final long[] sortedKeys = new long[capacity];
        final long[] sortedValues = new long[capacity];
        Arrays.fill(sortedKeys, size, capacity, 42L);
        Arrays.fill(sortedValues, size, capacity, -42L);

        FrontOverlay.scatterByKeyGroup(keys, values, groups, size, groupStarts, sortedKeys, sortedValues);

        // the model: the gathered entries stably sorted by group
        final List<Integer> order = new ArrayList<>();
        for (int i = 0; i < size; i++)
        {
            order.add(i);
        }
        order.sort(Comparator.comparingInt(i -> groups[i]));
        for (int at = 0; at < size; at++)
        {
            final int from = order.get(at);
            assertThat(sortedKeys[at]).as("seed %d, position %d", seed, at).isEqualTo(keys[from]);
            assertThat(sortedValues[at]).as("seed %d, position %d", seed, at).isEqualTo(values[from]);
            assertThat(at).isGreaterThanOrEqualTo(groupStarts[groups[from]]).isLessThan(groupStarts[groups[from] + 1]);
        }
        for (int at = size; at < capacity; at++)
        {
            assertThat(sortedKeys[at]).isEqualTo(42L);
            assertThat(sortedValues[at]).isEqualTo(-42L);
        }
    }
}
