package io.ringflow.engine.checkpoint.barrier;

import io.ringflow.engine.api.CheckpointingMode;
import io.ringflow.engine.channel.BarrierKind;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BarrierHandlerOptionsTest
{
    @Test
    void theFourValidCombinationsHaveFactories()
    {
        assertThat(BarrierHandlerOptions.aligned())
            .isEqualTo(new BarrierHandlerOptions(CheckpointingMode.EXACTLY_ONCE, false, -1));
        assertThat(BarrierHandlerOptions.unalignedCheckpoints())
            .isEqualTo(new BarrierHandlerOptions(CheckpointingMode.EXACTLY_ONCE, true, -1));
        assertThat(BarrierHandlerOptions.alignedWithTimeout(Duration.ofMillis(5)))
            .isEqualTo(new BarrierHandlerOptions(CheckpointingMode.EXACTLY_ONCE, true, 5_000_000));
        assertThat(BarrierHandlerOptions.atLeastOnce())
            .isEqualTo(new BarrierHandlerOptions(CheckpointingMode.AT_LEAST_ONCE, false, -1));
        assertThat(BarrierHandlerOptions.alignedWithTimeout(Duration.ofMillis(5)).hasAlignedTimeout()).isTrue();
        assertThat(BarrierHandlerOptions.unalignedCheckpoints().hasAlignedTimeout()).isFalse();
    }

    @Test
    void unalignedRequiresExactlyOnce()
    {
        assertThatThrownBy(() -> new BarrierHandlerOptions(CheckpointingMode.AT_LEAST_ONCE, true, -1))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageStartingWith("unaligned checkpoints require mode EXACTLY_ONCE, but mode is AT_LEAST_ONCE");
    }

    @Test
    void aTimeoutRequiresExactlyOnce()
    {
        assertThatThrownBy(() -> new BarrierHandlerOptions(CheckpointingMode.AT_LEAST_ONCE, false, 1_000))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageStartingWith("alignedTimeout requires mode EXACTLY_ONCE, but mode is AT_LEAST_ONCE");
    }

    @Test
    void aTimeoutRequiresUnalignedToBeEnabled()
    {
        assertThatThrownBy(() -> new BarrierHandlerOptions(CheckpointingMode.EXACTLY_ONCE, false, 1_000))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageStartingWith("alignedTimeout requires unaligned checkpoints to be enabled");
    }

    @Test
    void aTimeoutMustBePositive()
    {
        assertThatThrownBy(() -> new BarrierHandlerOptions(CheckpointingMode.EXACTLY_ONCE, true, 0))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageStartingWith("alignedTimeout must be positive or none, got 0 ns");
        assertThatThrownBy(() -> BarrierHandlerOptions.alignedWithTimeout(Duration.ofMillis(-1)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("alignedTimeout must be positive");
    }

    @Test
    void theModeIsRequired()
    {
        assertThatThrownBy(() -> new BarrierHandlerOptions(null, false, -1))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("mode must be EXACTLY_ONCE or AT_LEAST_ONCE, got null");
    }

    @Test
    void barriersHavePositiveIdsAndAKnownType()
    {
        assertThatThrownBy(() -> new CheckpointBarrier(0, 1, BarrierKind.CHECKPOINT))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("checkpointId must be positive, got 0");
        assertThat(BarrierKind.fromCode(0)).isEqualTo(BarrierKind.CHECKPOINT);
        assertThat(BarrierKind.fromCode(BarrierKind.SAVEPOINT.code()))
            .isEqualTo(BarrierKind.SAVEPOINT);
        assertThatThrownBy(() -> BarrierKind.fromCode(7))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("unknown barrier type 7: 0 is CHECKPOINT, 1 is SAVEPOINT");
    }
}
