package io.ringflow.engine.checkpoint.barrier;

import org.junit.jupiter.api.Test;

import static io.ringflow.engine.checkpoint.barrier.Barriers.checkpoint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Exactly-once, unaligned from the first barrier ({@link RecordingChannels}).
 */
class RecordingChannelsTest
{
    private final ManualNanoClock clock = new ManualNanoClock(0);
    private final RecordingController controller = new RecordingController();

    private BarrierHandler handler(final int channels)
    {
        return new BarrierHandler(channels, BarrierHandlerOptions.unalignedCheckpoints(), controller, clock);
    }

    @Test
    void theFirstBarrierSnapshotsForwardsAndRecordsTheOtherChannels()
    {
        // given
        final BarrierHandler handler = handler(3);

        // when
        handler.barrierReceived(1, checkpoint(1));

        // then
        assertThat(controller.takeCalls()).containsExactly(
            "snapshot 1 unaligned", "forward 1 unaligned", "record 0 for 1", "record 2 for 1");
        assertThat(handler.blockedChannels()).isZero();
        assertThat(handler.isRecording(0)).isTrue();
        assertThat(handler.isRecording(1)).isFalse();
        assertThat(handler.isRecording(2)).isTrue();
    }

    @Test
    void eachBarrierStopsTheRecordingOfItsChannel()
    {
        // given
        final BarrierHandler handler = handler(3);
        handler.barrierReceived(1, checkpoint(1));
        controller.takeCalls();

        // when
        clock.advance(10);
        handler.barrierReceived(2, checkpoint(1));

        // then
        assertThat(controller.takeCalls()).containsExactly("stop recording 2 for 1");
        assertThat(handler.recordingChannels()).isEqualTo(0b001);

        // when
        clock.advance(15);
        handler.barrierReceived(0, checkpoint(1));

        // then
        assertThat(controller.takeCalls()).containsExactly("stop recording 0 for 1", "all barriers of 1");
        assertThat(handler.recordingChannels()).isZero();
        assertThat(controller.alignments()).containsExactly(new CheckpointAlignment(1, true, 0, 0, 25));
    }

    @Test
    void endOfInputCompletesTheRecordingOfItsChannel()
    {
        // given
        final BarrierHandler handler = handler(2);
        handler.barrierReceived(0, checkpoint(1));
        controller.takeCalls();

        // when
        handler.endOfInput(1);

        // then
        assertThat(controller.takeCalls()).containsExactly("stop recording 1 for 1", "all barriers of 1");
    }

    @Test
    void endedChannelsAreNotRecorded()
    {
        // given
        final BarrierHandler handler = handler(3);
        handler.endOfInput(0);

        // when
        handler.barrierReceived(2, checkpoint(1));

        // then
        assertThat(controller.takeCalls()).containsExactly(
            "snapshot 1 unaligned", "forward 1 unaligned", "record 1 for 1");
    }

    @Test
    void withOneChannelNothingIsRecorded()
    {
        // given
        final BarrierHandler handler = handler(1);

        // when
        handler.barrierReceived(0, checkpoint(1));

        // then
        assertThat(controller.takeCalls())
            .containsExactly("snapshot 1 unaligned", "forward 1 unaligned", "all barriers of 1");
        assertThat(handler.recordingChannels()).isZero();
    }

    @Test
    void aNewerBarrierStopsTheRecordingAbortsAndStartsTheNewerCheckpoint()
    {
        // given channels 0 and 2 recorded for checkpoint 1
        final BarrierHandler handler = handler(3);
        handler.barrierReceived(1, checkpoint(1));
        controller.takeCalls();

        // when
        handler.barrierReceived(1, checkpoint(2));

        // then
        assertThat(controller.takeCalls()).containsExactly(
            "stop recording 0 for 1", "stop recording 2 for 1", "abort 1 SUBSUMED",
            "snapshot 2 unaligned", "forward 2 unaligned", "record 0 for 2", "record 2 for 2");

        // and a late barrier of checkpoint 1 changes nothing
        handler.barrierReceived(0, checkpoint(1));
        assertThat(controller.takeCalls()).isEmpty();
        assertThat(handler.isRecording(0)).isTrue();
    }

    @Test
    void aDeclinedSnapshotIsAbortedAndItsLaterBarriersIgnored()
    {
        // given
        controller.decline(1);
        final BarrierHandler handler = handler(2);

        // when
        handler.barrierReceived(0, checkpoint(1));
        handler.barrierReceived(1, checkpoint(1));

        // then
        assertThat(controller.takeCalls()).containsExactly("snapshot 1 unaligned declined", "abort 1 DECLINED");
        assertThat(handler.recordingChannels()).isZero();
    }

    @Test
    void theSameBarrierTwiceOnAChannelIsImpossible()
    {
        // given
        final BarrierHandler handler = handler(2);
        handler.barrierReceived(0, checkpoint(1));

        // when / then
        assertThatThrownBy(() -> handler.barrierReceived(0, checkpoint(1)))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("arrived twice on channel 0");
    }
}
