package io.ringflow.state.keyed;

import io.ringflow.state.backend.KeyedStateStore;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.snapshot.KeyedStateSnapshot;
import io.ringflow.state.snapshot.StateMeta;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.ringflow.state.keyed.StateKindsConformanceTest.toMap;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Time-to-live, the same in every {@link KeyedStateStore}, on a manual clock: expired entries are invisible and
 * removed when touched, writes (and, under update-on-read, reads) refresh them, a map state's user keys expire one by
 * one and a list as a whole, snapshots leave out what had expired at their barrier and carry the timestamps of the
 * rest (the same bytes in both backends), and restoring a state with a time-to-live into a declaration without one,
 * or the reverse, is refused by name. A backend's test extends this class and says how to build a store.
 */
public abstract class TimeToLiveConformanceTest extends KeyedStoreFixture
{
    private static final long START = 1_000_000;

    private final ManualClock clock = new ManualClock(START);

    private StateTtlConfig ttl(final long millis)
    {
        return StateTtlConfig.of(Duration.ofMillis(millis)).withClock(clock);
    }

    private StateTtlConfig ttlRefreshedOnRead(final long millis)
    {
        return ttl(millis).withUpdateType(StateTtlConfig.UpdateType.OnReadAndWrite);
    }

    // ------------------------------------------------------------------------------------------------ semantics

    @Test
    void aValueExpiresItsTtlAfterItWasWrittenAndIsRemovedWhenRead()
    {
        // given a value state whose entries live 100 ms after they are written
        final KeyedStateStore store = newStore();
        final ValueState<Long> counts =
            store.getValueState(new ValueStateDescriptor<>("counts", Long.class, -1L).enableTimeToLive(ttl(100)));
        store.setCurrentKey(1L);
        counts.update(5L);

        // when read just before, then at its expiry
        clock.advance(50);
        assertThat(counts.value()).as("a read does not refresh on write-only").isEqualTo(5L);
        clock.advance(49);
        assertThat(counts.value()).isEqualTo(5L);
        assertThat(store.entryCount()).isEqualTo(1);
        clock.advance(1);

        // then it reads as absent, and is gone
        assertThat(counts.value()).isEqualTo(-1L);
        assertThat(store.entryCount()).isZero();

        // a write starts a new life
        counts.update(6L);
        clock.advance(99);
        counts.update(7L);
        clock.advance(99);
        assertThat(counts.value()).isEqualTo(7L);
        clock.advance(1);
        assertThat(counts.value()).isEqualTo(-1L);
    }

    @Test
    void underUpdateOnReadAReadKeepsAValueAlive()
    {
        final KeyedStateStore store = newStore();
        final ValueState<String> labels = store.getValueState(
            new ValueStateDescriptor<>("labels", String.class).enableTimeToLive(ttlRefreshedOnRead(100)));
        store.setCurrentKey("k");
        labels.update("v");

        for (int i = 0; i < 10; i++)
        {
            clock.advance(99);
            assertThat(labels.value()).as("read %d", i).isEqualTo("v");
        }
        clock.advance(100);
        assertThat(labels.value()).isNull();
        assertThat(store.entryCount()).isZero();
    }

    @Test
    void aMapStatesUserKeysExpireOneByOne()
    {
        final KeyedStateStore store = newStore();
        final MapState<String, Long> visits = store.getMapState(
            new MapStateDescriptor<>("visits", String.class, Long.class).enableTimeToLive(ttl(100)));
        store.setCurrentKey(1L);
        visits.put("a", 1L);
        clock.advance(50);
        visits.put("b", 2L);
        visits.put("c", 3L);
        clock.advance(50);

        // a expired; reading it removes it
        assertThat(visits.get("a")).isNull();
        assertThat(store.entryCount()).isEqualTo(2);
        assertThat(visits.contains("b")).isTrue();
        assertThat(toMap(visits.entries())).isEqualTo(Map.of("b", 2L, "c", 3L));
        visits.put("b", 20L);
        clock.advance(50);

        // c expired, untouched: still counted until touched
        assertThat(store.entryCount()).isEqualTo(2);
        assertThat(visits.keys()).containsExactly("b");
        assertThat(store.entryCount()).isEqualTo(1);
        assertThat(visits.isEmpty()).isFalse();
        clock.advance(50);
        assertThat(store.entryCount()).isEqualTo(1);
        assertThat(visits.isEmpty()).isTrue();
        assertThat(store.entryCount()).isZero();
        assertThat(visits.values()).isEmpty();
    }

    @Test
    void underUpdateOnReadIteratingAMapKeepsEveryEntryAlive()
    {
        final KeyedStateStore store = newStore();
        final MapState<String, Long> visits = store.getMapState(
            new MapStateDescriptor<>("visits", String.class, Long.class).enableTimeToLive(ttlRefreshedOnRead(100)));
        store.setCurrentKey(1L);
        visits.put("a", 1L);
        visits.put("b", 2L);

        clock.advance(99);
        assertThat(visits.values()).containsExactlyInAnyOrder(1L, 2L);
        clock.advance(99);
        assertThat(visits.get("a")).isEqualTo(1L);
        clock.advance(2);
        // a was read 2 ms ago, b 101 ms ago
        assertThat(visits.isEmpty()).isFalse();
        assertThat(visits.get("b")).isNull();
        assertThat(store.entryCount()).isEqualTo(1);
        clock.advance(100);
        assertThat(visits.isEmpty()).as("isEmpty refreshes nothing").isTrue();
    }

    @Test
    void aListExpiresAsAWholeAndAddsRefreshIt()
    {
        final KeyedStateStore store = newStore();
        final ListState<String> events = store.getListState(
            new ListStateDescriptor<>("events", String.class).enableTimeToLive(ttl(100)));
        store.setCurrentKey(1L);
        events.add("x");
        clock.advance(60);
        events.add("y");
        clock.advance(99);
        assertThat(events.get()).containsExactly("x", "y");
        clock.advance(1);

        assertThat(events.get()).isEmpty();
        events.add("z");
        assertThat(events.get()).as("expired elements do not come back").containsExactly("z");
        clock.advance(100);
        events.addAll(List.of("p", "q"));
        assertThat(events.get()).containsExactly("p", "q");
    }

    @Test
    void reducingAndAggregatingStatesStartAfreshOnceExpired()
    {
        final KeyedStateStore store = newStore();
        final ReducingState<Long> sums = store.getReducingState(
            StateKindsConformanceTest.sums().enableTimeToLive(ttl(100)));
        final AggregatingState<Long, Double> averages = store.getAggregatingState(
            StateKindsConformanceTest.averages().enableTimeToLive(ttl(100)));
        store.setCurrentKey(1L);
        sums.add(40L);
        averages.add(40L);
        clock.advance(99);
        sums.add(2L);
        averages.add(2L);
        clock.advance(99);
        assertThat(sums.get()).isEqualTo(42L);
        assertThat(averages.get()).isEqualTo(21.0);
        clock.advance(1);

        assertThat(sums.get()).isNull();
        assertThat(averages.get()).isNull();
        sums.add(5L);
        averages.add(5L);
        assertThat(sums.get()).isEqualTo(5L);
        assertThat(averages.get()).isEqualTo(5.0);
    }

    @Test
    void aTimeToLiveIsPartOfTheDeclaration()
    {
        final KeyedStateStore store = newStore();
        final ValueStateDescriptor<Long> plain = new ValueStateDescriptor<>("counts", Long.class);
        store.getValueState(new ValueStateDescriptor<>("counts", Long.class).enableTimeToLive(ttl(100)));

        assertThat(store.getValueState(new ValueStateDescriptor<>("counts", Long.class).enableTimeToLive(
            StateTtlConfig.of(Duration.ofMillis(100))))).as("the same expiry, another clock").isNotNull();
        assertThatThrownBy(() -> store.getValueState(plain)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("'counts'").hasMessageContaining("time-to-live");
        assertThatThrownBy(() -> store.getValueState(new ValueStateDescriptor<>("counts", Long.class)
            .enableTimeToLive(ttlRefreshedOnRead(100)))).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("OnReadAndWrite");
        assertThatThrownBy(() -> StateTtlConfig.of(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> plain.enableTimeToLive(null)).isInstanceOf(NullPointerException.class)
            .hasMessageContaining("'counts'");
    }

    // ------------------------------------------------------------------------------------------------ snapshots

    @Test
    void snapshotsLeaveOutWhatExpiredAtTheirBarrierAndKeepTimestamps()
    {
        final List<byte[]> snapshots = new ArrayList<>();
        Map<String, Map<Object, Object>> expected = null;
        final List<KeyedStateStore> stores = new ArrayList<>(storeOfEachBackend(CodecRegistry.withBuiltIns(), ALL));
        stores.add(newStore());
        for (final KeyedStateStore store : stores)
        {
            clock.set(START);
            expected = populateWithTtl(store);

            // barrier at START + 100: keys 0..9, written at START, have expired; keys 10..19 have not
            final KeyedStateSnapshot snapshot = store.snapshot(1);
            // after the barrier: an expired key is touched, a live one overwritten, time passes past everyone
            store.setCurrentKey(3L);
            store.getValueState(sessions()).update(-3L);
            store.setCurrentKey(12L);
            store.getValueState(sessions()).update(-12L);
            store.getMapState(carts()).clear();
            clock.advance(1_000);
            store.setCurrentKey(15L);
            assertThat(store.getValueState(sessions()).value()).isNull();
            snapshots.add(SnapshotContents.write(snapshot));
        }

        for (final byte[] bytes : snapshots)
        {
            assertThat(SnapshotContents.decode(bytes, CodecRegistry.withBuiltIns())).isEqualTo(expected);
            assertThat(SnapshotContents.reader(bytes).states()).extracting(StateMeta::timeToLive)
                .containsOnly(true);
            final Map<String, Map<Object, Long>> timestamps =
                SnapshotContents.timestamps(bytes, CodecRegistry.withBuiltIns());
            assertThat(timestamps.get("sessions")).hasSize(10).containsEntry(12L, START + 50);
            assertThat(timestamps.get("carts")).containsEntry(List.of(12L, "item-1"), START + 50)
                .containsEntry(List.of(13L, "item-0"), START + 60);
            assertThat(timestamps.get("events")).containsEntry(19L, START + 50);
            assertThat(SnapshotContents.rawEntries(bytes)).as("the same bytes from every backend")
                .isEqualTo(SnapshotContents.rawEntries(snapshots.get(0)));
        }
    }

    @Test
    void restoredEntriesKeepTheirExpiryInEveryBackend()
    {
        final KeyedStateStore writer = newStore();
        populateWithTtl(writer);
        final byte[] bytes = SnapshotContents.take(writer, 1);

        for (final KeyedStateStore store : storeOfEachBackend(CodecRegistry.withBuiltIns(), ALL))
        {
            clock.set(START + 100);
            store.restore(List.of(SnapshotContents.reader(bytes)));
            final ValueState<Long> sessions = store.getValueState(sessions());
            final MapState<String, Long> carts = store.getMapState(carts());
            final ListState<String> events = store.getListState(eventsWithTtl());
            for (long key = 0; key < 20; key++)
            {
                store.setCurrentKey(key);
                assertThat(sessions.value()).as("%s key %d", store, key).isEqualTo(key < 10 ? null : key);
                assertThat(toMap(carts.entries())).as("%s key %d", store, key).hasSize(key < 10 ? 0 : 2);
                assertThat(events.get()).as("%s key %d", store, key).hasSize(key < 10 ? 0 : 1);
            }
            // written at START + 50 (item-0 of odd keys at START + 60): gone 100 ms later
            clock.set(START + 150);
            store.setCurrentKey(13L);
            assertThat(sessions.value()).isNull();
            assertThat(toMap(carts.entries())).isEqualTo(Map.of("item-0", 13L));
            assertThat(events.get()).isEmpty();
            clock.set(START + 160);
            assertThat(carts.isEmpty()).isTrue();
        }
    }

    @Test
    void aLongerTimeToLiveAppliesToRestoredTimestamps()
    {
        final KeyedStateStore writer = newStore();
        populateWithTtl(writer);
        final byte[] bytes = SnapshotContents.take(writer, 1);
        final KeyedStateStore store = restoredFrom(bytes);

        final ValueState<Long> sessions = store.getValueState(
            new ValueStateDescriptor<>("sessions", Long.class).enableTimeToLive(ttl(1_000)));
        store.setCurrentKey(12L);
        assertThat(sessions.value()).isEqualTo(12L);
        clock.set(START + 50 + 999);
        assertThat(sessions.value()).isEqualTo(12L);
        clock.advance(1);
        assertThat(sessions.value()).isNull();
    }

    @Test
    void aStateWithATimeToLiveRestoresOnlyIntoADeclarationWithOne()
    {
        final KeyedStateStore writer = newStore();
        populateWithTtl(writer);
        final KeyedStateStore store = restoredFrom(SnapshotContents.take(writer, 1));

        assertThatThrownBy(() -> store.getValueState(new ValueStateDescriptor<>("sessions", Long.class)))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("'sessions'")
            .hasMessageContaining("with a time-to-live").hasMessageContaining("without one");
        assertThatThrownBy(() -> store.getMapState(new MapStateDescriptor<>("carts", String.class, Long.class)))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("'carts'")
            .hasMessageContaining("time-to-live");

        final KeyedStateStore plain = newStore();
        final ListState<String> events = plain.getListState(new ListStateDescriptor<>("events", String.class));
        plain.setCurrentKey(1L);
        events.add("e");
        final KeyedStateStore restored = restoredFrom(SnapshotContents.take(plain, 1));
        assertThatThrownBy(() -> restored.getListState(eventsWithTtl()))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("'events'")
            .hasMessageContaining("without a time-to-live").hasMessageContaining("with one");
        // after a refused declaration, the right one gets the entries
        restored.setCurrentKey(1L);
        assertThat(restored.getListState(new ListStateDescriptor<>("events", String.class)).get())
            .containsExactly("e");
    }

    // ------------------------------------------------------------------------------------------------ support

    private ValueStateDescriptor<Long> sessions()
    {
        return new ValueStateDescriptor<>("sessions", Long.class).enableTimeToLive(ttl(100));
    }

    private MapStateDescriptor<String, Long> carts()
    {
        return new MapStateDescriptor<>("carts", String.class, Long.class).enableTimeToLive(ttl(100));
    }

    private ListStateDescriptor<String> eventsWithTtl()
    {
        return new ListStateDescriptor<>("events", String.class).enableTimeToLive(ttl(100));
    }

    /**
     * Keys 0..9 written at START; keys 10..19 at START + 50, but their user key item-0 at START + 60. The clock is
     * left at START + 100, where keys 0..9 have expired.
     *
     * @return the contents of a snapshot taken at START + 100.
     */
    private Map<String, Map<Object, Object>> populateWithTtl(final KeyedStateStore store)
    {
        final ValueState<Long> sessions = store.getValueState(sessions());
        final MapState<String, Long> carts = store.getMapState(carts());
        final ListState<String> events = store.getListState(eventsWithTtl());
        final Map<Object, Object> sessionModel = new HashMap<>();
        final Map<Object, Object> cartModel = new HashMap<>();
        final Map<Object, Object> eventModel = new HashMap<>();
        for (long key = 0; key < 20; key++)
        {
            if (key == 10)
            {
                clock.set(START + 50);
            }
            store.setCurrentKey(key);
            sessions.update(key);
            carts.put("item-1", key);
            events.add("event-" + key);
            if (key < 10)
            {
                carts.put("item-0", key);
            }
            else
            {
                sessionModel.put(key, key);
                cartModel.put(key, Map.of("item-0", key, "item-1", key));
                eventModel.put(key, List.of("event-" + key));
            }
        }
        clock.set(START + 60);
        for (long key = 10; key < 20; key++)
        {
            store.setCurrentKey(key);
            carts.put("item-0", key);
        }
        clock.set(START + 100);
        return SnapshotContents.expected(Map.of("sessions", sessionModel, "carts", cartModel, "events", eventModel));
    }
}
