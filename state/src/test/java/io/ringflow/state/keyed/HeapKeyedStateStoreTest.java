package io.ringflow.state.keyed;

import io.ringflow.state.heap.HeapKeyedStateStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The heap store against a plain map, under seeded random operations: keys of two types, values including the
 * primitive map's absent marker, updates to null and clears. Both the unboxed {@code Long} path and the general path
 * must behave exactly like the model.
 */
class HeapKeyedStateStoreTest
{
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {3, 17, 20261130})
    void valueStatesBehaveLikeAMapPerKey(final long seed)
    {
        final HeapKeyedStateStore store = new HeapKeyedStateStore();
        final ValueState<Long> longs = store.getValueState(new ValueStateDescriptor<>("longs", Long.class, -1L));
        final ValueState<String> strings = store.getValueState(new ValueStateDescriptor<>("strings", String.class));
        final Map<Object, Long> longModel = new HashMap<>();
        final Map<Object, String> stringModel = new HashMap<>();
        final Random random = new Random(seed);
        for (int op = 0; op < 50_000; op++)
        {
            final Object key = random.nextBoolean() ? (Object)(long)random.nextInt(200) : "k" + random.nextInt(50);
            store.setCurrentKey(key);
            final String where = "seed " + seed + ", op " + op + ", key " + key;
            switch (random.nextInt(6))
            {
                case 0:
                {
                    final long value = random.nextInt(10) == 0 ? Long.MIN_VALUE : random.nextLong();
                    longs.update(value);
                    longModel.put(key, value);
                    break;
                }
                case 1:
                    longs.update(null);
                    longModel.remove(key);
                    break;
                case 2:
                    longs.clear();
                    longModel.remove(key);
                    break;
                case 3:
                {
                    final String value = "v" + random.nextInt();
                    strings.update(value);
                    stringModel.put(key, value);
                    break;
                }
                case 4:
                    strings.clear();
                    stringModel.remove(key);
                    break;
                default:
                    break;
            }
            assertThat(longs.value()).as(where).isEqualTo(longModel.getOrDefault(key, -1L));
            assertThat(strings.value()).as(where).isEqualTo(stringModel.get(key));
        }
        assertThat(store.entryCount()).as("seed %d", seed).isEqualTo(longModel.size() + stringModel.size());
    }
}
