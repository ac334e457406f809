package io.ringflow.engine.checkpoint.barrier;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.ringflow.engine.checkpoint.barrier.Barriers.checkpoint;
import static io.ringflow.engine.checkpoint.barrier.Barriers.savepoint;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Exactly-once, aligned with a timeout: {@link AligningBarriers} switching to {@link RecordingChannels}.
 */
class AlignedTimeoutTest
{
    private static final long TIMEOUT = Duration.ofMillis(10).toNanos();

    private final ManualNanoClock clock = new ManualNanoClock(5_000);
    private final RecordingController controller = new RecordingController();
    private final BarrierHandler handler = new BarrierHandler(
        3, BarrierHandlerOptions.alignedWithTimeout(Duration.ofNanos(TIMEOUT)), controller, clock);

    @Test
    void anAlignmentThatLastsLongerThanTheTimeoutSwitchesToUnaligned()
    {
        // given checkpoint 1 aligning, channel 0 blocked since 5 000 ns
        handler.barrierReceived(0, checkpoint(1));
        assertThat(controller.takeCalls()).containsExactly("block 0");

        // when exactly the timeout has passed
        clock.advance(TIMEOUT);

        // then nothing changes yet
        assertThat(handler.checkTimeout(clock.nanoTime())).isFalse();
        assertThat(controller.takeCalls()).isEmpty();
        assertThat(handler.isBlocked(0)).isTrue();

        // when one more nanosecond passes
        clock.advance(1);
        final boolean switched = handler.checkTimeout(clock.nanoTime());

        // then the checkpoint is snapshot unaligned, channel 0 is read again, channels 1 and 2 are recorded
        assertThat(switched).isTrue();
        assertThat(controller.takeCalls()).containsExactly(
            "snapshot 1 unaligned", "forward 1 unaligned", "unblock all", "record 1 for 1", "record 2 for 1");
        assertThat(handler.blockedChannels()).isZero();
        assertThat(handler.recordingChannels()).isEqualTo(0b110);
    }

    @Test
    void afterTheSwitchTheMissingBarriersStopTheRecording()
    {
        // given
        handler.barrierReceived(2, checkpoint(1));
        clock.advance(TIMEOUT + 1);
        handler.checkTimeout(clock.nanoTime());
        controller.takeCalls();

        // when
        clock.advance(7);
        handler.barrierReceived(0, checkpoint(1));
        clock.advance(3);
        handler.barrierReceived(1, checkpoint(1));

        // then
        assertThat(controller.takeCalls()).containsExactly(
            "stop recording 0 for 1", "stop recording 1 for 1", "all barriers of 1");
        final CheckpointAlignment alignment = controller.alignments().get(0);
        assertThat(alignment)
            .isEqualTo(new CheckpointAlignment(1, true, 5_000, 5_000 + TIMEOUT + 1, 5_000 + TIMEOUT + 11));
        assertThat(alignment.alignmentDurationNanos()).isEqualTo(TIMEOUT + 1);
        assertThat(alignment.recordingDurationNanos()).isEqualTo(10);
    }

    @Test
    void anAlignmentThatFinishesInTimeStaysAligned()
    {
        // given
        handler.barrierReceived(0, checkpoint(1));
        handler.barrierReceived(1, checkpoint(1));
        clock.advance(TIMEOUT);

        // when
        handler.barrierReceived(2, checkpoint(1));
        clock.advance(TIMEOUT);

        // then
        assertThat(handler.checkTimeout(clock.nanoTime())).isFalse();
        assertThat(controller.takeCalls()).containsExactly(
            "block 0", "block 1", "snapshot 1 aligned", "forward 1 aligned", "unblock all", "all barriers of 1");
    }

    @Test
    void eachCheckpointGetsItsOwnTimeout()
    {
        // given checkpoint 1 aligned in time, long ago
        handler.barrierReceived(0, checkpoint(1));
        handler.barrierReceived(1, checkpoint(1));
        handler.barrierReceived(2, checkpoint(1));
        clock.advance(5 * TIMEOUT);
        handler.barrierReceived(1, checkpoint(2));
        controller.takeCalls();

        // when
        clock.advance(TIMEOUT);

        // then checkpoint 2 has aligned for exactly its timeout: no switch
        assertThat(handler.checkTimeout(clock.nanoTime())).isFalse();
        assertThat(handler.isBlocked(1)).isTrue();
        assertThat(controller.takeCalls()).isEmpty();
    }

    @Test
    void aSavepointNeverTimesOut()
    {
        // given
        handler.barrierReceived(0, savepoint(1));

        // when
        clock.advance(100 * TIMEOUT);

        // then
        assertThat(handler.checkTimeout(clock.nanoTime())).isFalse();
        assertThat(controller.takeCalls()).containsExactly("block 0");
        assertThat(handler.isBlocked(0)).isTrue();
    }

    @Test
    void aSnapshotDeclinedAtTheSwitchUnblocksAndAborts()
    {
        // given
        controller.decline(1);
        handler.barrierReceived(0, checkpoint(1));
        controller.takeCalls();

        // when
        clock.advance(TIMEOUT + 1);
        assertThat(handler.checkTimeout(clock.nanoTime())).isTrue();

        // then
        assertThat(controller.takeCalls())
            .containsExactly("snapshot 1 unaligned declined", "unblock all", "abort 1 DECLINED");
        assertThat(handler.blockedChannels()).isZero();
        assertThat(handler.recordingChannels()).isZero();

        // and the other barriers of checkpoint 1 are ignored
        handler.barrierReceived(1, checkpoint(1));
        assertThat(controller.takeCalls()).isEmpty();
    }

    @Test
    void theHandlersClockDrivesTheNoArgumentCheck()
    {
        // given
        handler.barrierReceived(1, checkpoint(1));
        controller.takeCalls();

        // when / then
        clock.advance(TIMEOUT);
        assertThat(handler.checkTimeout()).isFalse();
        clock.advance(1);
        assertThat(handler.checkTimeout()).isTrue();
        assertThat(controller.takeCalls()).containsExactly(
            "snapshot 1 unaligned", "forward 1 unaligned", "unblock all", "record 0 for 1", "record 2 for 1");
    }

    @Test
    void checkingTheTimeoutWithoutAnAlignmentDoesNothing()
    {
        // given no checkpoint in progress
        clock.advance(100 * TIMEOUT);

        // when / then
        assertThat(handler.checkTimeout(clock.nanoTime())).isFalse();
        assertThat(controller.takeCalls()).isEmpty();
    }

    @Test
    void aNewerBarrierAfterTheSwitchAbortsTheUnalignedCheckpoint()
    {
        // given checkpoint 1 switched, channels 1 and 2 recorded
        handler.barrierReceived(0, checkpoint(1));
        clock.advance(TIMEOUT + 1);
        handler.checkTimeout(clock.nanoTime());
        controller.takeCalls();

        // when
        handler.barrierReceived(1, checkpoint(2));

        // then checkpoint 2 starts aligned again
        assertThat(controller.takeCalls()).containsExactly(
            "stop recording 1 for 1", "stop recording 2 for 1", "abort 1 SUBSUMED", "block 1");
    }
}
