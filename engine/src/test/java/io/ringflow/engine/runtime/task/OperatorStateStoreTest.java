package io.ringflow.engine.runtime.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.ringflow.engine.api.functions.OperatorListState;
import io.ringflow.state.codec.CodecRegistry;
import org.junit.jupiter.api.Test;

/** List and union list states across restores at the same and at another parallelism. */
class OperatorStateStoreTest
{
    /** Three former subtasks: subtask s held list elements s*10.. and union elements "u"+s.. */
    private static List<Map.Entry<String, byte[]>> threeSubtasks()
    {
        final List<Map.Entry<String, byte[]>> snapshots = new ArrayList<>();
        for (int s = 0; s < 3; s++)
        {
            final OperatorStateStore store = new OperatorStateStore(CodecRegistry.withBuiltIns());
            final OperatorListState<Long> list = store.getListState("list", Long.class);
            final OperatorListState<String> union = store.getUnionListState("union", String.class);
            for (int i = 0; i < 2; i++)
            {
                list.add(s * 10L + i);
                union.add("u" + s + i);
            }
            snapshots.add(Map.entry("op-" + s, store.snapshot()));
        }
        return snapshots;
    }

    @Test
    void atTheSameParallelismAListComesBackToItsSubtaskAndAUnionHasEveryElement()
    {
        final OperatorStateStore store = new OperatorStateStore(CodecRegistry.withBuiltIns());
        store.restore(threeSubtasks(), 1, 3, 1);
        assertThat(store.getListState("list", Long.class).get()).containsExactly(10L, 11L);
        assertThat(store.getUnionListState("union", String.class).get())
            .containsExactly("u00", "u01", "u10", "u11", "u20", "u21");
    }

    @Test
    void atAnotherParallelismAListIsDealtOutAndAUnionStillHasEveryElement()
    {
        final List<Long> dealt = new ArrayList<>();
        for (int subtask = 0; subtask < 2; subtask++)
        {
            final OperatorStateStore store = new OperatorStateStore(CodecRegistry.withBuiltIns());
            store.restore(threeSubtasks(), subtask, 2, OperatorStateStore.DEAL);
            dealt.addAll(store.getListState("list", Long.class).get());
            assertThat(store.getUnionListState("union", String.class).get()).hasSize(6);
        }
        assertThat(dealt).containsExactlyInAnyOrder(0L, 1L, 10L, 11L, 20L, 21L);
    }

    @Test
    void aSubtaskWithoutASnapshotGetsNoListElementsButTheWholeUnion()
    {
        final OperatorStateStore store = new OperatorStateStore(CodecRegistry.withBuiltIns());
        store.restore(threeSubtasks(), 3, 3, 3);
        assertThat(store.getListState("list", Long.class).get()).isEmpty();
        assertThat(store.getUnionListState("union", String.class).get()).hasSize(6);
    }

    @Test
    void aNameCannotBeBothAListAndAUnion()
    {
        final OperatorStateStore store = new OperatorStateStore(CodecRegistry.withBuiltIns());
        store.getListState("offsets", Long.class);
        assertThatThrownBy(() -> store.getUnionListState("offsets", Long.class))
            .hasMessageContaining("already declared as a list of java.lang.Long");
    }

    @Test
    void aDeferredStateIsEncodedByToBytesAndItsNameCannotBeDeclaredAgain()
    {
        final OperatorStateStore store = new OperatorStateStore(io.ringflow.state.codec.CodecRegistry.withBuiltIns());
        store.getListState("mine", Long.class).add(7L);
        final java.util.concurrent.atomic.AtomicInteger encoded = new java.util.concurrent.atomic.AtomicInteger();
        store.deferredUnionList("engine", () -> new OperatorStateStore.DeferredState.Encoding()
        {
            @Override
            public long estimatedBytes()
            {
                return 3;
            }

            @Override
            public java.util.List<byte[]> encode()
            {
                encoded.incrementAndGet();
                return java.util.List.of(new byte[] {1, 2, 3});
            }
        });
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> store.getUnionListState("engine", byte[].class))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("'engine'");

        final OperatorStateStore.Captured captured = store.capture();
        org.assertj.core.api.Assertions.assertThat(encoded.get()).as("nothing encoded at the barrier").isZero();
        org.assertj.core.api.Assertions.assertThat(captured.hasDeferredParts()).isTrue();
        final byte[] bytes = captured.toBytes();
        org.assertj.core.api.Assertions.assertThat(encoded.get()).isEqualTo(1);

        final OperatorStateStore restored = new OperatorStateStore(io.ringflow.state.codec.CodecRegistry.withBuiltIns());
        restored.restore(java.util.List.of(java.util.Map.entry("op-0", bytes)), 0, 1);
        org.assertj.core.api.Assertions.assertThat(restored.getListState("mine", Long.class).get()).containsExactly(7L);
        org.assertj.core.api.Assertions.assertThat(restored.getUnionListState("engine", byte[].class).get())
            .singleElement().isEqualTo(new byte[] {1, 2, 3});
    }
}
