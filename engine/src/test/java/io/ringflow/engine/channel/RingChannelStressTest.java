package io.ringflow.engine.channel;

import io.ringflow.state.codec.StringCodec;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A producer and a consumer thread on one small ring, with a seeded random mix of record sizes, barriers, flushes
 * and consumer poll limits. The consumer must see exactly the producer's sequence: nothing lost, duplicated,
 * reordered or torn, across many wrap-arounds.
 */
class RingChannelStressTest
{
    private static final int OPERATIONS = 200_000;

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 42, 20261130})
    void consumerSeesExactlyWhatTheProducerWrote(final long seed) throws Exception
    {
        final RingChannel channel = new RingChannel("stress", 64, 64, 16, null);
        try
        {
            final List<String> expected = new ArrayList<>();
            final Random plan = new Random(seed);
            for (int i = 0; i < OPERATIONS; i++)
            {
                final int choice = plan.nextInt(100);
                if (choice < 2)
                {
                    expected.add("B" + i);
                }
                else
                {
                    // up to 39 letters and 6 digits: at most 49 of the 56 payload bytes with the length prefix
                    expected.add("R" + "abcdefghijklmnopqrstuvwxyz".repeat(2).substring(0, plan.nextInt(40)) + i);
                }
            }

            final CompletableFuture<Void> producer = CompletableFuture.runAsync(() ->
            {
                final Random flushes = new Random(seed ^ 0x5DEECE66DL);
                final ChannelWriter writer = channel.writer();
                writer.backPressure(full -> Thread.onSpinWait());
                for (final String item : expected)
                {
                    if (item.charAt(0) == 'B')
                    {
                        writer.writeBarrier(Long.parseLong(item.substring(1)), BarrierKind.CHECKPOINT, 0);
                    }
                    else
                    {
                        writer.writeRecord(StringCodec.INSTANCE, item.substring(1));
                    }
                    if (flushes.nextInt(10) == 0)
                    {
                        writer.flush();
                    }
                }
                writer.writeEndOfInput();
            });

            final List<String> seen = new ArrayList<>(OPERATIONS);
            final boolean[] ended = {false};
            final SlotPoller.Sink handler = slot ->
            {
                if (slot.equals(SlotKind.name(SlotKind.END_OF_INPUT)))
                {
                    ended[0] = true;
                    return false;
                }
                if (slot.charAt(0) != 'R' && slot.charAt(0) != 'B')
                {
                    throw new AssertionError("unexpected slot " + slot);
                }
                seen.add(slot);
                return slot.charAt(0) == 'R';
            };
            final Random limits = new Random(seed * 31);
            while (!ended[0])
            {
                if (SlotPoller.poll(channel.reader(), StringCodec.INSTANCE, 1 + limits.nextInt(40), handler) == 0)
                {
                    if (producer.isCompletedExceptionally())
                    {
                        producer.join();
                    }
                    Thread.onSpinWait();
                }
            }
            producer.get(1, TimeUnit.MINUTES);
            assertThat(seen).as("seed %d", seed).isEqualTo(expected);
        }
        finally
        {
            channel.release();
        }
    }
}
