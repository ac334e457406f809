package io.ringflow.engine.runtime.task;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class WatermarkValveTest
{
    private final List<String> emitted = new ArrayList<>();
    private final WatermarkValve.Listener listener = new WatermarkValve.Listener()
    {
        @Override
        public void watermark(final long watermark)
        {
            emitted.add("wm " + watermark);
        }

        @Override
        public void status(final boolean idle)
        {
            emitted.add(idle ? "idle" : "active");
        }
    };

    @Test
    void theTaskWatermarkIsTheMinimumOverItsChannelsAndOnlyAdvances()
    {
        final WatermarkValve valve = new WatermarkValve(3, listener);
        valve.onWatermark(0, 10);
        valve.onWatermark(1, 5);
        assertThat(emitted).as("channel 2 has said nothing yet").isEmpty();
        valve.onWatermark(2, 7);
        valve.onWatermark(1, 6);
        valve.onWatermark(1, 3);
        valve.onWatermark(1, 12);
        assertThat(emitted).containsExactly("wm 5", "wm 6", "wm 7");
    }

    @Test
    void anIdleChannelDoesNotHoldTimeBackAndRejoinsOnlyOnceItCaughtUp()
    {
        final WatermarkValve valve = new WatermarkValve(2, listener);
        valve.onWatermark(0, 100);
        valve.onWatermark(1, 20);
        valve.onIdle(1);
        valve.onActive(1);
        valve.onWatermark(0, 150);
        valve.onWatermark(1, 30);
        assertThat(valve.current()).as("channel 1 is behind the task: not aligned, left out").isEqualTo(150);
        valve.onWatermark(1, 160);
        valve.onWatermark(0, 200);
        assertThat(emitted).containsExactly("wm 20", "wm 100", "wm 150", "wm 160");
    }

    @Test
    void whenEveryChannelIsIdleTimeMovesToTheLargestAndTheTaskGoesIdleUntilOneIsActive()
    {
        final WatermarkValve valve = new WatermarkValve(2, listener);
        valve.onWatermark(0, 10);
        valve.onWatermark(1, 40);
        valve.onIdle(0);
        valve.onIdle(1);
        assertThat(valve.isIdle()).isTrue();
        valve.onWatermark(0, 50);
        assertThat(emitted).containsExactly("wm 10", "wm 40", "idle", "active", "wm 50");
    }

    @Test
    void endedChannelsAreLeftOutAndTheEndOfEveryChannelIsTheEndOfTime()
    {
        final WatermarkValve valve = new WatermarkValve(2, listener);
        valve.onWatermark(0, 10);
        valve.onWatermark(1, 40);
        valve.onEnd(0);
        valve.onEnd(1);
        assertThat(emitted).containsExactly("wm 10", "wm 40", "wm " + Long.MAX_VALUE);
    }

    @Test
    void aFinishingChannelsLastWatermarkDoesNotJumpPastAnIdleChannelThatMayResume()
    {
        final WatermarkValve valve = new WatermarkValve(2, listener);
        valve.onWatermark(0, 10);
        valve.onWatermark(1, 20);
        valve.onIdle(0);
        // channel 1 finishes: its Long.MAX_VALUE, then its end
        valve.onWatermark(1, Long.MAX_VALUE);
        valve.onEnd(1);
        assertThat(valve.current()).as("time went to what the live idle channel reached, no further").isEqualTo(20);
        assertThat(valve.isIdle()).isTrue();
        valve.onWatermark(0, 30);
        valve.onEnd(0);
        assertThat(emitted).containsExactly("wm 10", "wm 20", "idle", "active", "wm 30", "wm " + Long.MAX_VALUE);
    }

    /**
     * Random channels, watermarks, idleness and ends (seeded): the output only grows; while no channel was ever idle
     * it is exactly the minimum over the live channels; it never passes a live, active, aligned channel.
     */
    @Test
    void modelCheckedAgainstRandomInput()
    {
        for (long seed = 1; seed <= 300; seed++)
        {
            final SplittableRandom random = new SplittableRandom(seed);
            final int channels = 1 + random.nextInt(4);
            final List<Long> out = new ArrayList<>();
            final WatermarkValve valve = new WatermarkValve(channels, new WatermarkValve.Listener()
            {
                @Override
                public void watermark(final long watermark)
                {
                    out.add(watermark);
                }

                @Override
                public void status(final boolean idle)
                {
                }
            });
            final long[] model = new long[channels];
            java.util.Arrays.fill(model, Long.MIN_VALUE);
            final boolean[] ended = new boolean[channels];
            boolean everIdle = false;
            for (int step = 0; step < 200; step++)
            {
                final int c = random.nextInt(channels);
                final int action = random.nextInt(20);
                if (action == 0 && !ended[c])
                {
                    ended[c] = true;
                    valve.onEnd(c);
                }
                else if (action == 1)
                {
                    everIdle = true;
                    valve.onIdle(c);
                }
                else if (!ended[c])
                {
                    final long watermark = model[c] == Long.MIN_VALUE ? random.nextInt(100) :
                        model[c] + random.nextInt(-5, 30);
                    model[c] = Math.max(model[c], watermark);
                    valve.onWatermark(c, watermark);
                }
                long min = Long.MAX_VALUE;
                for (int i = 0; i < channels; i++)
                {
                    if (!ended[i])
                    {
                        min = Math.min(min, model[i]);
                    }
                }
                if (!everIdle && min != Long.MIN_VALUE)
                {
                    assertThat(valve.current()).as("seed %d step %d", seed, step).isEqualTo(min);
                }
            }
            for (int i = 1; i < out.size(); i++)
            {
                assertThat(out.get(i)).as("seed %d", seed).isGreaterThan(out.get(i - 1));
            }
            for (int i = 0; i < channels; i++)
            {
                valve.onEnd(i);
            }
            assertThat(valve.current()).as("seed %d", seed).isEqualTo(Long.MAX_VALUE);
        }
    }
}
