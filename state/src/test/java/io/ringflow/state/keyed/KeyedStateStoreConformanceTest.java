package io.ringflow.state.keyed;

import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.checkpoint.CorruptCheckpointException;
import io.ringflow.state.chronicle.ChronicleKeyedStateStore;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.codec.LongCodec;
import io.ringflow.state.heap.HeapKeyedStateStore;
import io.ringflow.state.snapshot.KeyedSnapshotWriter;
import io.ringflow.state.snapshot.KeyedStateSnapshot;
import io.ringflow.state.snapshot.StateMeta;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What every {@link KeyedStateStore} must do, whatever keeps its state: value semantics per key and per state,
 * declaration rules, snapshots that are exactly the state at their barrier while the task keeps writing (several
 * pending at once, flushed on other threads), restore (from its own snapshots, from another backend's, split and
 * merged by key group), and clear errors for mismatched or corrupt snapshots. A backend's test extends this class
 * and says how to build a store.
 *
 * <p>Snapshots are checked two ways: decoded independently of any backend ({@link SnapshotContents}, which also
 * rejects a key written twice or in the wrong key group), and restored into stores of every backend.
 */
public abstract class KeyedStateStoreConformanceTest extends KeyedStoreFixture
{
    /**
     * A record key.
     *
     * @param site a site.
     * @param id   a visitor there.
     */
    public record Visitor(String site, long id)
    {
    }

    /**
     * A record value.
     *
     * @param at    when.
     * @param value what.
     */
    public record Reading(long at, long value)
    {
    }

    // ------------------------------------------------------------------------------------------------ values

    @Test
    void aKeyWithoutAValueReadsTheDefaultUntilUpdatedAndAfterCleared()
    {
        final KeyedStateStore store = newStore();
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, -1L));
        final ValueState<String> labels = store.getValueState(new ValueStateDescriptor<>("labels", String.class));
        store.setCurrentKey(7L);

        assertThat(counts.value()).isEqualTo(-1L);
        assertThat(labels.value()).isNull();

        counts.update(41L);
        counts.update(counts.value() + 1);
        labels.update("seven");
        assertThat(counts.value()).isEqualTo(42L);
        assertThat(labels.value()).isEqualTo("seven");
        assertThat(store.entryCount()).isEqualTo(2);

        counts.clear();
        labels.update(null);
        assertThat(counts.value()).isEqualTo(-1L);
        assertThat(labels.value()).isNull();
        assertThat(store.entryCount()).isZero();

        counts.clear();
        assertThat(counts.value()).isEqualTo(-1L);
    }

    @Test
    void eachKeyAndEachStateHasItsOwnValue()
    {
        final KeyedStateStore store = newStore();
        final ValueState<Long> a = store.getValueState(new ValueStateDescriptor<>("a", Long.class, 0L));
        final ValueState<Long> b = store.getValueState(new ValueStateDescriptor<>("b", Long.class, 0L));
        for (long key = 0; key < 100; key++)
        {
            store.setCurrentKey(key);
            a.update(key);
            b.update(key * 1000);
        }
        store.setCurrentKey(50L);
        a.clear();

        for (long key = 0; key < 100; key++)
        {
            store.setCurrentKey(key);
            assertThat(a.value()).as("a of %d", key).isEqualTo(key == 50 ? 0L : key);
            assertThat(b.value()).as("b of %d", key).isEqualTo(key * 1000);
        }
        assertThat(store.entryCount()).isEqualTo(199);
        assertThat(store.currentKey()).isEqualTo(99L);
    }

    @Test
    void theLongViewAndTheValueStateAreOneState()
    {
        final KeyedStateStore store = newStore();
        final ValueStateDescriptor<Long> descriptor = new ValueStateDescriptor<>("counts", Long.class, 7L);
        final LongValueState counts = store.getLongValueState(descriptor);
        final ValueState<Long> boxed = store.getValueState(descriptor);
        final LongValueState withoutDefault =
            store.getLongValueState(new ValueStateDescriptor<>("sums", Long.class));
        final List<Long> keys = List.of(1L, -1L, 0L, Long.MAX_VALUE, 12_345L, 300L);
        for (int i = 0; i < keys.size(); i++)
        {
            final Long key = keys.get(i);
            // a Long key set unboxed, as keyed operators do, or boxed
            if (i % 2 == 0)
            {
                store.setCurrentKey(key.longValue(), KeyGroups.keyGroupOf(key, MAX_PARALLELISM));
            }
            else
            {
                store.setCurrentKey(key);
            }
            assertThat(counts.value()).as("default of %s", key).isEqualTo(7L);
            assertThat(withoutDefault.value()).as("no default: 0").isZero();
            assertThat(counts.add(3)).isEqualTo(10L);
            assertThat(boxed.value()).isEqualTo(10L);
            boxed.update(i * 100L);
            assertThat(counts.value()).isEqualTo(i * 100L);
            counts.update(Long.MIN_VALUE + i);
            assertThat(boxed.value()).as("extreme values too").isEqualTo(Long.MIN_VALUE + i);
            assertThat(counts.value()).isEqualTo(Long.MIN_VALUE + i);
            counts.update(i);
            withoutDefault.add(i * 2L);
        }
        store.setCurrentKey(300L);
        counts.clear();
        assertThat(boxed.value()).isEqualTo(7L);
        assertThat(counts.value()).isEqualTo(7L);

        final KeyedStateStore restored = restoredFrom(SnapshotContents.take(store, 1));
        final LongValueState restoredCounts = restored.getLongValueState(descriptor);
        final ValueState<Long> restoredSums = restored.getValueState(new ValueStateDescriptor<>("sums", Long.class));
        for (int i = 0; i < keys.size(); i++)
        {
            restored.setCurrentKey(keys.get(i));
            assertThat(restoredCounts.value()).as("restored %s", keys.get(i)).isEqualTo(i == 5 ? 7L : i);
            assertThat(restoredSums.value()).as("add(0) stores 0").isEqualTo(i * 2L);
        }
    }

    @Test
    void theLongViewWorksForKeysOfAnyType()
    {
        final KeyedStateStore store = newStore();
        final LongValueState sums = store.getLongValueState(new ValueStateDescriptor<>("sums", Long.class, 0L));
        for (final String key : List.of("a", "b", "a", "c", "a"))
        {
            store.setCurrentKey(key);
            sums.add(key.charAt(0));
        }
        store.setCurrentKey("a");
        assertThat(sums.value()).isEqualTo(3L * 'a');
        store.setCurrentKey("c");
        assertThat(store.getValueState(new ValueStateDescriptor<>("sums", Long.class, 0L)).value()).isEqualTo('c');
    }

    @Test
    void theLongViewRefusesWithoutACurrentKey()
    {
        final KeyedStateStore store = newStore();
        final LongValueState counts = store.getLongValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        assertThatThrownBy(counts::value).isInstanceOf(IllegalStateException.class).hasMessageContaining("counts");
        assertThatThrownBy(() -> counts.update(1)).isInstanceOf(IllegalStateException.class);
    }

    static Stream<List<Object>> keysOfEachType()
    {
        return Stream.of(
            List.of(1L, -1L, Long.MAX_VALUE, Long.MIN_VALUE, 0L),
            List.of("", "a", "b", "ünïcödé", "a much longer key than the average key size of a map"),
            List.of(new Visitor("x", 1), new Visitor("x", 2), new Visitor("y", 1), new Visitor("", 0)));
    }

    @ParameterizedTest
    @MethodSource("keysOfEachType")
    void keysOfEveryTypeWithACodecWorkAndSurviveASnapshot(final List<Object> keys)
    {
        final KeyedStateStore store = newStore();
        final ValueState<Reading> readings = store.getValueState(new ValueStateDescriptor<>("readings", Reading.class));
        for (int i = 0; i < keys.size(); i++)
        {
            store.setCurrentKey(keys.get(i));
            readings.update(new Reading(i, i * 10L));
        }

        final KeyedStateStore restored = restoredFrom(SnapshotContents.take(store, 1));
        final ValueState<Reading> again = restored.getValueState(
            new ValueStateDescriptor<>("readings", Reading.class));
        for (int i = 0; i < keys.size(); i++)
        {
            store.setCurrentKey(keys.get(i));
            restored.setCurrentKey(keys.get(i));
            assertThat(readings.value()).isEqualTo(new Reading(i, i * 10L));
            assertThat(again.value()).isEqualTo(new Reading(i, i * 10L));
        }
        assertThat(restored.entryCount()).isEqualTo(keys.size());
    }

    // ------------------------------------------------------------------------------------------------ declaration

    @Test
    void declaringAStateAgainWithTheSameTypeGivesTheSameState()
    {
        final KeyedStateStore store = newStore();
        final ValueState<Long> first = store.getValueState(new ValueStateDescriptor<>("counts", Long.class));
        final ValueState<Long> second = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 5L));
        store.setCurrentKey(1L);
        first.update(3L);

        assertThat(second).isSameAs(first);
        assertThat(second.value()).isEqualTo(3L);
    }

    @Test
    void declaringAStateAgainWithAnotherTypeIsAnError()
    {
        final KeyedStateStore store = newStore();
        store.getValueState(new ValueStateDescriptor<>("counts", Long.class));

        assertThatThrownBy(() -> store.getValueState(new ValueStateDescriptor<>("counts", String.class)))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("'counts'")
            .hasMessageContaining("java.lang.Long")
            .hasMessageContaining("java.lang.String");
    }

    @Test
    void usingAStateWithoutACurrentKeyIsAnError()
    {
        final KeyedStateStore store = newStore();
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class));

        assertThatThrownBy(counts::value).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("'counts'").hasMessageContaining("no current key");
        assertThatThrownBy(() -> counts.update(1L)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("no current key");
        assertThatThrownBy(counts::clear).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("no current key");
        assertThat(store.entryCount()).isZero();
    }

    // ------------------------------------------------------------------------------------------------ snapshots

    @Test
    void aSnapshotIsTheStateAtItsBarrierWhateverTheTaskDoesAfter()
    {
        final KeyedStateStore store = newStore();
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final LongValueState countView = store.getLongValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final ValueState<String> labels = store.getValueState(new ValueStateDescriptor<>("labels", String.class));
        final Map<Object, Object> countModel = new HashMap<>();
        final Map<Object, Object> labelModel = new HashMap<>();
        for (long key = 0; key < 2_000; key++)
        {
            store.setCurrentKey(key);
            counts.update(key);
            countModel.put(key, key);
            if (key % 3 == 0)
            {
                labels.update("label-" + key);
                labelModel.put(key, "label-" + key);
            }
        }
        final Map<String, Map<Object, Object>> atBarrier =
            SnapshotContents.expected(Map.of("counts", countModel, "labels", labelModel));

        final KeyedStateSnapshot snapshot = store.snapshot(1);
        // after the barrier: changed, cleared, set to null, new keys, and a state declared only now
        final ValueState<Long> late = store.getValueState(new ValueStateDescriptor<>("late", Long.class));
        for (long key = 0; key < 3_000; key++)
        {
            store.setCurrentKey(key);
            switch ((int)(key % 4))
            {
                case 0 -> counts.update(counts.value() + 100);
                case 1 -> counts.clear();
                case 2 -> labels.update(key % 8 == 2 ? null : "changed");
                default -> late.update(key);
            }
        }
        final byte[] bytes = SnapshotContents.write(snapshot);

        assertThat(SnapshotContents.decode(bytes, CodecRegistry.withBuiltIns())).isEqualTo(atBarrier);
        final KeyedStateStore restored = restoredFrom(bytes);
        final ValueState<Long> restoredCounts =
            restored.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final ValueState<String> restoredLabels =
            restored.getValueState(new ValueStateDescriptor<>("labels", String.class));
        final ValueState<Long> restoredLate = restored.getValueState(new ValueStateDescriptor<>("late", Long.class));
        for (long key = 0; key < 3_000; key++)
        {
            restored.setCurrentKey(key);
            assertThat(restoredCounts.value()).as("count of %d", key).isEqualTo(countModel.getOrDefault(key, 0L));
            assertThat(restoredLabels.value()).as("label of %d", key).isEqualTo(labelModel.get(key));
            assertThat(restoredLate.value()).as("late of %d", key).isNull();
        }
        assertThat(restored.entryCount()).isEqualTo(countModel.size() + labelModel.size());
    }

    @Test
    void severalPendingSnapshotsEachKeepTheirOwnBarrier()
    {
        final KeyedStateStore store = newStore();
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final Map<Object, Object> model = new HashMap<>();
        final List<KeyedStateSnapshot> snapshots = new ArrayList<>();
        final List<Map<String, Map<Object, Object>>> expected = new ArrayList<>();
        for (int round = 0; round < 4; round++)
        {
            for (long key = round * 100L; key < 1_000 + round * 100L; key++)
            {
                store.setCurrentKey(key);
                if (key % 7 == round)
                {
                    counts.clear();
                    model.remove(key);
                }
                else
                {
                    counts.update(counts.value() + round + 1);
                    model.put(key, (Long)model.getOrDefault(key, 0L) + round + 1);
                }
            }
            snapshots.add(store.snapshot(round));
            expected.add(SnapshotContents.expected(Map.of("counts", model)));
        }

        // written newest first, while all four are pending
        for (int round = 3; round >= 0; round--)
        {
            assertThat(SnapshotContents.decode(SnapshotContents.write(snapshots.get(round)),
                CodecRegistry.withBuiltIns())).as("snapshot %d", round).isEqualTo(expected.get(round));
        }
    }

    @Test
    void aReleasedSnapshotNeedsNoWritingAndLaterSnapshotsStayExact()
    {
        final KeyedStateStore store = newStore();
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        for (long key = 0; key < 500; key++)
        {
            store.setCurrentKey(key);
            counts.update(key);
        }
        final KeyedStateSnapshot abandoned = store.snapshot(1);
        store.setCurrentKey(1L);
        counts.update(1_000L);
        abandoned.release();
        abandoned.release();
        store.setCurrentKey(2L);
        counts.clear();

        final Map<String, Map<Object, Object>> contents =
            SnapshotContents.decode(SnapshotContents.take(store, 2), CodecRegistry.withBuiltIns());

        assertThat(contents.get("counts")).hasSize(499).containsEntry(1L, 1_000L).doesNotContainKey(2L)
            .containsEntry(499L, 499L);
    }

    @Test
    void anEmptyStoreSnapshotsAndRestores()
    {
        final KeyedStateStore store = newStore();
        store.getValueState(new ValueStateDescriptor<>("counts", Long.class));

        final byte[] bytes = SnapshotContents.take(store, 1);

        assertThat(SnapshotContents.reader(bytes).states()).extracting(StateMeta::name).containsExactly("counts");
        assertThat(SnapshotContents.decode(bytes, CodecRegistry.withBuiltIns())).isEmpty();
        assertThat(restoredFrom(bytes).entryCount()).isZero();
    }

    // ------------------------------------------------------------------------------------------------ restore

    @Test
    void restoredStatesNotDeclaredYetAreCarriedIntoLaterSnapshots()
    {
        final KeyedStateStore store = newStore();
        final ValueState<Long> kept = store.getValueState(new ValueStateDescriptor<>("kept", Long.class));
        final ValueState<String> idle = store.getValueState(new ValueStateDescriptor<>("idle", String.class));
        for (long key = 0; key < 300; key++)
        {
            store.setCurrentKey(key);
            kept.update(key);
            idle.update("idle-" + key);
        }
        final byte[] first = SnapshotContents.take(store, 1);

        final KeyedStateStore restored = restoredFrom(first);
        final ValueState<Long> keptAgain = restored.getValueState(new ValueStateDescriptor<>("kept", Long.class));
        restored.setCurrentKey(0L);
        keptAgain.update(-1L);
        final byte[] second = SnapshotContents.take(restored, 2);

        final Map<String, Map<Object, Object>> contents = SnapshotContents.decode(second, CodecRegistry.withBuiltIns());
        assertThat(contents.get("idle")).hasSize(300).containsEntry(5L, "idle-5");
        assertThat(contents.get("kept")).hasSize(300).containsEntry(0L, -1L).containsEntry(5L, 5L);
        assertThat(restored.entryCount()).as("restored states count, declared or not").isEqualTo(600);
    }

    @Test
    void snapshotsRestoreAcrossBackendsInBothDirections()
    {
        final Map<String, Map<Object, Object>> expected = new HashMap<>();
        final Function<KeyedStateStore, byte[]> populate = store ->
        {
            final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class));
            final ValueState<Reading> readings =
                store.getValueState(new ValueStateDescriptor<>("readings", Reading.class));
            for (long key = 0; key < 1_000; key++)
            {
                store.setCurrentKey(key);
                counts.update(key * key);
                expected.computeIfAbsent("counts", name -> new HashMap<>()).put(key, key * key);
                if (key % 2 == 0)
                {
                    readings.update(new Reading(key, -key));
                    expected.computeIfAbsent("readings", name -> new HashMap<>()).put(key, new Reading(key, -key));
                }
            }
            return SnapshotContents.take(store, 1);
        };
        final List<byte[]> fromEveryBackend = List.of(
            populate.apply(newStore()),
            populate.apply(track(new HeapKeyedStateStore(CodecRegistry.withBuiltIns(), MAX_PARALLELISM, ALL))),
            populate.apply(track(new ChronicleKeyedStateStore(chronicleTestConfig(), CodecRegistry.withBuiltIns(),
                MAX_PARALLELISM, ALL))));

        for (final byte[] bytes : fromEveryBackend)
        {
            assertThat(SnapshotContents.decode(bytes, CodecRegistry.withBuiltIns())).isEqualTo(expected);
            final List<KeyedStateStore> targets = List.of(
                newStore(),
                track(new HeapKeyedStateStore(CodecRegistry.withBuiltIns(), MAX_PARALLELISM, ALL)),
                track(new ChronicleKeyedStateStore(chronicleTestConfig(), CodecRegistry.withBuiltIns(),
                    MAX_PARALLELISM, ALL)));
            for (final KeyedStateStore target : targets)
            {
                target.restore(List.of(SnapshotContents.reader(bytes)));
                final ValueState<Long> counts = target.getValueState(new ValueStateDescriptor<>("counts", Long.class));
                final ValueState<Reading> readings =
                    target.getValueState(new ValueStateDescriptor<>("readings", Reading.class));
                for (long key = 0; key < 1_000; key++)
                {
                    target.setCurrentKey(key);
                    assertThat(counts.value()).as("%s count of %d", target, key).isEqualTo(key * key);
                    assertThat(readings.value()).as("%s reading of %d", target, key)
                        .isEqualTo(key % 2 == 0 ? new Reading(key, -key) : null);
                }
                assertThat(SnapshotContents.decode(SnapshotContents.take(target, 2), CodecRegistry.withBuiltIns()))
                    .as("%s snapshotted again", target).isEqualTo(expected);
            }
        }
    }

    @Test
    void restoreKeepsOnlyTheStoresKeyGroupsAndTheHalvesMergeBack()
    {
        final KeyedStateStore full = newStore();
        final ValueState<String> labels = full.getValueState(new ValueStateDescriptor<>("labels", String.class));
        final Map<Object, Object> model = new HashMap<>();
        for (int i = 0; i < 5_000; i++)
        {
            final String key = "key-" + i;
            full.setCurrentKey(key);
            labels.update("value-" + i);
            model.put(key, "value-" + i);
        }
        final byte[] whole = SnapshotContents.take(full, 1);
        final KeyGroupRange lowerGroups = KeyGroups.rangeOf(0, MAX_PARALLELISM, 2);
        final KeyGroupRange upperGroups = KeyGroups.rangeOf(1, MAX_PARALLELISM, 2);

        final KeyedStateStore lower = newStore(CodecRegistry.withBuiltIns(), MAX_PARALLELISM, lowerGroups);
        final KeyedStateStore upper = newStore(CodecRegistry.withBuiltIns(), MAX_PARALLELISM, upperGroups);
        lower.restore(List.of(SnapshotContents.reader(whole)));
        upper.restore(List.of(SnapshotContents.reader(whole)));
        final ValueState<String> lowerLabels = lower.getValueState(new ValueStateDescriptor<>("labels", String.class));
        final ValueState<String> upperLabels = upper.getValueState(new ValueStateDescriptor<>("labels", String.class));
        long inLower = 0;
        for (final Map.Entry<Object, Object> entry : model.entrySet())
        {
            final boolean isLower = lowerGroups.contains(KeyGroups.keyGroupOf(entry.getKey(), MAX_PARALLELISM));
            inLower += isLower ? 1 : 0;
            lower.setCurrentKey(entry.getKey());
            upper.setCurrentKey(entry.getKey());
            assertThat(lowerLabels.value()).as("lower %s", entry.getKey()).isEqualTo(isLower ? entry.getValue() : null);
            assertThat(upperLabels.value()).as("upper %s", entry.getKey()).isEqualTo(isLower ? null : entry.getValue());
        }
        assertThat(inLower).isBetween(1L, 4_999L);
        assertThat(lower.entryCount()).isEqualTo(inLower);
        assertThat(upper.entryCount()).isEqualTo(model.size() - inLower);

        final byte[] lowerBytes = SnapshotContents.take(lower, 2);
        final byte[] upperBytes = SnapshotContents.take(upper, 2);
        assertThat(SnapshotContents.reader(lowerBytes).range()).isEqualTo(lowerGroups);
        final KeyedStateStore merged = newStore();
        merged.restore(List.of(SnapshotContents.reader(upperBytes), SnapshotContents.reader(lowerBytes)));
        merged.getValueState(new ValueStateDescriptor<>("labels", String.class));

        assertThat(SnapshotContents.decode(SnapshotContents.take(merged, 3), CodecRegistry.withBuiltIns()))
            .isEqualTo(SnapshotContents.expected(Map.of("labels", model)));
    }

    @Test
    void aSnapshotOfAnotherMaxParallelismIsRefused()
    {
        final KeyedStateStore store = newStore(CodecRegistry.withBuiltIns(), 256, new KeyGroupRange(0, 255));
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class));
        store.setCurrentKey(1L);
        counts.update(1L);
        final byte[] bytes = SnapshotContents.take(store, 1);

        assertThatThrownBy(() -> newStore().restore(List.of(SnapshotContents.reader(bytes))))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("256").hasMessageContaining("128");
    }

    @Test
    void restoringAfterAStateIsDeclaredIsRefused()
    {
        final byte[] bytes = SnapshotContents.take(newStore(), 1);
        final KeyedStateStore store = newStore();
        store.getValueState(new ValueStateDescriptor<>("counts", Long.class));

        assertThatThrownBy(() -> store.restore(List.of(SnapshotContents.reader(bytes))))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("before any state is declared");
    }

    @Test
    void aStateRestoredWithAnotherValueTypeIsNamedWhenDeclared()
    {
        final KeyedStateStore store = restoredFrom(countsSnapshot(CodecRegistry.withBuiltIns()));

        assertThatThrownBy(() -> store.getValueState(new ValueStateDescriptor<>("counts", String.class)))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("'counts'").hasMessageContaining("java.lang.Long")
            .hasMessageContaining("java.lang.String");
    }

    @Test
    void aStateRestoredWithAnotherCodecVersionIsNamedWhenDeclared()
    {
        final KeyedStateStore writer = newStore();
        final ValueState<Reading> readings =
            writer.getValueState(new ValueStateDescriptor<>("readings", Reading.class));
        writer.setCurrentKey(1L);
        readings.update(new Reading(1, 2));
        final byte[] bytes = SnapshotContents.take(writer, 1);
        final KeyedStateStore store = newStore(
            CodecRegistry.withBuiltIns().register(Reading.class, new ReadingCodecVersion2()), MAX_PARALLELISM, ALL);
        store.restore(List.of(SnapshotContents.reader(bytes)));

        assertThatThrownBy(() -> store.getValueState(new ValueStateDescriptor<>("readings", Reading.class)))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("'readings'").hasMessageContaining("codec version 1")
            .hasMessageContaining("version 2");
    }

    @Test
    void aStateSavedAsAnotherKindIsRefused() throws IOException
    {
        final byte[] bytes = handWritten(new StateMeta("counts", StateKind.MAP, Long.class.getName(), 1,
            Long.class.getName(), 1));
        final KeyedStateStore store = restoredFrom(bytes);

        assertThatThrownBy(() -> store.getValueState(new ValueStateDescriptor<>("counts", Long.class)))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("'counts'").hasMessageContaining("MAP");
    }

    @Test
    void keysOfATypeNotOnTheClassPathAreRefused() throws IOException
    {
        final byte[] bytes = handWritten(new StateMeta("counts", StateKind.VALUE, "com.example.Gone", 1,
            Long.class.getName(), 1));
        final KeyedStateStore store = restoredFrom(bytes);

        assertThatThrownBy(() -> store.getValueState(new ValueStateDescriptor<>("counts", Long.class)))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("'counts'")
            .hasMessageContaining("com.example.Gone");
    }

    @Test
    void aValueTheCodecCannotDecodeFailsWhenTheStateIsDeclared() throws IOException
    {
        // a Long value of 3 bytes
        final byte[] bytes = handWritten(
            new StateMeta("counts", StateKind.VALUE, Long.class.getName(), 1, Long.class.getName(), 1), 3);
        final KeyedStateStore store = restoredFrom(bytes);

        assertThatThrownBy(() -> store.getValueState(new ValueStateDescriptor<>("counts", Long.class)))
            .isInstanceOf(RuntimeException.class).hasMessageContaining("8");
    }

    @Test
    void aCorruptSnapshotIsReportedAndNeverRestored()
    {
        final byte[] bytes = countsSnapshot(CodecRegistry.withBuiltIns());
        final byte[] torn = bytes.clone();
        torn[torn.length - 1] ^= 0x55;
        assertThatThrownBy(() -> SnapshotContents.reader(torn)).isInstanceOf(CorruptCheckpointException.class)
            .hasMessageContaining("test-snapshot").hasMessageContaining("end marker");

        // the first entry's key length made absurd
        final byte[] damaged = bytes.clone();
        final ByteBuffer view = ByteBuffer.wrap(damaged);
        final long indexOffset = view.getLong(damaged.length - 12);
        final long firstGroup = view.getLong((int)indexOffset + 4);
        view.putInt((int)firstGroup + 8 + 4, 0x7FFF_FFF0);
        final KeyedStateStore store = newStore();
        assertThatThrownBy(() -> store.restore(List.of(SnapshotContents.reader(damaged))))
            .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("past the end");
    }

    // ------------------------------------------------------------------------------------------------ model

    /**
     * Thousands of seeded operations on two states (increments, overwrites, clears, null updates, ever new keys), each
     * key scoped one of the three ways at random (boxed, boxed with its key group, unboxed with its key group);
     * snapshots taken at random barriers, several pending at once, written by two flusher threads while the task
     * keeps writing. Each written snapshot must equal a copy of the model taken at its barrier, and must restore.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {7, 1_000_003, 20_261_130})
    void snapshotsFlushedWhileTheTaskWritesEqualTheModelAtTheirBarriers(final long seed) throws Exception
    {
        final KeyedStateStore store = newStore();
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final LongValueState countView = store.getLongValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
        final ValueState<String> labels = store.getValueState(new ValueStateDescriptor<>("labels", String.class));
        final Map<Object, Object> countModel = new HashMap<>();
        final Map<Object, Object> labelModel = new HashMap<>();
        final Random random = new Random(seed);
        final ExecutorService flushers = Executors.newFixedThreadPool(2);
        final Deque<KeyedStateSnapshot> notYetSubmitted = new ArrayDeque<>();
        final List<Future<byte[]>> written = new ArrayList<>();
        final List<Map<String, Map<Object, Object>>> expected = new ArrayList<>();
        int keySpace = 256;
        try
        {
            for (int op = 0; op < 40_000; op++)
            {
                if (random.nextInt(50) == 0)
                {
                    keySpace += 64;
                }
                final long key = random.nextInt(keySpace);
                // the three ways to scope a key (boxed; with its known key group; unboxed) are one key
                switch (random.nextInt(3))
                {
                    case 0 -> store.setCurrentKey(key);
                    case 1 -> store.setCurrentKey((Object)key, KeyGroups.keyGroupOf(key, MAX_PARALLELISM));
                    default -> store.setCurrentKey(key, KeyGroups.keyGroupOf(key, MAX_PARALLELISM));
                }
                switch (random.nextInt(9))
                {
                    case 0, 1 ->
                    {
                        final long next = counts.value() + 1;
                        counts.update(next);
                        countModel.put(key, next);
                    }
                    case 2 -> countModel.put(key, countView.add(1));
                    case 3 ->
                    {
                        final long next = random.nextLong();
                        counts.update(next);
                        countModel.put(key, next);
                    }
                    case 4 ->
                    {
                        counts.clear();
                        countModel.remove(key);
                    }
                    case 5, 6 ->
                    {
                        final String next = "label-" + random.nextInt(1_000);
                        labels.update(next);
                        labelModel.put(key, next);
                    }
                    case 7 ->
                    {
                        labels.update(null);
                        labelModel.remove(key);
                    }
                    default ->
                    {
                        labels.clear();
                        labelModel.remove(key);
                    }
                }
                assertThat(counts.value()).as("seed %d op %d", seed, op).isEqualTo(countModel.getOrDefault(key, 0L));
                if (random.nextInt(1_500) == 0)
                {
                    notYetSubmitted.add(store.snapshot(written.size() + notYetSubmitted.size()));
                    expected.add(SnapshotContents.expected(Map.of("counts", countModel, "labels", labelModel)));
                    // up to three barriers pass before a snapshot's flush starts: several are pending at once
                    while (notYetSubmitted.size() > random.nextInt(3))
                    {
                        final KeyedStateSnapshot next = notYetSubmitted.poll();
                        written.add(flushers.submit(() -> SnapshotContents.write(next)));
                    }
                }
            }
            while (!notYetSubmitted.isEmpty())
            {
                final KeyedStateSnapshot next = notYetSubmitted.poll();
                written.add(flushers.submit(() -> SnapshotContents.write(next)));
            }

            assertThat(written).as("seed %d takes snapshots", seed).hasSizeGreaterThan(10);
            for (int i = 0; i < written.size(); i++)
            {
                final byte[] bytes = written.get(i).get(60, TimeUnit.SECONDS);
                assertThat(SnapshotContents.decode(bytes, CodecRegistry.withBuiltIns()))
                    .as("seed %d snapshot %d", seed, i).isEqualTo(expected.get(i));
            }
            final byte[] last = written.get(written.size() - 1).get();
            final KeyedStateStore restored = restoredFrom(last);
            final ValueState<Long> restoredCounts =
                restored.getValueState(new ValueStateDescriptor<>("counts", Long.class, 0L));
            final Map<String, Map<Object, Object>> lastExpected = expected.get(expected.size() - 1);
            for (long key = 0; key < keySpace; key++)
            {
                restored.setCurrentKey(key);
                assertThat(restoredCounts.value()).as("seed %d restored key %d", seed, key)
                    .isEqualTo(lastExpected.getOrDefault("counts", Map.of()).getOrDefault(key, 0L));
            }
        }
        finally
        {
            flushers.shutdownNow();
        }
    }

    // ------------------------------------------------------------------------------------------------ support

    private byte[] countsSnapshot(final CodecRegistry codecs)
    {
        final KeyedStateStore store = newStore(codecs, MAX_PARALLELISM, ALL);
        final ValueState<Long> counts = store.getValueState(new ValueStateDescriptor<>("counts", Long.class));
        for (long key = 0; key < 10; key++)
        {
            store.setCurrentKey(key);
            counts.update(key);
        }
        return SnapshotContents.take(store, 1);
    }

    /** A snapshot of one entry (key 1L, value 1L encoded), written by hand under {@code meta}. */
    private static byte[] handWritten(final StateMeta meta) throws IOException
    {
        return handWritten(meta, LongCodec.SIZE);
    }

    private static byte[] handWritten(final StateMeta meta, final int valueLength) throws IOException
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final KeyedSnapshotWriter writer = new KeyedSnapshotWriter(out, MAX_PARALLELISM, ALL, List.of(meta));
        final CodecBuffer key = CodecBuffer.allocate(8);
        LongCodec.write(key, 0, 1L);
        final CodecBuffer value = CodecBuffer.allocate(Math.max(8, valueLength));
        LongCodec.write(value, 0, 1L);
        writer.startKeyGroup(KeyGroups.keyGroupOf(1L, MAX_PARALLELISM), 1);
        writer.entry(0, key, 0, 8, null, 0, 0, value, 0, valueLength);
        writer.finish();
        return out.toByteArray();
    }

    /** A codec for {@link Reading} that says it writes version 2 of the format. */
    private static final class ReadingCodecVersion2 implements Codec<Reading>
    {
        @Override
        public Class<Reading> type()
        {
            return Reading.class;
        }

        @Override
        public int version()
        {
            return 2;
        }

        @Override
        public int encode(final Reading value, final CodecBuffer buffer, final int offset)
        {
            LongCodec.write(buffer, offset, value.at());
            LongCodec.write(buffer, offset + 8, value.value());
            return 16;
        }

        @Override
        public Reading decode(final CodecBuffer buffer, final int offset, final int length)
        {
            return new Reading(LongCodec.read(buffer, offset), LongCodec.read(buffer, offset + 8));
        }
    }
}
