package io.ringflow.engine.runtime.task;

import io.ringflow.engine.api.IdleStrategyKind;
import io.ringflow.engine.api.JobConfig;
import io.ringflow.engine.channel.ChannelReader;
import io.ringflow.engine.channel.ChannelWriter;
import io.ringflow.engine.channel.RingChannel;
import io.ringflow.engine.channel.SlotDescriptor;
import io.ringflow.engine.checkpoint.barrier.BarrierHandlerOptions;
import io.ringflow.engine.runtime.deploy.JobAttempt;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.StringCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Drives an {@link InputTask}'s work cycles by hand, writing into its two input rings from the test thread, to see
 * exactly when records, snapshots and barriers happen.
 */
class InputTaskAlignmentTest
{
    private final List<String> events = new ArrayList<>();
    private final List<RingChannel> channels = new ArrayList<>();
    private RingChannel a;
    private RingChannel b;

    /** Logs every record and every snapshot it sees. */
    private final class RecordingOperator extends StreamOperator
    {
        @Override
        public void processElement(final Object record)
        {
            events.add(String.valueOf(record));
        }

        @Override
        public void onBarrier(final long checkpointId)
        {
            events.add("snapshot-" + checkpointId);
        }
    }

    @AfterEach
    void release()
    {
        channels.forEach(RingChannel::release);
    }

    private InputTask task(final BarrierHandlerOptions options, final RingChannel output)
    {
        a = new RingChannel("a", 16, 64, 4, null);
        b = new RingChannel("b", 16, 64, 4, null);
        channels.add(a);
        channels.add(b);
        final StreamOperator head = new RecordingOperator();
        head.setup(new OperatorRuntime("job", "recorder", "recorder", 0, 1, 128, null,
            new OperatorStateStore(io.ringflow.state.codec.CodecRegistry.withBuiltIns()), "test"), record -> { });
        @SuppressWarnings("unchecked")
        final Codec<Object>[] codecs = new Codec[] {StringCodec.INSTANCE, StringCodec.INSTANCE};
        return new InputTask(new JobAttempt("job", null, 1,
            new io.ringflow.state.checkpoint.InMemoryCheckpointStorage()), "recorder (1/1)", new StreamOperator[] {head},
            new ChannelWriter[] {output.writer()}, Idler.create(IdleStrategyKind.BUSY_SPIN, null, 100_000), 100_000,
            -1, new ChannelReader[] {a.reader(), b.reader()}, new int[] {0, 0}, codecs, 100,
            JobConfig.DEFAULT_KEY_PREFETCH, null, options, List.of(ChannelInput.class, ChannelInput.class));
    }

    private RingChannel output()
    {
        final RingChannel out = new RingChannel("out", 16, 64, 4, null);
        channels.add(out);
        return out;
    }

    private static void write(final RingChannel channel, final String... items)
    {
        for (final String item : items)
        {
            if (item.startsWith("B"))
            {
                channel.writer().writeBarrier(Long.parseLong(item.substring(1)), io.ringflow.engine.channel.BarrierKind.CHECKPOINT, 0);
            }
            else
            {
                channel.writer().writeRecord(StringCodec.INSTANCE, item);
            }
        }
        channel.writer().flush();
    }

    private static List<String> barriersOn(final RingChannel out)
    {
        final List<String> seen = new ArrayList<>();
        final ChannelReader reader = out.reader();
        final int available = reader.available(100);
        for (int i = 0; i < available; i++)
        {
            seen.add("kind-" + SlotDescriptor.kind(reader.header(reader.nextSequence() + i)));
        }
        reader.advance(available);
        return seen;
    }

    @Test
    void alignedModeHoldsTheRecordsBehindABarrierInTheRingUntilEveryChannelDeliveredIt() throws Exception
    {
        final RingChannel out = output();
        final InputTask task = task(BarrierHandlerOptions.aligned(), out);

        // given: channel a has a record, the barrier of checkpoint 1 and a record after it; channel b one record
        write(a, "a1", "B1", "a2");
        write(b, "b1");
        // when: the task works until it has nothing left it may read
        task.doWork();
        task.doWork();
        // then: a2 waits behind a's barrier; nothing is snapshotted or forwarded yet
        assertThat(events).containsExactly("a1", "b1");
        assertThat(barriersOn(out)).isEmpty();

        // when: b delivers the barrier, then more records on both channels
        write(b, "B1", "b2");
        task.doWork();
        task.doWork();
        // then: snapshot 1 happens before any record after the barrier, and the barrier goes downstream
        assertThat(events).containsExactly("a1", "b1", "snapshot-1", "a2", "b2");
        assertThat(barriersOn(out)).containsExactly("kind-2");
    }

    @Test
    void atLeastOnceModeNeverBlocksAndSnapshotsOnTheLastBarrier() throws Exception
    {
        final RingChannel out = output();
        final InputTask task = task(BarrierHandlerOptions.atLeastOnce(), out);

        write(a, "a1", "B1", "a2");
        write(b, "b1");
        task.doWork();
        task.doWork();
        // a2 is processed although b has not delivered the barrier: after a failure it could be counted twice
        assertThat(events).containsExactly("a1", "b1", "a2");

        write(b, "B1");
        task.doWork();
        assertThat(events).containsExactly("a1", "b1", "a2", "snapshot-1");
        assertThat(barriersOn(out)).containsExactly("kind-2");
    }

    @Test
    void endOfInputCountsAsTheBarrierOfAnEndedChannel() throws Exception
    {
        final RingChannel out = output();
        final InputTask task = task(BarrierHandlerOptions.aligned(), out);

        b.writer().writeEndOfInput();
        write(a, "a1", "B1", "a2");
        task.doWork();
        task.doWork();
        assertThat(events).containsExactly("a1", "snapshot-1", "a2");
        assertThat(barriersOn(out)).containsExactly("kind-2");
    }
}
