package io.ringflow.engine.runtime.operators;

import io.ringflow.engine.runtime.task.OperatorRuntime;
import io.ringflow.engine.runtime.task.OperatorStateStore;
import io.ringflow.state.checkpoint.CorruptCheckpointException;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.keyed.KeyGroups;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KeyedTimersTest
{
    private static final int MAX_PARALLELISM = 128;

    private static OperatorRuntime runtime(final OperatorStateStore store, final int subtask, final int parallelism)
    {
        return new OperatorRuntime("job", "op", "op", subtask, parallelism, MAX_PARALLELISM, null, store, "a");
    }

    @Test
    void timersSurviveASnapshotExactlyAndFollowTheirKeyGroupsToAnotherParallelism() throws Exception
    {
        final CodecRegistry codecs = CodecRegistry.withBuiltIns();
        final List<String> original = new ArrayList<>();
        final OperatorStateStore store = new OperatorStateStore(codecs);
        final KeyedTimers timers = new KeyedTimers((timer, eventTime) -> { });
        timers.initializeState(runtime(store, 0, 1));
        final SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < 2_000; i++)
        {
            final Object key = i % 3 == 0 ? (Object)("user-" + random.nextInt(500)) : (Object)random.nextLong();
            final long time = random.nextBoolean() ? random.nextLong() : random.nextInt(1_000);
            final boolean eventTime = random.nextBoolean();
            final int keyGroup = KeyGroups.keyGroupOf(key, MAX_PARALLELISM);
            timers.register(eventTime, time, key, keyGroup);
            original.add(eventTime + " " + time + " " + key + " " + keyGroup);
        }
        // some deleted before the snapshot: they must not come back
        for (int i = 0; i < original.size(); i += 7)
        {
            final String[] parts = original.get(i).split(" ");
            final Object key = parts[2].startsWith("user-") ? (Object)parts[2] : (Object)Long.parseLong(parts[2]);
            timers.delete(Boolean.parseBoolean(parts[0]), Long.parseLong(parts[1]), key);
        }
        for (int i = (original.size() - 1) / 7 * 7; i >= 0; i -= 7)
        {
            final String removed = original.remove(i);
            original.removeIf(line -> line.equals(removed));
        }
        final byte[] snapshot = store.snapshot();

        // restored at parallelism 3: every timer comes back once, at exactly its time, in the subtask of its key group
        final List<String> restored = new ArrayList<>();
        for (int subtask = 0; subtask < 3; subtask++)
        {
            final OperatorStateStore restoredStore = new OperatorStateStore(codecs);
            restoredStore.restore(List.of(Map.entry("op-0", snapshot)), subtask, 3);
            final int mine = subtask;
            final KeyedTimers back = new KeyedTimers((timer, eventTime) ->
            {
                assertThat(KeyGroups.rangeOf(mine, MAX_PARALLELISM, 3).contains(timer.keyGroup())).isTrue();
                restored.add(eventTime + " " + timer.time() + " " + timer.key() + " " + timer.keyGroup());
            });
            back.initializeState(runtime(restoredStore, subtask, 3));
            back.advanceWatermark(Long.MAX_VALUE);
            while (back.eventTimersDue())
            {
                back.fireEventTime(7);
            }
            back.fireProcessingTime(Long.MAX_VALUE, Integer.MAX_VALUE);
        }
        assertThat(restored).containsExactlyInAnyOrderElementsOf(original.stream().distinct().toList());
    }

    @Test
    void registeringTwiceKeepsOneAndFiringFollowsTimeThenRegistrationOrder() throws Exception
    {
        final List<String> fired = new ArrayList<>();
        final KeyedTimers timers = new KeyedTimers((timer, eventTime) -> fired.add(timer.key() + "@" + timer.time()));
        timers.register(true, 5, "b", 1);
        timers.register(true, 5, "a", 1);
        timers.register(true, 5, "b", 1);
        timers.register(true, 3, "c", 1);
        timers.register(true, 9, "d", 1);
        timers.delete(true, 9, "d");
        timers.advanceWatermark(4);
        assertThat(timers.forwardableWatermark()).as("the timer at 3 is due").isEqualTo(2);
        timers.fireEventTime(1);
        assertThat(timers.forwardableWatermark()).isEqualTo(4);
        timers.advanceWatermark(100);
        timers.fireEventTime(1);
        assertThat(timers.forwardableWatermark()).as("one timer at 5 left").isEqualTo(4);
        timers.fireEventTime(10);
        assertThat(timers.forwardableWatermark()).isEqualTo(100);
        assertThat(fired).containsExactly("c@3", "b@5", "a@5");
        assertThat(timers.size()).as("the deleted timer is gone too").isZero();
    }

    @Test
    void aDamagedTimerBlobIsRefusedAsCorrupt()
    {
        final CodecRegistry codecs = CodecRegistry.withBuiltIns();
        final OperatorStateStore store = new OperatorStateStore(codecs);
        final KeyedTimers timers = new KeyedTimers((timer, eventTime) -> { });
        timers.initializeState(runtime(store, 0, 1));
        timers.register(true, 42, 7L, KeyGroups.keyGroupOf(7L, MAX_PARALLELISM));
        final List<byte[]> blobs = new ArrayList<>();
        final OperatorStateStore probe = new OperatorStateStore(codecs);
        probe.restore(List.of(Map.entry("op-0", store.snapshot())), 0, 1);
        blobs.addAll(probe.getUnionListState(KeyedTimers.STATE_NAME, byte[].class).get());
        final byte[] damaged = blobs.get(0).clone();
        damaged[damaged.length - 9] = (byte)0x7F;

        final OperatorStateStore holder = new OperatorStateStore(codecs);
        holder.getUnionListState(KeyedTimers.STATE_NAME, byte[].class).update(List.of(damaged));
        final OperatorStateStore restored = new OperatorStateStore(codecs);
        restored.restore(List.of(Map.entry("op-0", holder.snapshot())), 0, 1);
        assertThatThrownBy(() -> new KeyedTimers((timer, eventTime) -> { })
            .initializeState(runtime(restored, 0, 1)))
            .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("op");
    }

    @Test
    void timersOfEqualTimeFireInRegistrationOrderAlsoAfterARestore() throws Exception
    {
        final CodecRegistry codecs = CodecRegistry.withBuiltIns();
        final OperatorStateStore store = new OperatorStateStore(codecs);
        final KeyedTimers timers = new KeyedTimers((timer, eventTime) -> { });
        timers.initializeState(runtime(store, 0, 1));
        final List<String> registered = new ArrayList<>();
        for (int i = 0; i < 200; i++)
        {
            final String key = "k" + (i * 7919 % 200);
            timers.register(true, 5, key, KeyGroups.keyGroupOf(key, MAX_PARALLELISM));
            registered.add(key);
        }
        final OperatorStateStore restoredStore = new OperatorStateStore(codecs);
        restoredStore.restore(List.of(Map.entry("op-0", store.snapshot())), 0, 1);
        final List<String> fired = new ArrayList<>();
        final KeyedTimers back = new KeyedTimers((timer, eventTime) -> fired.add((String)timer.key()));
        back.initializeState(runtime(restoredStore, 0, 1));
        back.advanceWatermark(5);
        back.fireEventTime(Integer.MAX_VALUE);
        assertThat(fired).containsExactlyElementsOf(registered);
    }

    @Test
    void deletingAndRegisteringAgainOnEveryRecordKeepsOnlyTheLiveTimers() throws Exception
    {
        // the "reset the timeout" pattern: delete the key's timer, register a later one
        final List<Long> fired = new ArrayList<>();
        final KeyedTimers timers = new KeyedTimers((timer, eventTime) -> fired.add(timer.time()));
        for (long t = 0; t < 10_000; t++)
        {
            if (t > 0)
            {
                timers.delete(true, t + 99, "session");
            }
            timers.register(true, t + 100, "session", 1);
        }
        assertThat(timers.size()).isEqualTo(1);
        timers.advanceWatermark(Long.MAX_VALUE);
        timers.fireEventTime(Integer.MAX_VALUE);
        assertThat(fired).containsExactly(10_099L);
        assertThat(timers.forwardableWatermark()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aTimerAtTheStartOfTimeDoesNotWrapTheForwardedWatermark() throws Exception
    {
        final KeyedTimers timers = new KeyedTimers((timer, eventTime) -> { });
        timers.register(true, Long.MIN_VALUE, "k", 1);
        timers.advanceWatermark(0);
        assertThat(timers.forwardableWatermark()).isEqualTo(Long.MIN_VALUE);
    }
}
