package io.ringflow.engine.checkpoint.barrier;

import org.junit.jupiter.api.Test;

import static io.ringflow.engine.checkpoint.barrier.Barriers.checkpoint;
import static io.ringflow.engine.checkpoint.barrier.Barriers.savepoint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Exactly-once, aligned ({@link AligningBarriers}).
 */
class AligningBarriersTest
{
    private final ManualNanoClock clock = new ManualNanoClock(1_000);
    private final RecordingController controller = new RecordingController();

    private BarrierHandler handler(final int channels)
    {
        return new BarrierHandler(channels, BarrierHandlerOptions.aligned(), controller, clock);
    }

    @Test
    void aChannelIsBlockedOnceItsBarrierArrives()
    {
        // given
        final BarrierHandler handler = handler(3);

        // when
        handler.barrierReceived(1, checkpoint(1));

        // then
        assertThat(controller.takeCalls()).containsExactly("block 1");
        assertThat(handler.isBlocked(1)).isTrue();
        assertThat(handler.isBlocked(0)).isFalse();
        assertThat(handler.isBlocked(2)).isFalse();
        assertThat(handler.blockedChannels()).isEqualTo(0b010);
        assertThat(handler.isRecording(0)).isFalse();
    }

    @Test
    void theLastBarrierSnapshotsForwardsAndUnblocks()
    {
        // given
        final BarrierHandler handler = handler(3);
        handler.barrierReceived(0, checkpoint(1));
        handler.barrierReceived(2, checkpoint(1));
        controller.takeCalls();

        // when
        handler.barrierReceived(1, checkpoint(1));

        // then
        assertThat(controller.takeCalls())
            .containsExactly("snapshot 1 aligned", "forward 1 aligned", "unblock all", "all barriers of 1");
        assertThat(handler.blockedChannels()).isZero();
    }

    @Test
    void withOneChannelTheBarrierIsSnapshotAndForwardedAtOnce()
    {
        // given
        final BarrierHandler handler = handler(1);

        // when
        handler.barrierReceived(0, checkpoint(7));

        // then
        assertThat(controller.takeCalls()).containsExactly("snapshot 7 aligned", "forward 7 aligned",
            "all barriers of 7");
        assertThat(handler.isBlocked(0)).isFalse();
    }

    @Test
    void endOfInputCountsAsTheMissingBarrier()
    {
        // given
        final BarrierHandler handler = handler(3);
        handler.barrierReceived(0, checkpoint(1));
        handler.barrierReceived(1, checkpoint(1));
        controller.takeCalls();

        // when
        handler.endOfInput(2);

        // then
        assertThat(controller.takeCalls())
            .containsExactly("snapshot 1 aligned", "forward 1 aligned", "unblock all", "all barriers of 1");
    }

    @Test
    void anEndedChannelCountsForEveryLaterCheckpoint()
    {
        // given
        final BarrierHandler handler = handler(3);
        handler.endOfInput(1);

        // when
        handler.barrierReceived(0, checkpoint(1));
        handler.barrierReceived(2, checkpoint(1));
        handler.barrierReceived(2, checkpoint(2));
        handler.barrierReceived(0, checkpoint(2));

        // then
        assertThat(controller.takeCalls()).containsExactly(
            "block 0", "snapshot 1 aligned", "forward 1 aligned", "unblock all", "all barriers of 1",
            "block 2", "snapshot 2 aligned", "forward 2 aligned", "unblock all", "all barriers of 2");
    }

    @Test
    void aNewerBarrierSubsumesTheAlignmentInProgress()
    {
        // given channel 0 blocked for checkpoint 1; channel 1 skipped checkpoint 1
        final BarrierHandler handler = handler(3);
        handler.barrierReceived(0, checkpoint(1));
        controller.takeCalls();

        // when
        handler.barrierReceived(1, checkpoint(2));

        // then checkpoint 1 is given up and channel 0 is read again; channel 1 waits for checkpoint 2
        assertThat(controller.takeCalls()).containsExactly("unblock all", "abort 1 SUBSUMED", "block 1");
        assertThat(handler.isBlocked(0)).isFalse();
        assertThat(handler.isBlocked(1)).isTrue();
        assertThat(handler.latestCheckpointId()).isEqualTo(2);
    }

    @Test
    void aBarrierOfASubsumedCheckpointIsIgnored()
    {
        // given
        final BarrierHandler handler = handler(3);
        handler.barrierReceived(0, checkpoint(1));
        handler.barrierReceived(1, checkpoint(2));
        controller.takeCalls();

        // when
        handler.barrierReceived(2, checkpoint(1));
        handler.barrierReceived(0, checkpoint(2));

        // then channel 2 is still read, and checkpoint 2 completes on its barrier
        assertThat(controller.takeCalls()).containsExactly("block 0");
        assertThat(handler.isBlocked(2)).isFalse();
        handler.barrierReceived(2, checkpoint(2));
        assertThat(controller.takeCalls())
            .containsExactly("snapshot 2 aligned", "forward 2 aligned", "unblock all", "all barriers of 2");
    }

    @Test
    void aBlockedChannelCannotDeliverAnything()
    {
        // given
        final BarrierHandler handler = handler(2);
        handler.barrierReceived(0, checkpoint(1));

        // when / then
        assertThatThrownBy(() -> handler.barrierReceived(0, checkpoint(2)))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageStartingWith("CHECKPOINT barrier 2 on channel 0, which is blocked for alignment: the task " +
                "must not read a blocked channel");
    }

    @Test
    void endOfInputOnABlockedChannelIsImpossible()
    {
        // given
        final BarrierHandler handler = handler(2);
        handler.barrierReceived(0, checkpoint(1));

        // when / then
        assertThatThrownBy(() -> handler.endOfInput(0))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageStartingWith("END_OF_INPUT on channel 0, which is blocked for alignment");
    }

    @Test
    void aDeclinedSnapshotUnblocksAndAbortsWithoutForwarding()
    {
        // given
        controller.decline(1);
        final BarrierHandler handler = handler(2);
        handler.barrierReceived(0, checkpoint(1));
        controller.takeCalls();

        // when
        handler.barrierReceived(1, checkpoint(1));

        // then
        assertThat(controller.takeCalls())
            .containsExactly("snapshot 1 aligned declined", "unblock all", "abort 1 DECLINED");
        assertThat(handler.blockedChannels()).isZero();

        // and the next checkpoint works
        handler.barrierReceived(1, checkpoint(2));
        handler.barrierReceived(0, checkpoint(2));
        assertThat(controller.takeCalls()).containsExactly(
            "block 1", "snapshot 2 aligned", "forward 2 aligned", "unblock all", "all barriers of 2");
    }

    @Test
    void theAlignmentIsMeasuredFromTheFirstToTheLastBarrier()
    {
        // given
        final BarrierHandler handler = handler(2);
        clock.advance(100);
        handler.barrierReceived(1, checkpoint(3));

        // when
        clock.advance(250);
        handler.barrierReceived(0, checkpoint(3));

        // then
        assertThat(controller.alignments()).containsExactly(new CheckpointAlignment(3, false, 1_100, 1_350, 1_350));
        assertThat(controller.alignments().get(0).alignmentDurationNanos()).isEqualTo(250);
        assertThat(controller.alignments().get(0).recordingDurationNanos()).isZero();
    }

    @Test
    void savepointsAreAlignedEvenWhenCheckpointsAreUnaligned()
    {
        // given
        final BarrierHandler handler =
            new BarrierHandler(2, BarrierHandlerOptions.unalignedCheckpoints(), controller, clock);

        // when
        handler.barrierReceived(0, savepoint(4));
        handler.barrierReceived(1, savepoint(4));

        // then
        assertThat(controller.takeCalls()).containsExactly(
            "block 0", "snapshot 4 aligned", "forward 4 aligned", "unblock all", "all barriers of 4");
    }

    @Test
    void sixtyFourChannelsAlign()
    {
        // given
        final BarrierHandler handler = handler(64);

        // when
        for (int channel = 63; channel > 0; channel--)
        {
            handler.barrierReceived(channel, checkpoint(1));
        }

        // then
        assertThat(handler.blockedChannels()).isEqualTo(-2L);
        assertThat(handler.isBlocked(63)).isTrue();
        assertThat(handler.isBlocked(0)).isFalse();
        handler.barrierReceived(0, checkpoint(1));
        assertThat(handler.blockedChannels()).isZero();
        assertThat(controller.alignments()).hasSize(1);
    }
}
