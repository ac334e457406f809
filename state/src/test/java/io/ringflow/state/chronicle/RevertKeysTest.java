package io.ringflow.state.chronicle;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RevertKeysTest
{
    private static final int KEY_GROUPS = 128;

    @ParameterizedTest(name = "seed {0}, {1} key groups")
    @CsvSource({"1, 128", "2, 128", "3, 32768", "4, 32768", "5, 3"})
    void holdsEveryKeyOfItsSourcesOnceFindsOnlyThoseAndKeepsEachKeysMarks(final long seed, final int keyGroups)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        // overlapping sources (a key changed in several intervals, or in a front and a map), keys of every length
        // from the bare key group up, crowded into a few key groups or spread over all of them (past 255, the key
        // group's second byte counts)
        final int groups = random.nextBoolean() ? Math.min(3, keyGroups) : keyGroups;
        final List<ChangedKeySet> sources = new ArrayList<>();
        final List<PreservedKey> recorded = new ArrayList<>();
        final Set<PreservedKey> model = new HashSet<>();
        final int sourceCount = 1 + random.nextInt(4);
        for (int s = 0; s < sourceCount; s++)
        {
            final ChangedKeySet source = new ChangedKeySet();
            final int keys = random.nextInt(5_000);
            for (int k = 0; k < keys; k++)
            {
                final PreservedKey key = !recorded.isEmpty() && random.nextInt(4) == 0 ?
                    recorded.get(random.nextInt(recorded.size())) : randomKey(random, groups);
                source.add(key);
                recorded.add(key);
                model.add(key);
            }
            sources.add(source);
        }

        final RevertKeys keys = RevertKeys.of(sources, keyGroups);

        assertThat(keys.size()).isEqualTo(model.size());
        final Map<PreservedKey, Integer> slots = new HashMap<>();
        keys.forEach(0, (bytes, offset, length, slot) ->
            assertThat(slots.put(PreservedKey.of(Arrays.copyOfRange(bytes, offset, offset + length)), slot))
                .as("each key once").isNull());
        assertThat(slots.keySet()).isEqualTo(model);
        for (final PreservedKey key : model)
        {
            assertThat(keys.slotOf(key.bytes(), key.length())).isEqualTo(slots.get(key));
            if (key.length() == LONG_KEY)
            {
                assertThat(keys.slotOfLong(StoredKeyLayout.keyGroup(key.bytes()), longOf(key)))
                    .as("the long path finds a key of 8 bytes").isEqualTo(slots.get(key));
            }
        }
        for (int i = 0; i < 2_000; i++)
        {
            final PreservedKey other = randomKey(random, groups);
            if (!model.contains(other))
            {
                assertThat(keys.slotOf(other.bytes(), other.length())).isEqualTo(-1);
                if (other.length() == LONG_KEY)
                {
                    assertThat(keys.slotOfLong(StoredKeyLayout.keyGroup(other.bytes()), longOf(other))).isEqualTo(-1);
                }
            }
        }
        // the same long in another key group, and key groups past the last, are not found
        for (final PreservedKey key : model)
        {
            if (key.length() == LONG_KEY)
            {
                final int group = StoredKeyLayout.keyGroup(key.bytes());
                final byte[] moved = key.bytes().clone();
                final int otherGroup = (group + 1) % keyGroups;
                moved[0] = (byte)otherGroup;
                moved[1] = (byte)(otherGroup >>> 8);
                assertThat(keys.slotOfLong(otherGroup, longOf(key)))
                    .isEqualTo(model.contains(PreservedKey.of(moved)) ? slots.get(PreservedKey.of(moved)) : -1);
                assertThat(keys.slotOfLong(keyGroups, longOf(key))).isEqualTo(-1);
                assertThat(keys.slotOfLong(-1, longOf(key))).isEqualTo(-1);
            }
        }

        // marks are per key and per mark; forEach skips exactly the keys carrying the mark asked for
        final Set<PreservedKey> found = new HashSet<>();
        final Set<PreservedKey> inFront = new HashSet<>();
        for (final PreservedKey key : model)
        {
            if (random.nextInt(3) == 0)
            {
                keys.mark(slots.get(key), RevertKeys.FOUND);
                found.add(key);
            }
            if (random.nextInt(5) == 0)
            {
                keys.mark(slots.get(key), RevertKeys.IN_FRONT);
                inFront.add(key);
            }
        }
        for (final PreservedKey key : model)
        {
            final int slot = slots.get(key);
            assertThat(keys.marked(slot, RevertKeys.FOUND)).isEqualTo(found.contains(key));
            assertThat(keys.marked(slot, RevertKeys.IN_FRONT)).isEqualTo(inFront.contains(key));
        }
        final Set<PreservedKey> notFound = new HashSet<>();
        keys.forEach(RevertKeys.FOUND, (bytes, offset, length, slot) ->
            notFound.add(PreservedKey.of(Arrays.copyOfRange(bytes, offset, offset + length))));
        final Set<PreservedKey> expected = new HashSet<>(model);
        expected.removeAll(found);
        assertThat(notFound).isEqualTo(expected);
    }

    @Test
    void noSourcesOrEmptyOnesMakeAnEmptySetThatFindsNothing()
    {
        final RevertKeys keys = RevertKeys.of(List.of(new ChangedKeySet()), KEY_GROUPS);
        final byte[] key = {5, 0, 1, 2, 3};

        assertThat(keys.size()).isZero();
        assertThat(keys.slotOf(key, key.length)).isEqualTo(-1);
        assertThat(RevertKeys.of(List.of(), KEY_GROUPS).slotOf(key, key.length)).isEqualTo(-1);
    }

    @Test
    void refusesAKeyWithoutAKeyGroupOrOfAKeyGroupPastTheStoresLast()
    {
        final ChangedKeySet tooShort = new ChangedKeySet();
        tooShort.add(PreservedKey.of(new byte[] {1}));
        final ChangedKeySet pastTheLast = new ChangedKeySet();
        pastTheLast.add(PreservedKey.of(new byte[] {(byte)KEY_GROUPS, 0, 7}));

        assertThatThrownBy(() -> RevertKeys.of(List.of(tooShort), KEY_GROUPS))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 bytes has no key group");
        assertThatThrownBy(() -> RevertKeys.of(List.of(pastTheLast), KEY_GROUPS))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("key group 128 in a store of 128 key groups");
    }

    @Test
    void aStoredKeysGroupIsReadAtItsOffsetBothBytesLittleEndian()
    {
        final byte[] bytes = {9, 0x2C, 0x01, 7, (byte)0xFF, 0x7F};

        assertThat(StoredKeyLayout.keyGroup(bytes, 1)).isEqualTo(300);
        assertThat(StoredKeyLayout.keyGroup(bytes, 4)).isEqualTo(32767);
        assertThat(StoredKeyLayout.keyGroup(new byte[] {0x2C, 0x01})).isEqualTo(300);
    }

    @Test
    void fitsOnlyWhatItsArraysCanHold()
    {
        assertThat(RevertKeys.fits(1_000_000, 12_000_000, 128)).isTrue();
        assertThat(RevertKeys.fits(800_000_000, 1_000, 128)).as("table slots").isFalse();
        assertThat(RevertKeys.fits(1_000, 3_000_000_000L, 128)).as("key bytes").isFalse();
    }

    private static final int LONG_KEY = StoredKeyLayout.KEY_OFFSET + Long.BYTES;

    /** @return the 8 bytes after a stored key's key group, little-endian, as a codec buffer reads a long. */
    private static long longOf(final PreservedKey key)
    {
        return java.nio.ByteBuffer.wrap(key.bytes(), StoredKeyLayout.KEY_OFFSET, Long.BYTES)
            .order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
    }

    /** A stored key: a key group in [0, groups), then 0 to 12 bytes, rarely up to 300, from a small alphabet. */
    private static PreservedKey randomKey(final SplittableRandom random, final int groups)
    {
        final int rest = random.nextInt(20) == 0 ? 100 + random.nextInt(200) : random.nextInt(13);
        final byte[] bytes = new byte[StoredKeyLayout.KEY_OFFSET + rest];
        final int group = random.nextInt(groups);
        bytes[0] = (byte)group;
        bytes[1] = (byte)(group >>> 8);
        for (int i = StoredKeyLayout.KEY_OFFSET; i < bytes.length; i++)
        {
            bytes[i] = (byte)random.nextInt(4);
        }
        return PreservedKey.of(bytes);
    }
}
