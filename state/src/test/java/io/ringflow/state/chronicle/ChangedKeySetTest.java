package io.ringflow.state.chronicle;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class ChangedKeySetTest
{
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4})
    void recordsEachKeyOnceFindsItAndIteratesInRecordingOrderAsALinkedHashSet(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final ChangedKeySet set = new ChangedKeySet();
        final LinkedHashSet<PreservedKey> model = new LinkedHashSet<>();
        final List<PreservedKey> recorded = new ArrayList<>();
        // lengths from 0 to past one stop-bit byte, few enough distinct short keys that repeats are common
        for (int op = 0; op < 50_000; op++)
        {
            final PreservedKey key;
            if (!recorded.isEmpty() && random.nextInt(3) == 0)
            {
                key = recorded.get(random.nextInt(recorded.size()));
            }
            else
            {
                final byte[] bytes = new byte[random.nextInt(10) == 0 ? 100 + random.nextInt(200) : random.nextInt(12)];
                for (int i = 0; i < bytes.length; i++)
                {
                    bytes[i] = (byte)random.nextInt(4);
                }
                key = PreservedKey.of(bytes);
            }
            final boolean added = random.nextBoolean() ? set.add(key) :
                set.record(key.bytes(), key.length(), key.hashCode()) && set.size() > model.size();
            assertThat(added).as("op %d: new key", op).isEqualTo(model.add(key));
            recorded.add(key);
            final PreservedKey probe = recorded.get(random.nextInt(recorded.size()));
            assertThat(set.contains(probe)).isTrue();
        }

        assertThat(set).hasSameSizeAs(model);
        assertThat(new ArrayList<>(set)).containsExactlyElementsOf(model);
        final byte[] absent = new byte[13];
        assertThat(set.contains(PreservedKey.of(absent))).isFalse();
        assertThat(set.contains("not a key")).isFalse();
    }

    @org.junit.jupiter.api.Test
    void aTenByteKeyTakesAboutAFifthOfWhatAHashSetOfPreservedKeysTakes()
    {
        final ChangedKeySet set = new ChangedKeySet();
        final int keys = 1 << 20;
        final byte[] key = new byte[10];
        for (int i = 0; i < keys; i++)
        {
            java.nio.ByteBuffer.wrap(key).putShort((short)(i & 127)).putLong(i);
            set.record(key, key.length, PreservedKey.hash(key, key.length));
        }

        assertThat(set).hasSize(keys);
        // 11 bytes of arena (arrays double: up to twice that) and 12 to 24 of table, against some 100 in a HashSet
        assertThat(set.memoryBytes()).isLessThanOrEqualTo(48L * keys);
    }
}
