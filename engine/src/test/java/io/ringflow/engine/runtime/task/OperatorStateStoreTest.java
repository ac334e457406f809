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
}
