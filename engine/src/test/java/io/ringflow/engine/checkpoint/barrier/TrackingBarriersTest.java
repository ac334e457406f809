package io.ringflow.engine.checkpoint.barrier;

import org.junit.jupiter.api.Test;

import static io.ringflow.engine.checkpoint.barrier.Barriers.checkpoint;
import static io.ringflow.engine.checkpoint.barrier.Barriers.savepoint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * At-least-once ({@link TrackingBarriers}).
 */
class TrackingBarriersTest
{
    private final ManualNanoClock clock = new ManualNanoClock(0);
    private final RecordingController controller = new RecordingController();
    private final BarrierHandler handler =
        new BarrierHandler(3, BarrierHandlerOptions.atLeastOnce(), controller, clock);

    @Test
    void nothingIsBlockedAndTheLastBarrierSnapshots()
    {
        // given
        handler.barrierReceived(2, checkpoint(1));
        handler.barrierReceived(0, checkpoint(1));

        // then nothing happened yet, and every channel is still read
        assertThat(controller.takeCalls()).isEmpty();
        assertThat(handler.blockedChannels()).isZero();
        assertThat(handler.recordingChannels()).isZero();

        // when
        clock.advance(40);
        handler.barrierReceived(1, checkpoint(1));

        // then
        assertThat(controller.takeCalls())
            .containsExactly("snapshot 1 aligned", "forward 1 aligned", "all barriers of 1");
        assertThat(controller.alignments()).containsExactly(new CheckpointAlignment(1, false, 0, 40, 40));
    }

    @Test
    void aChannelThatDeliveredMayEndBeforeTheOthers()
    {
        // given
        handler.barrierReceived(0, checkpoint(1));

        // when
        handler.endOfInput(0);
        handler.barrierReceived(1, checkpoint(1));

        // then
        assertThat(controller.takeCalls()).isEmpty();
        handler.endOfInput(2);
        assertThat(controller.takeCalls())
            .containsExactly("snapshot 1 aligned", "forward 1 aligned", "all barriers of 1");
    }

    @Test
    void aNewerBarrierSubsumesAnOlderCheckpoint()
    {
        // given channel 0 has delivered checkpoint 1 and, being read on, checkpoint 2
        handler.barrierReceived(0, checkpoint(1));

        // when
        handler.barrierReceived(0, checkpoint(2));

        // then
        assertThat(controller.takeCalls()).containsExactly("abort 1 SUBSUMED");
        handler.barrierReceived(1, checkpoint(1));
        handler.barrierReceived(1, checkpoint(2));
        handler.barrierReceived(2, checkpoint(2));
        assertThat(controller.takeCalls())
            .containsExactly("snapshot 2 aligned", "forward 2 aligned", "all barriers of 2");
    }

    @Test
    void theSameBarrierTwiceOnAChannelIsImpossible()
    {
        // given
        handler.barrierReceived(0, checkpoint(1));

        // when / then
        assertThatThrownBy(() -> handler.barrierReceived(0, checkpoint(1)))
            .isInstanceOf(IllegalStateException.class)
            .hasMessage("CHECKPOINT barrier 1 arrived twice on channel 0: barrier ids must increase along every " +
                "channel");
    }

    @Test
    void aSavepointIsAlignedEvenAtLeastOnceSoItsRestoreIsExact()
    {
        // when
        handler.barrierReceived(0, savepoint(1));
        handler.barrierReceived(1, savepoint(1));

        // then: the channels that delivered it are not read until the last one has
        assertThat(handler.isBlocked(0)).isTrue();
        assertThat(handler.isBlocked(1)).isTrue();
        handler.barrierReceived(2, savepoint(1));
        assertThat(controller.takeCalls()).containsExactly("block 0", "block 1", "snapshot 1 aligned",
            "forward 1 aligned", "unblock all", "all barriers of 1");
        assertThat(handler.isBlocked(0)).isFalse();
    }

    @Test
    void aDeclinedSnapshotAborts()
    {
        // given
        controller.decline(1);
        handler.barrierReceived(0, checkpoint(1));
        handler.barrierReceived(1, checkpoint(1));

        // when
        handler.barrierReceived(2, checkpoint(1));

        // then
        assertThat(controller.takeCalls()).containsExactly("snapshot 1 aligned declined", "abort 1 DECLINED");
    }
}
