package io.ringflow.engine.checkpoint.barrier;

import org.junit.jupiter.api.Test;

import static io.ringflow.engine.checkpoint.barrier.Barriers.checkpoint;
import static io.ringflow.engine.checkpoint.barrier.Barriers.savepoint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Rules every state shares, and the handler's own contract.
 */
class BarrierHandlerTest
{
    private final ManualNanoClock clock = new ManualNanoClock(0);
    private final RecordingController controller = new RecordingController();

    private BarrierHandler aligned(final int channels)
    {
        return new BarrierHandler(channels, BarrierHandlerOptions.aligned(), controller, clock);
    }

    @Test
    void aHandlerHasOneToSixtyFourChannels()
    {
        assertThatThrownBy(() -> aligned(0))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("channelCount must be between 1 and 64, got 0");
        assertThatThrownBy(() -> aligned(65))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("channelCount must be between 1 and 64, got 65");
        assertThat(aligned(64).channelCount()).isEqualTo(64);
    }

    @Test
    void aChannelOutOfRangeIsRejected()
    {
        final BarrierHandler handler = aligned(2);
        assertThatThrownBy(() -> handler.barrierReceived(2, checkpoint(1)))
            .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> handler.endOfInput(-1))
            .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void aNewerCheckpointAnnouncedOnAChannelBlockedForASavepointSupersedesTheSavepointThere()
    {
        // given: a savepoint aligning, channel 0 blocked (the coordinator aborted it; its abort is on the way)
        final BarrierHandler handler = new BarrierHandler(2, BarrierHandlerOptions.unalignedCheckpoints(), controller,
            clock);
        handler.barrierReceived(0, savepoint(1));
        assertThat(handler.isBlocked(0)).isTrue();
        controller.takeCalls();

        // when: the next checkpoint is announced on the blocked channel, out of band
        handler.barrierAnnounced(0, checkpoint(2));

        // then: the savepoint is given up here, the channel unblocked, the checkpoint taken unaligned at once
        assertThat(controller.takeCalls()).containsExactly("unblock all", "abort 1 SUBSUMED",
            "snapshot 2 unaligned", "forward 2 unaligned", "record 1 for 2");
        assertThat(handler.isBlocked(0)).isFalse();
        assertThat(handler.isRecording(1)).isTrue();
    }

    @Test
    void anAnnouncementOnlyComesForACheckpointWithUnalignedBarriersAndNeverGoesBackwards()
    {
        final BarrierHandler unaligned = new BarrierHandler(2, BarrierHandlerOptions.unalignedCheckpoints(),
            controller, clock);
        assertThatThrownBy(() -> unaligned.barrierAnnounced(0, savepoint(1)))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("only checkpoints are announced");

        final BarrierHandler stale = new BarrierHandler(2, BarrierHandlerOptions.unalignedCheckpoints(), controller,
            clock);
        stale.barrierReceived(0, savepoint(3));
        assertThatThrownBy(() -> stale.barrierAnnounced(0, checkpoint(2)))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("barrier ids must increase along every channel");

        final BarrierHandler alignedHandler = aligned(2);
        assertThatThrownBy(() -> alignedHandler.barrierAnnounced(0, checkpoint(1)))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("announcements are followed only with unaligned checkpoints");
    }

    @Test
    void nothingFollowsEndOfInputOnAChannel()
    {
        // given
        final BarrierHandler handler = aligned(2);
        handler.endOfInput(1);

        // when / then
        assertThatThrownBy(() -> handler.barrierReceived(1, checkpoint(1)))
            .isInstanceOf(IllegalStateException.class)
            .hasMessage("CHECKPOINT barrier 1 on channel 1 after its END_OF_INPUT: nothing follows END_OF_INPUT " +
                "on a channel");
    }

    @Test
    void endOfInputTwiceIsImpossible()
    {
        // given
        final BarrierHandler handler = aligned(2);
        handler.endOfInput(0);

        // when / then
        assertThatThrownBy(() -> handler.endOfInput(0))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageStartingWith("END_OF_INPUT on channel 0 after its END_OF_INPUT");
    }

    @Test
    void whenEveryChannelHasEndedNoBarrierCanArrive()
    {
        // given
        final BarrierHandler handler = aligned(2);

        // when
        handler.endOfInput(0);
        handler.endOfInput(1);

        // then
        assertThat(handler.toString()).isEqualTo("BarrierHandler{AllChannelsEnded{latest 0}}");
        assertThat(handler.checkTimeout(Long.MAX_VALUE)).isFalse();
        assertThatThrownBy(() -> handler.barrierReceived(0, checkpoint(1)))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("after its END_OF_INPUT");
        assertThat(controller.takeCalls()).isEmpty();
    }

    @Test
    void theLastEndOfInputCompletesTheCheckpointInProgress()
    {
        // given
        final BarrierHandler handler =
            new BarrierHandler(2, BarrierHandlerOptions.unalignedCheckpoints(), controller, clock);
        handler.barrierReceived(0, checkpoint(1));
        handler.endOfInput(0);
        controller.takeCalls();

        // when
        handler.endOfInput(1);

        // then
        assertThat(controller.takeCalls()).containsExactly("stop recording 1 for 1", "all barriers of 1");
        assertThat(handler.toString()).isEqualTo("BarrierHandler{AllChannelsEnded{latest 1}}");
    }

    @Test
    void aBarrierNotNewerThanACompletedCheckpointIsImpossible()
    {
        // given
        final BarrierHandler handler = aligned(2);
        handler.barrierReceived(0, checkpoint(2));
        handler.barrierReceived(1, checkpoint(2));

        // when / then
        assertThatThrownBy(() -> handler.barrierReceived(1, checkpoint(1)))
            .isInstanceOf(IllegalStateException.class)
            .hasMessage("CHECKPOINT barrier 1 on channel 1 after checkpoint 2 completed in this task: barrier ids " +
                "must increase along every channel");
    }

    @Test
    void aBarrierOfAnotherKindThanItsCheckpointsIsImpossible()
    {
        // given
        final BarrierHandler handler = aligned(2);
        handler.barrierReceived(0, checkpoint(1));

        // when / then
        assertThatThrownBy(() -> handler.barrierReceived(1, savepoint(1)))
            .isInstanceOf(IllegalStateException.class)
            .hasMessage("SAVEPOINT barrier 1 on channel 1, but the barriers of checkpoint 1 that arrived before " +
                "were CHECKPOINT");
    }

    @Test
    void theCoordinatorsAbortReleasesTheCheckpointInProgress()
    {
        // given
        final BarrierHandler handler = aligned(3);
        handler.barrierReceived(0, checkpoint(1));
        controller.takeCalls();

        // when
        handler.checkpointAborted(1);

        // then
        assertThat(controller.takeCalls()).containsExactly("unblock all", "abort 1 ABORTED_BY_COORDINATOR");
        assertThat(handler.blockedChannels()).isZero();

        // and its late barriers are ignored
        handler.barrierReceived(1, checkpoint(1));
        handler.barrierReceived(2, checkpoint(1));
        assertThat(controller.takeCalls()).isEmpty();
    }

    @Test
    void theCoordinatorsAbortOfANewerCheckpointSubsumesTheOneInProgress()
    {
        // given
        final BarrierHandler handler = aligned(2);
        handler.barrierReceived(0, checkpoint(1));
        controller.takeCalls();

        // when
        handler.checkpointAborted(2);

        // then
        assertThat(controller.takeCalls()).containsExactly("unblock all", "abort 1 SUBSUMED");
        assertThat(handler.latestCheckpointId()).isEqualTo(2);
        handler.barrierReceived(1, checkpoint(2));
        handler.barrierReceived(1, checkpoint(3));
        assertThat(controller.takeCalls()).containsExactly("block 1");
    }

    @Test
    void theCoordinatorsAbortOfACheckpointNotStartedHereIgnoresItsBarriers()
    {
        // given
        final BarrierHandler handler = aligned(2);

        // when
        handler.checkpointAborted(4);
        handler.barrierReceived(0, checkpoint(4));

        // then
        assertThat(controller.takeCalls()).isEmpty();
        assertThat(handler.blockedChannels()).isZero();
    }

    @Test
    void theCoordinatorsAbortOfAnOlderCheckpointChangesNothing()
    {
        // given
        final BarrierHandler handler = aligned(2);
        handler.barrierReceived(0, checkpoint(3));
        controller.takeCalls();

        // when
        handler.checkpointAborted(2);

        // then
        assertThat(controller.takeCalls()).isEmpty();
        assertThat(handler.isBlocked(0)).isTrue();
    }

    @Test
    void closeAbortsTheCheckpointInProgressAndRefusesBarriers()
    {
        // given
        final BarrierHandler handler =
            new BarrierHandler(2, BarrierHandlerOptions.unalignedCheckpoints(), controller, clock);
        handler.barrierReceived(0, checkpoint(1));
        controller.takeCalls();

        // when
        handler.close();
        handler.close();

        // then
        assertThat(controller.takeCalls()).containsExactly("stop recording 1 for 1", "abort 1 TASK_CLOSING");
        assertThat(handler.recordingChannels()).isZero();
        handler.checkpointAborted(1);
        assertThatThrownBy(() -> handler.barrierReceived(1, checkpoint(2)))
            .isInstanceOf(IllegalStateException.class)
            .hasMessage("CHECKPOINT barrier 2 on channel 1 after the handler was closed");
    }

    @Test
    void aCallbackMustNotCallAnEventBack()
    {
        // given a task that reacts to blocking by feeding the handler
        final BarrierHandler[] handler = new BarrierHandler[1];
        final RecordingController reentrant = new RecordingController(call ->
        {
            if (call.name() == RecordingController.Name.BLOCK)
            {
                handler[0].barrierReceived(1, checkpoint(1));
            }
        });
        handler[0] = new BarrierHandler(2, BarrierHandlerOptions.aligned(), reentrant, clock);

        // when / then
        assertThatThrownBy(() -> handler[0].barrierReceived(0, checkpoint(1)))
            .isInstanceOf(IllegalStateException.class)
            .hasMessage("barrierReceived called from inside a controller callback: a callback must not call the " +
                "barrier handler's events");
    }

    @Test
    void afterAFailedEventTheHandlerRefusesEventsAndCloseDoesNothing()
    {
        // given a task whose snapshot throws
        final RuntimeException boom = new RuntimeException("snapshot failed");
        final RecordingController failing = new RecordingController(call ->
        {
            if (call.name() == RecordingController.Name.SNAPSHOT)
            {
                throw boom;
            }
        });
        final BarrierHandler handler = new BarrierHandler(1, BarrierHandlerOptions.aligned(), failing, clock);

        // when
        assertThatThrownBy(() -> handler.barrierReceived(0, checkpoint(1))).isSameAs(boom);

        // then
        assertThatThrownBy(() -> handler.endOfInput(0))
            .isInstanceOf(IllegalStateException.class)
            .hasMessage("endOfInput after an earlier event failed: the barrier handler is unusable")
            .cause().isSameAs(boom);
        handler.close();
        // the snapshot threw before the stub logged it; close made no call either
        assertThat(failing.calls()).isEmpty();
    }

    @Test
    void theStateIsReadable()
    {
        // given
        final BarrierHandler handler = aligned(3);
        assertThat(handler.toString()).isEqualTo("BarrierHandler{WaitingForFirstBarrier{latest none, ended {}}}");

        // when
        handler.endOfInput(2);
        handler.barrierReceived(1, checkpoint(5));

        // then
        assertThat(handler.toString()).isEqualTo("BarrierHandler{AligningBarriers{checkpoint 5 CHECKPOINT, " +
            "delivered {1}, missing {0}, ended {2}}}");
    }
}
