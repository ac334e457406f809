package io.ringflow.state.snapshot;

import io.ringflow.state.codec.CodecBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link MergedValues} against a map model, seeded: keys and values of many lengths in three states, set, set again
 * and removed in random order, far past the first sizes of the arena and the table; the arrays reused after
 * {@link MergedValues#clear}.
 */
class MergedValuesTest
{
    private static final HexFormat HEX = HexFormat.of();

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 97, 20_261_206})
    void holdsEachKeysLastValueOnceAndKnowsEveryKeyTouched(final long seed)
    {
        final Random random = new Random(seed);
        final MergedValues values = new MergedValues();
        for (int round = 0; round < 3; round++)
        {
            values.clear();
            assertThat(values.isEmpty()).isTrue();
            final Map<String, String> live = new HashMap<>();
            final Set<String> touched = new HashSet<>();
            final List<byte[]> keys = new ArrayList<>();
            for (int k = 0; k < 3_000; k++)
            {
                keys.add(bytes(random, 1 + random.nextInt(40)));
            }
            for (int op = 0; op < 20_000; op++)
            {
                final int state = random.nextInt(3);
                final byte[] key = keys.get(random.nextInt(keys.size()));
                final String name = state + "/" + HEX.formatHex(key);
                // the entry lies somewhere in a larger buffer, as in a snapshot file's
                final byte[] value = random.nextInt(5) == 0 ? null : bytes(random, random.nextInt(300));
                final int at = random.nextInt(16);
                final CodecBuffer buffer = CodecBuffer.allocate(at + key.length + (value == null ? 0 : value.length));
                buffer.putBytes(at, key, 0, key.length);
                if (value != null)
                {
                    buffer.putBytes(at + key.length, value, 0, value.length);
                }
                values.put(state, hash(state, key), buffer, at, key.length, at + key.length,
                    value == null ? KeyedSnapshotFormat.TOMBSTONE : value.length);
                touched.add(name);
                if (value == null)
                {
                    live.remove(name);
                }
                else
                {
                    live.put(name, HEX.formatHex(value));
                }
            }
            final Map<String, String> merged = new HashMap<>();
            final int thisRound = round;
            values.forEach((state, bytes, keyOffset, keyLength, valueOffset, valueLength) ->
            {
                final String name = state + "/" + HEX.formatHex(bytes.toByteArray(keyOffset, keyLength));
                assertThat(merged.put(name, HEX.formatHex(bytes.toByteArray(valueOffset, valueLength))))
                    .as("seed %d round %d: %s once", seed, thisRound, name).isNull();
            });
            assertThat(merged).as("seed %d round %d", seed, round).isEqualTo(live);
            for (final byte[] key : keys)
            {
                for (int state = 0; state < 3; state++)
                {
                    assertThat(values.contains(state, hash(state, key), key, key.length))
                        .as("seed %d round %d: %s/%s", seed, round, state, HEX.formatHex(key))
                        .isEqualTo(touched.contains(state + "/" + HEX.formatHex(key)));
                }
            }
        }
    }

    private static byte[] bytes(final Random random, final int length)
    {
        final byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }

    private static int hash(final int state, final byte[] key)
    {
        int h = 1;
        for (final byte b : key)
        {
            h = 31 * h + b;
        }
        return 31 * state + h;
    }
}
