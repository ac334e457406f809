package io.ringflow.state.chronicle;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** A table left full of stale keys would make a probe loop forever: each test is cut off rather than hang the build. */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class LongKeyFilterTest
{
    @ParameterizedTest(name = "seed {0}, {1} keys")
    @CsvSource({"1, 0", "2, 1", "3, 7", "4, 1000", "5, 100000"})
    void holdsExactlyItsKeysWhateverTheirValue(final long seed, final int count)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final Set<Long> model = new HashSet<>();
        final long[] keys = new long[count + 3];
        int size = 0;
        while (size < count)
        {
            // 0 (the empty slot's mark), the extremes, small and dense keys (neighbours hash apart) and random ones
            final long key = switch (random.nextInt(6))
            {
                case 0 -> 0L;
                case 1 -> random.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE;
                case 2 -> random.nextInt(2 * count + 1) - count;
                default -> random.nextLong();
            };
            if (model.add(key))
            {
                keys[size++] = key;
            }
        }
        // the filter reads only the first count keys: what lies past them is not its business
        keys[size] = 42;
        keys[size + 1] = 0;
        keys[size + 2] = -42;

        final LongKeyFilter filter = LongKeyFilter.of(keys, size);
        try
        {
            for (final long key : model)
            {
                assertThat(filter.contains(key)).as("key %d", key).isTrue();
                assertThat(filter.containsStored(stored(key), LongKeyFilter.STORED_LONG_KEY_LENGTH))
                    .as("stored key %d", key).isTrue();
            }
            for (int probe = 0; probe < 20_000; probe++)
            {
                final long key = probe < 100 ? probe - 50 : random.nextLong();
                assertThat(filter.contains(key)).as("key %d", key).isEqualTo(model.contains(key));
            }
            for (final long key : new long[] {0, 42, -42, Long.MIN_VALUE, Long.MAX_VALUE})
            {
                assertThat(filter.contains(key)).as("key %d", key).isEqualTo(model.contains(key));
            }
        }
        finally
        {
            filter.release();
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @CsvSource({"11", "12"})
    void aStoredKeyOfAnotherLengthIsNeverHeldEvenWhenItsFirstEightBytesAre(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final long[] keys = new long[64];
        for (int i = 0; i < keys.length; i++)
        {
            keys[i] = random.nextLong();
        }
        final LongKeyFilter filter = LongKeyFilter.of(keys, keys.length);
        try
        {
            for (final long key : keys)
            {
                final byte[] longer = new byte[LongKeyFilter.STORED_LONG_KEY_LENGTH + 1];
                System.arraycopy(stored(key), 0, longer, 0, LongKeyFilter.STORED_LONG_KEY_LENGTH);
                assertThat(filter.containsStored(longer, LongKeyFilter.STORED_LONG_KEY_LENGTH)).isTrue();
                assertThat(filter.containsStored(longer, longer.length)).isFalse();
                assertThat(filter.containsStored(longer, LongKeyFilter.STORED_LONG_KEY_LENGTH - 1)).isFalse();
            }
        }
        finally
        {
            filter.release();
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @CsvSource({"21", "22"})
    void aFilterOnATableAnEarlierOneReleasedHoldsNoneOfTheEarlierKeys(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final long[] earlier = new long[5_000];
        for (int i = 0; i < earlier.length; i++)
        {
            earlier[i] = random.nextLong() | 1;
        }
        // the earlier filter's table, larger than the next one needs, is kept by this thread and reused
        LongKeyFilter.of(earlier, earlier.length).release();
        final long[] later = {2, 4, 6};
        final LongKeyFilter filter = LongKeyFilter.of(later, later.length);
        try
        {
            for (final long key : earlier)
            {
                assertThat(filter.contains(key)).as("earlier key %d", key).isFalse();
            }
            for (final long key : later)
            {
                assertThat(filter.contains(key)).as("key %d", key).isTrue();
            }
        }
        finally
        {
            filter.release();
        }
    }

    /** A key as a state's map stores it: a key group, then the built-in codec's 8 little-endian bytes. */
    private static byte[] stored(final long key)
    {
        return ByteBuffer.allocate(LongKeyFilter.STORED_LONG_KEY_LENGTH).order(ByteOrder.LITTLE_ENDIAN)
            .putShort((short)7).putLong(key).array();
    }
}
