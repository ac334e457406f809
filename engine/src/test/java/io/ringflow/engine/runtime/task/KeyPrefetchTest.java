package io.ringflow.engine.runtime.task;

import io.ringflow.engine.api.IdleStrategyKind;
import io.ringflow.engine.channel.BarrierKind;
import io.ringflow.engine.channel.ChannelReader;
import io.ringflow.engine.channel.ChannelWriter;
import io.ringflow.engine.channel.RingChannel;
import io.ringflow.engine.channel.SlotDescriptor;
import io.ringflow.engine.checkpoint.barrier.BarrierHandlerOptions;
import io.ringflow.engine.runtime.deploy.JobAttempt;
import io.ringflow.state.checkpoint.InMemoryCheckpointStorage;
import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.CodecBuffer;
import io.ringflow.state.codec.CodecRegistry;
import io.ringflow.state.codec.LongCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The record loop's key hints ({@code JobConfig.keyPrefetch}): a random mix of records sent by their {@code Long}
 * key, records without one, watermarks and barriers goes through an {@link InputTask} driven by hand, with random
 * burst and read-batch sizes. Seeded, so a failure names its seed.
 */
class KeyPrefetchTest
{
    private static final int RING = 1024;
    private static final int[] BURSTS = {1, 2, 3, 8, 16, 64};

    private final List<RingChannel> channels = new ArrayList<>();
    private final List<RingChannel> outputs = new ArrayList<>();

    /** Logs hints and records, by key. */
    private static final class HintedOperator extends StreamOperator
    {
        private final boolean prefetches;
        final List<long[]> events = new ArrayList<>();
        final List<Long> unkeyed = new ArrayList<>();

        HintedOperator(final boolean prefetches)
        {
            this.prefetches = prefetches;
        }

        @Override
        public boolean prefetchesKeys()
        {
            return prefetches;
        }

        @Override
        public long prefetchKey(final long key)
        {
            events.add(new long[] {HINT, key});
            return key;
        }

        @Override
        public void processElement(final Object record)
        {
            unkeyed.add((Long)record);
        }

        @Override
        public void processElement(final Object record, final int keyGroup, final long key)
        {
            assertThat(record).isEqualTo(key);
            events.add(new long[] {PROCESS, key});
        }

        @Override
        public void processElement2(final Object record, final int keyGroup, final long key)
        {
            assertThat(record).isEqualTo(key);
            events.add(new long[] {PROCESS_SECOND, key});
        }
    }

    private static final long HINT = 0;
    private static final long PROCESS = 1;
    private static final long PROCESS_SECOND = 2;

    @AfterEach
    void release()
    {
        channels.forEach(RingChannel::release);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void everyKeyedRecordIsHintedBeforeItIsProcessedAndAtMostABurstAhead(final long seed) throws Exception
    {
        final Random random = new Random(seed);
        final int burst = BURSTS[random.nextInt(BURSTS.length)];
        final HintedOperator head = new HintedOperator(true);
        final Input input = run(random, head, burst);

        // then: every record arrived in order, and only keys of records sent by key were hinted
        final List<Long> processed = new ArrayList<>();
        final Set<Long> hintedSoFar = new HashSet<>();
        for (final long[] event : head.events)
        {
            if (event[0] == HINT)
            {
                assertThat(input.keyed).as("seed %d: a hint names a record sent by key", seed).contains(event[1]);
                hintedSoFar.add(event[1]);
            }
            else
            {
                assertThat(hintedSoFar).as("seed %d, burst %d: key %d hinted before it is processed", seed, burst,
                    event[1]).contains(event[1]);
                processed.add(event[1]);
                // keys are distinct: the hinted set counts records hinted; ahead of this one by at most a burst
                assertThat(hintedSoFar.size()).as("seed %d, burst %d: hints ahead of record %d", seed, burst,
                    processed.size()).isLessThanOrEqualTo(processed.size() - 1 + burst);
            }
        }
        assertThat(processed).as("seed %d", seed).containsExactlyElementsOf(input.keyed);
        assertThat(head.unkeyed).as("seed %d", seed).containsExactlyElementsOf(input.unkeyed);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 12, 13})
    void noHintsWhenTheHeadDoesNotPrefetchOrTheBurstIsZero(final long seed) throws Exception
    {
        for (final boolean off : new boolean[] {true, false})
        {
            final Random random = new Random(seed);
            final HintedOperator head = new HintedOperator(!off);
            final Input input = run(random, head, off ? 16 : 0);

            assertThat(head.events).as("seed %d", seed).allSatisfy(event -> assertThat(event[0]).isEqualTo(PROCESS));
            assertThat(head.events.stream().map(event -> event[1]).toList()).containsExactlyElementsOf(input.keyed);
            assertThat(head.unkeyed).containsExactlyElementsOf(input.unkeyed);
        }
    }

    @ParameterizedTest(name = "class copies {0}")
    @ValueSource(booleans = {false, true})
    void hintsGoInBurstsEachBeforeTheRecordsItNames(final boolean copies) throws Exception
    {
        // given: 40 records sent by key in one run, bursts of 16, on the shared record loop or a private copy of it
        final RingChannel in = ring("in");
        final HintedOperator head = new HintedOperator(true);
        final InputTask task = task(in, head, 16, 256, 0, new ClassCopies(copies).copyOf(ChannelInput.class));
        for (long key = 0; key < 40; key++)
        {
            writeByKey(in.writer(), key);
        }
        in.writer().flush();

        // when
        task.doWork();

        // then: hints 0-15, records 0-15, hints 16-31, records 16-31, hints 32-39 (the run's end), records 32-39
        final List<String> expected = new ArrayList<>();
        for (int from = 0; from < 40; from += 16)
        {
            for (int key = from; key < Math.min(40, from + 16); key++)
            {
                expected.add("hint " + key);
            }
            for (int key = from; key < Math.min(40, from + 16); key++)
            {
                expected.add("process " + key);
            }
        }
        assertThat(head.events.stream().map(event -> (event[0] == HINT ? "hint " : "process ") + event[1]).toList())
            .containsExactlyElementsOf(expected);
    }

    @Test
    void recordsOfASecondInputAreNeverHinted() throws Exception
    {
        final RingChannel in = ring("in");
        final HintedOperator head = new HintedOperator(true);
        final InputTask task = task(in, head, 16, 256, 1, ChannelInput.class);
        for (long key = 0; key < 40; key++)
        {
            writeByKey(in.writer(), key);
        }
        in.writer().flush();

        task.doWork();

        assertThat(head.events).hasSize(40).allSatisfy(event -> assertThat(event[0]).isEqualTo(PROCESS_SECOND));
    }

    /** What was written: records sent by key and records without one, each in order. */
    private record Input(List<Long> keyed, List<Long> unkeyed)
    {
    }

    private Input run(final Random random, final StreamOperator head, final int burst) throws Exception
    {
        final RingChannel in = ring("in");
        final InputTask task = task(in, head, burst, 1 + random.nextInt(300), 0,
            new ClassCopies(random.nextBoolean()).copyOf(ChannelInput.class));

        // given: distinct keys, so that a hint names exactly one record
        final Set<Long> used = new LinkedHashSet<>();
        final List<Long> keyed = new ArrayList<>();
        final List<Long> unkeyed = new ArrayList<>();
        final ChannelWriter writer = in.writer();
        final int items = 1 + random.nextInt(RING / 2);
        long checkpointId = 0;
        for (int i = 0; i < items; i++)
        {
            final int kind = random.nextInt(20);
            final long value = random.nextLong();
            if (kind == 0)
            {
                writer.writeBarrier(++checkpointId, BarrierKind.CHECKPOINT, 0);
            }
            else if (kind == 1)
            {
                writer.writeWatermark(i);
            }
            else if (kind < 4)
            {
                writer.writeRecord(LongCodec.INSTANCE, value);
                unkeyed.add(value);
            }
            else if (used.add(value))
            {
                writeByKey(writer, value);
                keyed.add(value);
            }
        }
        writer.flush();

        // when: the task works until the ring is read
        final ChannelReader reader = in.reader();
        for (int cycle = 0; cycle < 10 * items && reader.available(1) > 0; cycle++)
        {
            task.doWork();
            drainOutputs();
        }
        assertThat(reader.available(1)).as("the input was read").isZero();
        return new Input(keyed, unkeyed);
    }

    private InputTask task(final RingChannel in, final StreamOperator head, final int burst, final int readBatch,
        final int inputIndex, final Class<? extends InputChannel> recordLoop)
    {
        final RingChannel out = ring("out");
        outputs.add(out);
        final CodecRegistry codecs = CodecRegistry.withBuiltIns();
        head.setup(new OperatorRuntime("job", "hinted", "hinted", 0, 1, 128, null, new OperatorStateStore(codecs),
            "test"), record -> { });
        return new InputTask(new JobAttempt("job", null, 1, new InMemoryCheckpointStorage()),
            "hinted (1/1)", new StreamOperator[] {head}, new ChannelWriter[] {out.writer()},
            Idler.create(IdleStrategyKind.BUSY_SPIN, null, 100_000), 100_000, -1,
            new ChannelReader[] {in.reader()}, new int[] {inputIndex}, new Codec[] {LongCodec.INSTANCE}, readBatch,
            burst, null, BarrierHandlerOptions.aligned(), List.of(recordLoop));
    }

    private static void writeByKey(final ChannelWriter writer, final long key)
    {
        final CodecBuffer slot = writer.claimRecord();
        slot.putLong(0, key);
        final int length = LongCodec.INSTANCE.encode(key, slot, SlotDescriptor.LONG_KEY_LENGTH);
        writer.commitLongKeyedRecord(0, SlotDescriptor.LONG_KEY_LENGTH + length);
    }

    private void drainOutputs()
    {
        outputs.forEach(out -> out.reader().advance(out.reader().available(RING)));
    }

    private RingChannel ring(final String name)
    {
        final RingChannel channel = new RingChannel(name, RING, 64, 4, null);
        channels.add(channel);
        return channel;
    }
}
