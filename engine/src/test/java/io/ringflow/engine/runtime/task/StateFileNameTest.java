package io.ringflow.engine.runtime.task;

import io.ringflow.state.codec.CodecRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** An operator subtask's state file names: readable, one per part, built once and reused at every checkpoint. */
class StateFileNameTest
{
    @Test
    void eachPartHasItsOwnNameBuiltOnceForTheOperatorSubtask()
    {
        final OperatorRuntime runtime = new OperatorRuntime("job", "count", "page views/count", 3, 4, 128, null,
            new OperatorStateStore(CodecRegistry.withBuiltIns()), "test");
        final String hash = String.format("%08x", "page views/count".hashCode());

        assertThat(runtime.stateFileName(TaskSnapshot.KEYED)).isEqualTo("page_views_count-" + hash + "-3.keyed");
        assertThat(runtime.stateFileName(TaskSnapshot.OPERATOR)).isEqualTo("page_views_count-" + hash + "-3.operator");
        assertThat(runtime.stateFileName(TaskSnapshot.CHANNELS)).isEqualTo("page_views_count-" + hash + "-3.channels");
        assertThat(runtime.stateFileName(TaskSnapshot.KEYED)).as("built once").isSameAs(
            runtime.stateFileName(TaskSnapshot.KEYED));
    }
}
