package io.ringflow.state.keyed;

import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.codec.LongCodec;
import io.ringflow.state.snapshot.KeyedStateSnapshot;
import io.ringflow.state.snapshot.StateMeta;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What every {@link KeyedStateStore} must do for map, list, reducing and aggregating state: their semantics per key,
 * one name per state whatever its kind, snapshots that are exactly the state at their barrier (one entry per user key
 * for maps, one per key otherwise), the same snapshot bytes from both backends, restores across backends and key
 * group ranges, mismatches named when a restored state is declared, and a seeded model test mixing every kind with
 * snapshots flushed while the task writes. A backend's test extends this class and says how to build a store.
 */
public abstract class StateKindsConformanceTest extends KeyedStoreFixture
{
    /**
     * An accumulator of an average.
     *
     * @param sum   the sum of the inputs.
     * @param count how many there were.
     */
    public record Average(long sum, long count)
    {
    }

    /** Averages longs into an immutable accumulator. */
    static final class Averaging implements AggregateFunction<Long, Average, Double>
    {
        @Override
        public Average createAccumulator()
        {
            return new Average(0, 0);
        }

        @Override
        public Average add(final Long value, final Average accumulator)
        {
            return new Average(accumulator.sum() + value, accumulator.count() + 1);
        }

        @Override
        public Double getResult(final Average accumulator)
        {
            return (double)accumulator.sum() / accumulator.count();
        }
    }

    /** A mutable accumulator, changed in place by {@link Counting}; has its own codec. */
    public static final class MutableCount
    {
        long count;

        MutableCount(final long count)
        {
            this.count = count;
        }

        @Override
        public boolean equals(final Object other)
        {
            return other instanceof MutableCount && ((MutableCount)other).count == count;
        }

        @Override
        public int hashCode()
        {
            return Long.hashCode(count);
        }

        @Override
        public String toString()
        {
            return "MutableCount{" + count + '}';
        }
    }

    /** Counts inputs by changing its accumulator in place. */
    static final class Counting implements AggregateFunction<String, MutableCount, Long>
    {
        @Override
        public MutableCount createAccumulator()
        {
            return new MutableCount(0);
        }

        @Override
        public MutableCount add(final String value, final MutableCount accumulator)
        {
            accumulator.count++;
            return accumulator;
        }

        @Override
        public Long getResult(final MutableCount accumulator)
        {
            return accumulator.count;
        }
    }

    /** The codec of {@link MutableCount}. */
    static final class MutableCountCodec implements Codec<MutableCount>
    {
        @Override
        public Class<MutableCount> type()
        {
            return MutableCount.class;
        }

        @Override
        public int encode(final MutableCount value, final CodecBuffer buffer, final int offset)
        {
            return LongCodec.write(buffer, offset, value.count);
        }

        @Override
        public MutableCount decode(final CodecBuffer buffer, final int offset, final int length)
        {
            return new MutableCount(LongCodec.read(buffer, offset));
        }
    }

    /**
     * A user key type whose codec a test replaces by another version.
     *
     * @param id an id.
     */
    public record Slot(long id)
    {
    }

    /** A codec for {@link Slot} that says it writes version 2 of the format. */
    static final class SlotCodecVersion2 implements Codec<Slot>
    {
        @Override
        public Class<Slot> type()
        {
            return Slot.class;
        }

        @Override
        public int version()
        {
            return 2;
        }

        @Override
        public int encode(final Slot value, final CodecBuffer buffer, final int offset)
        {
            return LongCodec.write(buffer, offset, value.id());
        }

        @Override
        public Slot decode(final CodecBuffer buffer, final int offset, final int length)
        {
            return new Slot(LongCodec.read(buffer, offset));
        }
    }

    static MapStateDescriptor<String, Long> visits()
    {
        return new MapStateDescriptor<>("visits", String.class, Long.class);
    }

    static ListStateDescriptor<String> events()
    {
        return new ListStateDescriptor<>("events", String.class);
    }

    static ReducingStateDescriptor<Long> sums()
    {
        return new ReducingStateDescriptor<>("sums", Long::sum, Long.class);
    }

    static AggregatingStateDescriptor<Long, Average, Double> averages()
    {
        return new AggregatingStateDescriptor<>("averages", new Averaging(), Average.class);
    }

    static ValueStateDescriptor<Long> counts()
    {
        return new ValueStateDescriptor<>("counts", Long.class);
    }

    // ------------------------------------------------------------------------------------------------ map state

    @Test
    void aMapStateHoldsAMapPerKeyAndCountsEachUserKey()
    {
        final KeyedStateStore store = newStore();
        final MapState<String, Long> visits = store.getMapState(visits());
        store.setCurrentKey(1L);
        assertThat(visits.isEmpty()).isTrue();
        assertThat(visits.get("a")).isNull();
        assertThat(visits.entries()).isEmpty();
        assertThat(visits.keys()).isEmpty();
        assertThat(visits.values()).isEmpty();

        visits.put("a", 1L);
        visits.put("b", 2L);
        visits.put("a", 10L);
        visits.put("c", 3L);
        store.setCurrentKey(2L);
        visits.put("a", 100L);
        store.setCurrentKey(1L);

        assertThat(visits.get("a")).isEqualTo(10L);
        assertThat(visits.contains("b")).isTrue();
        assertThat(visits.contains("z")).isFalse();
        assertThat(visits.isEmpty()).isFalse();
        assertThat(toMap(visits.entries())).isEqualTo(Map.of("a", 10L, "b", 2L, "c", 3L));
        assertThat(visits.keys()).containsExactlyInAnyOrder("a", "b", "c");
        assertThat(visits.values()).containsExactlyInAnyOrder(10L, 2L, 3L);
        assertThat(store.entryCount()).as("one entry per user key").isEqualTo(4);

        visits.remove("b");
        visits.remove("not there");
        visits.put("c", null);
        assertThat(toMap(visits.entries())).isEqualTo(Map.of("a", 10L));
        assertThat(store.entryCount()).isEqualTo(2);

        visits.clear();
        assertThat(visits.isEmpty()).isTrue();
        assertThat(visits.get("a")).isNull();
        assertThat(store.entryCount()).isEqualTo(1);
        visits.clear();
        visits.remove("a");
        store.setCurrentKey(2L);
        assertThat(visits.get("a")).isEqualTo(100L);
    }

    @Test
    void aMapStatesValuesMayChangeLength()
    {
        final KeyedStateStore store = newStore();
        final MapState<Long, String> labels =
            store.getMapState(new MapStateDescriptor<>("labels", Long.class, String.class));
        final Map<Long, String> model = new HashMap<>();
        store.setCurrentKey("key");
        for (long i = 0; i < 40; i++)
        {
            labels.put(i % 13, "x".repeat((int)i));
            model.put(i % 13, "x".repeat((int)i));
            if (i % 5 == 0)
            {
                labels.remove(i % 7);
                model.remove(i % 7);
            }
            assertThat(toMap(labels.entries())).as("after %d", i).isEqualTo(model);
        }
        for (final Map.Entry<Long, String> entry : model.entrySet())
        {
            assertThat(labels.get(entry.getKey())).isEqualTo(entry.getValue());
        }
        assertThat(store.entryCount()).isEqualTo(model.size());
    }

    @Test
    void aMapStateRefusesNullUserKeysAndItsViewsAreReadOnly()
    {
        final KeyedStateStore store = newStore();
        final MapState<String, Long> visits = store.getMapState(visits());
        store.setCurrentKey(1L);
        visits.put("a", 1L);

        assertThatThrownBy(() -> visits.put(null, 1L)).isInstanceOf(NullPointerException.class)
            .hasMessageContaining("'visits'");
        assertThatThrownBy(() -> visits.get(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> visits.remove(null)).isInstanceOf(NullPointerException.class);
        final Iterator<Map.Entry<String, Long>> entries = visits.entries().iterator();
        final Map.Entry<String, Long> entry = entries.next();
        assertThatThrownBy(() -> entry.setValue(5L)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(entries::remove).isInstanceOf(UnsupportedOperationException.class);
        assertThat(visits.get("a")).isEqualTo(1L);
    }

    // ------------------------------------------------------------------------------------------------ list state

    @Test
    void aListStateAppendsInOrderPerKey()
    {
        final KeyedStateStore store = newStore();
        final ListState<String> events = store.getListState(events());
        store.setCurrentKey(1L);
        assertThat(events.get()).isEmpty();

        events.add("a");
        events.add("b");
        events.addAll(List.of("c", "d"));
        events.addAll(List.of());
        store.setCurrentKey(2L);
        events.add("other");
        store.setCurrentKey(1L);
        assertThat(events.get()).containsExactly("a", "b", "c", "d");
        assertThat(store.entryCount()).as("one entry per key").isEqualTo(2);

        events.update(List.of("x", "y"));
        assertThat(events.get()).containsExactly("x", "y");
        events.update(List.of());
        assertThat(events.get()).isEmpty();
        assertThat(store.entryCount()).isEqualTo(1);
        events.add("z");
        events.update(null);
        assertThat(events.get()).isEmpty();
        events.add("again");
        events.clear();
        assertThat(events.get()).isEmpty();
        store.setCurrentKey(2L);
        assertThat(events.get()).containsExactly("other");
    }

    @Test
    void aListStateRefusesNullElementsAndChangesNothing()
    {
        final KeyedStateStore store = newStore();
        final ListState<String> events = store.getListState(events());
        store.setCurrentKey(1L);
        events.add("a");
        final List<String> withNull = new ArrayList<>();
        withNull.add("b");
        withNull.add(null);

        assertThatThrownBy(() -> events.add(null)).isInstanceOf(NullPointerException.class)
            .hasMessageContaining("'events'");
        assertThatThrownBy(() -> events.addAll(withNull)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> events.update(withNull)).isInstanceOf(NullPointerException.class);
        assertThat(events.get()).containsExactly("a");
        assertThatThrownBy(() -> events.get().iterator().remove()).isInstanceOf(RuntimeException.class);
    }

    // -------------------------------------------------------------------------------------- reducing, aggregating

    @Test
    void aReducingStateFoldsWhatIsAdded()
    {
        final KeyedStateStore store = newStore();
        final ReducingState<Long> sums = store.getReducingState(sums());
        store.setCurrentKey(1L);
        assertThat(sums.get()).isNull();

        sums.add(1L);
        sums.add(2L);
        sums.add(39L);
        store.setCurrentKey(2L);
        sums.add(-1L);
        store.setCurrentKey(1L);
        assertThat(sums.get()).isEqualTo(42L);
        assertThatThrownBy(() -> sums.add(null)).isInstanceOf(NullPointerException.class)
            .hasMessageContaining("'sums'");

        sums.clear();
        assertThat(sums.get()).isNull();
        store.setCurrentKey(2L);
        assertThat(sums.get()).isEqualTo(-1L);
        assertThat(store.entryCount()).isEqualTo(1);
    }

    @Test
    void anAggregatingStateStoresTheAccumulatorAndReadsTheResult()
    {
        final KeyedStateStore store = newStore();
        final AggregatingState<Long, Double> averages = store.getAggregatingState(averages());
        store.setCurrentKey(1L);
        assertThat(averages.get()).isNull();

        averages.add(2L);
        averages.add(4L);
        averages.add(9L);
        assertThat(averages.get()).isEqualTo(5.0);

        final Map<String, Map<Object, Object>> contents =
            SnapshotContents.decode(SnapshotContents.take(store, 1), CodecRegistry.withBuiltIns());
        assertThat(contents.get("averages")).isEqualTo(Map.of(1L, new Average(15, 3)));
        averages.clear();
        assertThat(averages.get()).isNull();
    }

    @Test
    void anAccumulatorChangedInPlaceAfterABarrierLeavesTheSnapshotAlone()
    {
        final CodecRegistry codecs = CodecRegistry.withBuiltIns().register(MutableCount.class, new MutableCountCodec());
        final KeyedStateStore store = newStore(codecs, MAX_PARALLELISM, ALL);
        final AggregatingState<String, Long> counted = store.getAggregatingState(
            new AggregatingStateDescriptor<>("counted", new Counting(), MutableCount.class));
        for (long key = 0; key < 50; key++)
        {
            store.setCurrentKey(key);
            counted.add("a");
            counted.add("b");
        }

        final KeyedStateSnapshot snapshot = store.snapshot(1);
        for (long key = 0; key < 50; key++)
        {
            store.setCurrentKey(key);
            counted.add("c");
        }
        final Map<String, Map<Object, Object>> contents =
            SnapshotContents.decode(SnapshotContents.write(snapshot), codecs);

        assertThat(contents.get("counted")).hasSize(50).allSatisfy((key, count) ->
            assertThat(count).as("key %s", key).isEqualTo(new MutableCount(2)));
        store.setCurrentKey(7L);
        assertThat(counted.get()).isEqualTo(3L);
    }

    // ------------------------------------------------------------------------------------------------ declaration

    @Test
    void aNameIsOneStateWhateverItsKind()
    {
        final KeyedStateStore store = newStore();
        store.getValueState(new ValueStateDescriptor<>("x", Long.class));
        final MapState<String, Long> visits = store.getMapState(visits());
        final ListState<String> events = store.getListState(events());
        final ReducingState<Long> sums = store.getReducingState(sums());
        final AggregatingState<Long, Double> averages = store.getAggregatingState(averages());

        assertThat(store.getMapState(visits())).isSameAs(visits);
        assertThat(store.getListState(events())).isSameAs(events);
        assertThat(store.getReducingState(sums())).isSameAs(sums);
        assertThat(store.getAggregatingState(averages())).isSameAs(averages);
        assertThatThrownBy(() -> store.getMapState(new MapStateDescriptor<>("x", Long.class, Long.class)))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("'x'").hasMessageContaining("VALUE")
            .hasMessageContaining("MAP");
        assertThatThrownBy(() -> store.getReducingState(new ReducingStateDescriptor<>("events", (a, b) -> a,
            String.class))).isInstanceOf(IllegalStateException.class).hasMessageContaining("'events'")
            .hasMessageContaining("LIST").hasMessageContaining("REDUCING");
        assertThatThrownBy(() -> store.getMapState(new MapStateDescriptor<>("visits", Long.class, Long.class)))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("'visits'")
            .hasMessageContaining("java.lang.String to java.lang.Long")
            .hasMessageContaining("java.lang.Long to java.lang.Long");
        assertThatThrownBy(() -> store.getListState(new ListStateDescriptor<>("events", Long.class)))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("'events'");
        assertThatThrownBy(() -> store.getAggregatingState(
            new AggregatingStateDescriptor<>("averages", new Counting(), MutableCount.class)))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("'averages'")
            .hasMessageContaining(Average.class.getName());
        assertThatThrownBy(() -> store.getReducingState(sums().enableTimeToLive(
            StateTtlConfig.of(Duration.ofSeconds(1))))).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("'sums'").hasMessageContaining("time-to-live");
    }

    @Test
    void everyKindNeedsACurrentKey()
    {
        final KeyedStateStore store = newStore();
        final MapState<String, Long> visits = store.getMapState(visits());
        final ListState<String> events = store.getListState(events());
        final ReducingState<Long> sums = store.getReducingState(sums());
        final AggregatingState<Long, Double> averages = store.getAggregatingState(averages());

        assertThatThrownBy(() -> visits.get("a")).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("'visits'").hasMessageContaining("no current key");
        assertThatThrownBy(events::get).isInstanceOf(IllegalStateException.class).hasMessageContaining("'events'");
        assertThatThrownBy(() -> sums.add(1L)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("'sums'");
        assertThatThrownBy(averages::clear).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("'averages'");
    }

    // ------------------------------------------------------------------------------------------------ snapshots

    @Test
    void aSnapshotOfEveryKindIsTheStateAtItsBarrier()
    {
        final KeyedStateStore store = newStore();
        final Map<String, Map<Object, Object>> atBarrier = populateEveryKind(store, 600);

        final KeyedStateSnapshot snapshot = store.snapshot(1);
        final MapState<String, Long> visits = store.getMapState(visits());
        final ListState<String> events = store.getListState(events());
        final ReducingState<Long> sums = store.getReducingState(sums());
        final AggregatingState<Long, Double> averages = store.getAggregatingState(averages());
        for (long key = 0; key < 800; key++)
        {
            store.setCurrentKey(key);
            switch ((int)(key % 5))
            {
                case 0 -> visits.put("page-" + key % 3, -key);
                case 1 -> visits.clear();
                case 2 -> events.add("after");
                case 3 -> events.clear();
                default ->
                {
                    sums.add(1_000L);
                    averages.add(1_000L);
                    visits.remove("page-1");
                }
            }
        }

        assertThat(SnapshotContents.decode(SnapshotContents.write(snapshot), CodecRegistry.withBuiltIns()))
            .isEqualTo(atBarrier);
    }

    @Test
    void snapshotsOfEveryKindAreTheSameBytesInBothBackendsAndRestoreInEither()
    {
        final List<byte[]> snapshots = new ArrayList<>();
        Map<String, Map<Object, Object>> expected = null;
        for (final KeyedStateStore store : storeOfEachBackend(CodecRegistry.withBuiltIns(), ALL))
        {
            expected = populateEveryKind(store, 500);
            snapshots.add(SnapshotContents.take(store, 1));
        }
        final KeyedStateStore underTest = newStore();
        populateEveryKind(underTest, 500);
        snapshots.add(SnapshotContents.take(underTest, 1));

        assertThat(SnapshotContents.rawEntries(snapshots.get(1))).as("Chronicle's entries, byte for byte")
            .isEqualTo(SnapshotContents.rawEntries(snapshots.get(0)));
        assertThat(SnapshotContents.reader(snapshots.get(1)).states())
            .containsExactlyInAnyOrderElementsOf(SnapshotContents.reader(snapshots.get(0)).states());
        for (final byte[] bytes : snapshots)
        {
            assertThat(SnapshotContents.decode(bytes, CodecRegistry.withBuiltIns())).isEqualTo(expected);
            for (final KeyedStateStore target : storeOfEachBackend(CodecRegistry.withBuiltIns(), ALL))
            {
                target.restore(List.of(SnapshotContents.reader(bytes)));
                assertEveryKindReads(target, expected, 500);
                assertThat(target.entryCount()).isEqualTo(entries(expected));
                assertThat(SnapshotContents.decode(SnapshotContents.take(target, 2), CodecRegistry.withBuiltIns()))
                    .as("%s snapshotted again", target).isEqualTo(expected);
            }
            final KeyedStateStore restored = restoredFrom(bytes);
            assertEveryKindReads(restored, expected, 500);
        }
    }

    @Test
    void restoredStatesOfEveryKindNotDeclaredYetAreCarriedAndCounted()
    {
        final KeyedStateStore store = newStore();
        final Map<String, Map<Object, Object>> expected = populateEveryKind(store, 300);
        final byte[] first = SnapshotContents.take(store, 1);

        final KeyedStateStore restored = restoredFrom(first);
        assertThat(restored.entryCount()).isEqualTo(entries(expected));
        final byte[] second = SnapshotContents.take(restored, 2);

        assertThat(SnapshotContents.decode(second, CodecRegistry.withBuiltIns())).isEqualTo(expected);
        assertThat(SnapshotContents.rawEntries(second)).isEqualTo(SnapshotContents.rawEntries(first));
    }

    @Test
    void everyKindSplitsByKeyGroupAndMergesBackAcrossBackends()
    {
        final KeyedStateStore full = newStore();
        final MapState<String, Long> visits = full.getMapState(visits());
        final ListState<String> events = full.getListState(events());
        final Map<Object, Object> visitModel = new HashMap<>();
        final Map<Object, Object> eventModel = new HashMap<>();
        for (int i = 0; i < 2_000; i++)
        {
            final String key = "key-" + i;
            full.setCurrentKey(key);
            final Map<String, Long> userKeys = new HashMap<>();
            for (int u = 0; u <= i % 4; u++)
            {
                visits.put("page-" + u, (long)i * u);
                userKeys.put("page-" + u, (long)i * u);
            }
            visitModel.put(key, userKeys);
            events.addAll(List.of("e" + i, "f" + i));
            eventModel.put(key, List.of("e" + i, "f" + i));
        }
        final Map<String, Map<Object, Object>> expected =
            SnapshotContents.expected(Map.of("visits", visitModel, "events", eventModel));
        final byte[] whole = SnapshotContents.take(full, 1);
        final List<byte[]> parts = new ArrayList<>();
        long entries = 0;
        for (int subtask = 0; subtask < 3; subtask++)
        {
            final KeyGroupRange range = KeyGroups.rangeOf(subtask, MAX_PARALLELISM, 3);
            final KeyedStateStore part = newStore(CodecRegistry.withBuiltIns(), MAX_PARALLELISM, range);
            part.restore(List.of(SnapshotContents.reader(whole)));
            final MapState<String, Long> partVisits = part.getMapState(visits());
            final ListState<String> partEvents = part.getListState(events());
            for (final Map.Entry<Object, Object> entry : visitModel.entrySet())
            {
                final boolean owned = range.contains(KeyGroups.keyGroupOf(entry.getKey(), MAX_PARALLELISM));
                part.setCurrentKey(entry.getKey());
                assertThat(toMap(partVisits.entries())).as("subtask %d, %s", subtask, entry.getKey())
                    .isEqualTo(owned ? entry.getValue() : Map.of());
                assertThat(partEvents.get()).isEqualTo(owned ? eventModel.get(entry.getKey()) : List.of());
            }
            entries += part.entryCount();
            parts.add(SnapshotContents.take(part, 2));
        }
        assertThat(entries).isEqualTo(entries(expected));

        for (final KeyedStateStore merged : storeOfEachBackend(CodecRegistry.withBuiltIns(), ALL))
        {
            merged.restore(parts.stream().map(SnapshotContents::reader).toList());
            merged.getMapState(visits());
            assertThat(SnapshotContents.decode(SnapshotContents.take(merged, 3), CodecRegistry.withBuiltIns()))
                .as("%s", merged).isEqualTo(expected);
        }
    }

    // ------------------------------------------------------------------------------------------------ restore checks

    @Test
    void restoredEntriesOfEveryKindAreCheckedWhenTheirStateIsDeclared()
    {
        final KeyedStateStore store = restoredFrom(SnapshotContents.take(populated(newStore()), 1));

        assertThatThrownBy(() -> store.getListState(new ListStateDescriptor<>("visits", Long.class)))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("'visits'").hasMessageContaining("MAP")
            .hasMessageContaining("LIST");
        assertThatThrownBy(() -> store.getMapState(new MapStateDescriptor<>("visits", Long.class, Long.class)))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("'visits'")
            .hasMessageContaining("user keys").hasMessageContaining("java.lang.String");
        assertThatThrownBy(() -> store.getMapState(new MapStateDescriptor<>("visits", String.class, String.class)))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("'visits'")
            .hasMessageContaining("java.lang.Long").hasMessageContaining("java.lang.String");
        assertThatThrownBy(() -> store.getListState(new ListStateDescriptor<>("events", Long.class)))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("'events'");
        assertThatThrownBy(() -> store.getValueState(new ValueStateDescriptor<>("sums", Long.class)))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("'sums'")
            .hasMessageContaining("REDUCING").hasMessageContaining("VALUE");
        assertThatThrownBy(() -> store.getAggregatingState(
            new AggregatingStateDescriptor<>("averages", new Counting(), MutableCount.class)))
            .isInstanceOf(RuntimeException.class).hasMessageContaining(MutableCount.class.getName());

        // refused declarations leave the restored entries in place
        final Map<String, Map<Object, Object>> expected = populateEveryKind(newStore(), 200);
        assertEveryKindReads(store, expected, 200);
    }

    @Test
    void aUserKeyCodecOfAnotherVersionIsNamed()
    {
        final KeyedStateStore writer = newStore();
        final MapState<Slot, Long> slots =
            writer.getMapState(new MapStateDescriptor<>("slots", Slot.class, Long.class));
        writer.setCurrentKey(1L);
        slots.put(new Slot(3), 4L);
        final byte[] bytes = SnapshotContents.take(writer, 1);
        final KeyedStateStore store =
            restoredFrom(bytes, CodecRegistry.withBuiltIns().register(Slot.class, new SlotCodecVersion2()));

        assertThatThrownBy(() -> store.getMapState(new MapStateDescriptor<>("slots", Slot.class, Long.class)))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("'slots'")
            .hasMessageContaining("user key type").hasMessageContaining("version 2");
        assertThat(SnapshotContents.reader(bytes).states()).singleElement()
            .isEqualTo(new StateMeta("slots", StateKind.MAP, Long.class.getName(), 1, Long.class.getName(), 1,
                Slot.class.getName(), 1, false));
    }

    // ------------------------------------------------------------------------------------------------ model

    /**
     * Seeded operations on a value, a map, a list and a reducing state (puts, removes, clears, appends, replacements,
     * folds, ever new keys); snapshots at random barriers, several pending at once, written by two flusher threads
     * while the task keeps writing. Each written snapshot must equal a copy of the model taken at its barrier, and
     * the last one must restore into both backends.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 424_242, 20_261_130})
    void snapshotsOfEveryKindFlushedWhileTheTaskWritesEqualTheModelAtTheirBarriers(final long seed) throws Exception
    {
        final KeyedStateStore store = newStore();
        final ValueState<Long> counts = store.getValueState(counts());
        final MapState<String, Long> visits = store.getMapState(visits());
        final ListState<String> events = store.getListState(events());
        final ReducingState<Long> sums = store.getReducingState(sums());
        final Map<Object, Object> countModel = new HashMap<>();
        final Map<Object, Object> visitModel = new HashMap<>();
        final Map<Object, Object> eventModel = new HashMap<>();
        final Map<Object, Object> sumModel = new HashMap<>();
        final Random random = new Random(seed);
        final ExecutorService flushers = Executors.newFixedThreadPool(2);
        final Deque<KeyedStateSnapshot> notYetSubmitted = new ArrayDeque<>();
        final List<Future<byte[]>> written = new ArrayList<>();
        final List<Map<String, Map<Object, Object>>> expected = new ArrayList<>();
        int keySpace = 128;
        try
        {
            for (int op = 0; op < 30_000; op++)
            {
                if (random.nextInt(60) == 0)
                {
                    keySpace += 32;
                }
                final long key = random.nextInt(keySpace);
                store.setCurrentKey(key);
                @SuppressWarnings("unchecked")
                final Map<String, Long> userKeys =
                    (Map<String, Long>)visitModel.computeIfAbsent(key, k -> new HashMap<String, Long>());
                @SuppressWarnings("unchecked")
                final List<String> elements =
                    (List<String>)eventModel.computeIfAbsent(key, k -> new ArrayList<String>());
                final String page = "page-" + random.nextInt(6);
                switch (random.nextInt(12))
                {
                    case 0, 1 ->
                    {
                        final long next = random.nextLong();
                        counts.update(next);
                        countModel.put(key, next);
                    }
                    case 2 ->
                    {
                        counts.clear();
                        countModel.remove(key);
                    }
                    case 3, 4 ->
                    {
                        final long next = userKeys.getOrDefault(page, 0L) + 1;
                        visits.put(page, next);
                        userKeys.put(page, next);
                    }
                    case 5 ->
                    {
                        final String label = "x".repeat(random.nextInt(4));
                        final long next = label.length() * 1_000L + random.nextInt(100);
                        visits.put(page + label, next);
                        userKeys.put(page + label, next);
                    }
                    case 6 ->
                    {
                        visits.remove(page);
                        userKeys.remove(page);
                    }
                    case 7 ->
                    {
                        if (random.nextInt(4) == 0)
                        {
                            visits.clear();
                            userKeys.clear();
                        }
                    }
                    case 8, 9 ->
                    {
                        final String element = "e" + random.nextInt(1_000);
                        events.add(element);
                        elements.add(element);
                    }
                    case 10 ->
                    {
                        if (random.nextBoolean())
                        {
                            events.clear();
                            elements.clear();
                        }
                        else
                        {
                            final List<String> replacement = List.of("r" + op, "s" + op);
                            events.update(replacement);
                            elements.clear();
                            elements.addAll(replacement);
                        }
                    }
                    default ->
                    {
                        final long value = random.nextInt(100);
                        sums.add(value);
                        sumModel.merge(key, value, (a, b) -> (Long)a + (Long)b);
                    }
                }
                assertThat(visits.get(page)).as("seed %d op %d", seed, op).isEqualTo(userKeys.get(page));
                if (random.nextInt(1_200) == 0)
                {
                    notYetSubmitted.add(store.snapshot(written.size() + notYetSubmitted.size()));
                    expected.add(SnapshotContents.expected(Map.of("counts", countModel, "visits", visitModel,
                        "events", eventModel, "sums", sumModel)));
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
                assertThat(SnapshotContents.decode(written.get(i).get(60, TimeUnit.SECONDS),
                    CodecRegistry.withBuiltIns())).as("seed %d snapshot %d", seed, i).isEqualTo(expected.get(i));
            }
            final byte[] last = written.get(written.size() - 1).get();
            final Map<String, Map<Object, Object>> lastExpected = expected.get(expected.size() - 1);
            for (final KeyedStateStore restored : storeOfEachBackend(CodecRegistry.withBuiltIns(), ALL))
            {
                restored.restore(List.of(SnapshotContents.reader(last)));
                final MapState<String, Long> restoredVisits = restored.getMapState(visits());
                final ListState<String> restoredEvents = restored.getListState(events());
                for (long key = 0; key < keySpace; key++)
                {
                    restored.setCurrentKey(key);
                    assertThat(toMap(restoredVisits.entries())).as("seed %d %s key %d", seed, restored, key)
                        .isEqualTo(lastExpected.getOrDefault("visits", Map.of()).getOrDefault(key, Map.of()));
                    assertThat(restoredEvents.get()).as("seed %d %s key %d", seed, restored, key)
                        .isEqualTo(lastExpected.getOrDefault("events", Map.of()).getOrDefault(key, List.of()));
                }
                assertThat(restored.entryCount()).isEqualTo(entries(lastExpected));
            }
        }
        finally
        {
            flushers.shutdownNow();
        }
    }

    // ------------------------------------------------------------------------------------------------ support

    /** Fills a value, map, list, reducing and aggregating state for keys 0..keys-1 (some keys left out of each). */
    static Map<String, Map<Object, Object>> populateEveryKind(final KeyedStateStore store, final int keys)
    {
        final ValueState<Long> counts = store.getValueState(counts());
        final MapState<String, Long> visits = store.getMapState(visits());
        final ListState<String> events = store.getListState(events());
        final ReducingState<Long> sums = store.getReducingState(sums());
        final AggregatingState<Long, Double> averages = store.getAggregatingState(averages());
        final Map<Object, Object> countModel = new HashMap<>();
        final Map<Object, Object> visitModel = new HashMap<>();
        final Map<Object, Object> eventModel = new HashMap<>();
        final Map<Object, Object> sumModel = new HashMap<>();
        final Map<Object, Object> averageModel = new HashMap<>();
        for (long key = 0; key < keys; key++)
        {
            store.setCurrentKey(key);
            if (key % 2 == 0)
            {
                counts.update(key * key);
                countModel.put(key, key * key);
            }
            if (key % 3 != 0)
            {
                final Map<String, Long> userKeys = new HashMap<>();
                for (int u = 0; u < key % 5 + 1; u++)
                {
                    visits.put("page-" + u, key + u);
                    userKeys.put("page-" + u, key + u);
                }
                visitModel.put(key, userKeys);
            }
            if (key % 4 != 1)
            {
                final List<String> elements = new ArrayList<>();
                for (int e = 0; e < key % 3 + 1; e++)
                {
                    events.add("event-" + key + "-" + e);
                    elements.add("event-" + key + "-" + e);
                }
                eventModel.put(key, elements);
            }
            if (key % 5 != 2)
            {
                sums.add(key);
                sums.add(1L);
                sumModel.put(key, key + 1);
                averages.add(key);
                averages.add(key + 2);
                averageModel.put(key, new Average(2 * key + 2, 2));
            }
        }
        return SnapshotContents.expected(Map.of("counts", countModel, "visits", visitModel, "events", eventModel,
            "sums", sumModel, "averages", averageModel));
    }

    private static KeyedStateStore populated(final KeyedStateStore store)
    {
        populateEveryKind(store, 200);
        return store;
    }

    /** Reads every kind back for keys 0..keys-1 and checks it against what {@link #populateEveryKind} wrote. */
    static void assertEveryKindReads(
        final KeyedStateStore store, final Map<String, Map<Object, Object>> expected, final int keys)
    {
        final ValueState<Long> counts = store.getValueState(counts());
        final MapState<String, Long> visits = store.getMapState(visits());
        final ListState<String> events = store.getListState(events());
        final ReducingState<Long> sums = store.getReducingState(sums());
        final AggregatingState<Long, Double> averages = store.getAggregatingState(averages());
        for (long key = 0; key < keys; key++)
        {
            store.setCurrentKey(key);
            final String where = store + " key " + key;
            assertThat(counts.value()).as(where).isEqualTo(expected.get("counts").get(key));
            assertThat(toMap(visits.entries())).as(where)
                .isEqualTo(expected.get("visits").getOrDefault(key, Map.of()));
            assertThat(events.get()).as(where).isEqualTo(expected.get("events").getOrDefault(key, List.of()));
            assertThat(sums.get()).as(where).isEqualTo(expected.get("sums").get(key));
            final Average average = (Average)expected.get("averages").get(key);
            assertThat(averages.get()).as(where)
                .isEqualTo(average == null ? null : (double)average.sum() / average.count());
        }
    }

    /** @return the snapshot entries of decoded contents: one per user key for maps, else one per key. */
    static long entries(final Map<String, Map<Object, Object>> contents)
    {
        long count = 0;
        for (final Map<Object, Object> state : contents.values())
        {
            for (final Object value : state.values())
            {
                count += value instanceof Map<?, ?> map ? map.size() : 1;
            }
        }
        return count;
    }

    static <K, V> Map<K, V> toMap(final Iterable<Map.Entry<K, V>> entries)
    {
        final Map<K, V> map = new HashMap<>();
        for (final Map.Entry<K, V> entry : entries)
        {
            if (map.put(entry.getKey(), Objects.requireNonNull(entry.getValue())) != null)
            {
                throw new AssertionError("user key " + entry.getKey() + " iterated twice");
            }
        }
        return map;
    }
}
