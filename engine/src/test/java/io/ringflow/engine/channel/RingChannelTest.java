package io.ringflow.engine.channel;

import io.ringflow.state.codec.Codec;
import io.ringflow.state.codec.LongCodec;
import io.ringflow.state.codec.StringCodec;
import io.ringflow.state.snapshot.ListCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RingChannelTest
{
    private final List<RingChannel> channels = new ArrayList<>();

    @AfterEach
    void release()
    {
        channels.forEach(RingChannel::release);
    }

    private RingChannel channel(final int ringSize, final int slotSize, final int publishBatch)
    {
        final RingChannel channel = new RingChannel("test", ringSize, slotSize, publishBatch, null);
        channels.add(channel);
        return channel;
    }

    /** Decodes what a poll hands over into readable strings. */
    private static final class Recording
    {
        final List<String> seen = new ArrayList<>();
        final Codec<?> codec;

        Recording(final Codec<?> codec)
        {
            this.codec = codec;
        }

        int poll(final RingChannel channel, final int limit)
        {
            return SlotPoller.poll(channel.reader(), codec, limit, slot ->
            {
                seen.add(slot.startsWith("R") || slot.startsWith("B") ?
                    slot.charAt(0) + ":" + slot.substring(1) : slot);
                return true;
            });
        }
    }

    @Test
    void recordsStayInvisibleUntilTheBatchIsPublished()
    {
        final RingChannel channel = channel(16, 64, 4);
        final Recording reader = new Recording(LongCodec.INSTANCE);

        channel.writer().writeRecord(LongCodec.INSTANCE, 1L);
        channel.writer().writeRecord(LongCodec.INSTANCE, 2L);
        assertThat(reader.poll(channel, 100)).isZero();

        channel.writer().flush();
        assertThat(reader.poll(channel, 100)).isEqualTo(2);
        assertThat(reader.seen).containsExactly("R:1", "R:2");
    }

    @Test
    void aFullBatchIsPublishedWithoutAFlush()
    {
        final RingChannel channel = channel(16, 64, 4);
        final Recording reader = new Recording(LongCodec.INSTANCE);
        for (long i = 0; i < 5; i++)
        {
            channel.writer().writeRecord(LongCodec.INSTANCE, i);
        }
        assertThat(reader.poll(channel, 100)).isEqualTo(4);
        channel.writer().flush();
        assertThat(reader.poll(channel, 100)).isEqualTo(1);
        assertThat(reader.seen).containsExactly("R:0", "R:1", "R:2", "R:3", "R:4");
    }

    @Test
    void barriersAndEndOfInputArriveInOrderAndStopThePoll()
    {
        final RingChannel channel = channel(16, 64, 8);
        final Recording reader = new Recording(StringCodec.INSTANCE);
        channel.writer().writeRecord(StringCodec.INSTANCE, "a");
        channel.writer().writeBarrier(7, BarrierKind.CHECKPOINT, 123L);
        channel.writer().writeRecord(StringCodec.INSTANCE, "b");
        channel.writer().writeEndOfInput();

        reader.poll(channel, 100);
        assertThat(reader.seen).containsExactly("R:a", "B:7");
        reader.poll(channel, 100);
        assertThat(reader.seen).containsExactly("R:a", "B:7", "R:b", "END_OF_INPUT");
        assertThat(channel.reader().hasAvailable()).isFalse();
    }

    @Test
    void pollHandsOverAtMostTheLimit()
    {
        final RingChannel channel = channel(16, 64, 8);
        final Recording reader = new Recording(LongCodec.INSTANCE);
        for (long i = 0; i < 10; i++)
        {
            channel.writer().writeRecord(LongCodec.INSTANCE, i);
        }
        channel.writer().flush();
        assertThat(reader.poll(channel, 3)).isEqualTo(3);
        assertThat(reader.poll(channel, 100)).isEqualTo(7);
        assertThat(channel.backlog()).isZero();
    }

    @Test
    void aRecordLargerThanASlotFailsNamingTypeAndSizeAndIsNotSent()
    {
        final RingChannel channel = channel(16, 32, 4);
        final String large = "x".repeat(100);
        assertThatThrownBy(() -> channel.writer().writeRecord(StringCodec.INSTANCE, large))
            .isInstanceOf(RecordTooLargeException.class)
            .hasMessageContaining("java.lang.String")
            .hasMessageContaining("104 bytes")
            .hasMessageContaining("at most 24 payload bytes")
            .hasMessageContaining("slotSize");
        channel.writer().flush();
        assertThat(channel.reader().hasAvailable()).isFalse();

        // the slot the failed write claimed is reused, not published with garbage in it
        final Recording reader = new Recording(StringCodec.INSTANCE);
        channel.writer().writeRecord(StringCodec.INSTANCE, "fits");
        channel.writer().flush();
        reader.poll(channel, 100);
        assertThat(reader.seen).containsExactly("R:fits");
    }

    @Test
    void aRecordTooLargeForItsSlotLeavesTheNextSlotIntact()
    {
        final RingChannel channel = channel(4, 32, 3);
        final Recording reader = new Recording(StringCodec.INSTANCE);
        for (final String record : new String[] {"s0", "s1", "s2", "s3"})
        {
            channel.writer().writeRecord(StringCodec.INSTANCE, record);
        }
        channel.writer().flush();
        assertThat(reader.poll(channel, 2)).isEqualTo(2);

        // slots 2 and 3 are published and unread; the too large records go to slot 1, just before them: a string
        // (refused before it writes anything) and a list, whose codec writes element after element until the slot
        // drops what does not fit
        channel.writer().writeRecord(StringCodec.INSTANCE, "s4");
        assertThatThrownBy(() -> channel.writer().writeRecord(StringCodec.INSTANCE, "y".repeat(1000)))
            .isInstanceOf(RecordTooLargeException.class)
            .hasMessageContaining("1004 bytes");
        final List<Long> longs = java.util.Collections.nCopies(10, -1L);
        assertThatThrownBy(() -> channel.writer().writeRecord(new ListCodec<>(LongCodec.INSTANCE), longs))
            .isInstanceOf(RecordTooLargeException.class)
            .hasMessageContaining((4 + 10 * 12) + " bytes");
        channel.writer().flush();
        reader.poll(channel, 100);
        assertThat(reader.seen).containsExactly("R:s0", "R:s1", "R:s2", "R:s3", "R:s4");
    }

    @Test
    void aFullRingCallsBackPressureUntilTheConsumerFreesASlot()
    {
        final RingChannel channel = channel(4, 64, 2);
        final Recording reader = new Recording(LongCodec.INSTANCE);
        final int[] waits = {0};
        channel.writer().backPressure(full ->
        {
            waits[0]++;
            // the consumer drains while the producer waits (same thread, to keep the test deterministic)
            reader.poll(full, 1);
        });
        for (long i = 0; i < 6; i++)
        {
            channel.writer().writeRecord(LongCodec.INSTANCE, i);
        }
        channel.writer().flush();
        reader.poll(channel, 100);
        assertThat(waits[0]).isPositive();
        assertThat(reader.seen).containsExactly("R:0", "R:1", "R:2", "R:3", "R:4", "R:5");
    }

    @Test
    void invalidGeometryIsRejected()
    {
        assertThatThrownBy(() -> new RingChannel("c", 1000, 64, 4, null))
            .hasMessageContaining("power of two");
        assertThatThrownBy(() -> new RingChannel("c", 16, 30, 4, null))
            .hasMessageContaining("multiple of 8");
        assertThatThrownBy(() -> new RingChannel("c", 16, 64, 16, null))
            .hasMessageContaining("publish batch");
    }

    @Test
    void aFailedWriteNeitherHidesTheRecordsBeforeItNorPublishesItsSlot()
    {
        final RingChannel channel = channel(16, 32, 8);
        final Recording reader = new Recording(StringCodec.INSTANCE);
        final Codec<String> picky = new Codec<>()
        {
            @Override
            public Class<String> type()
            {
                return String.class;
            }

            @Override
            public int encode(final String value, final io.ringflow.state.codec.CodecBuffer buffer, final int offset)
            {
                if (value.equals("bad"))
                {
                    throw new IllegalStateException("cannot encode " + value);
                }
                return StringCodec.INSTANCE.encode(value, buffer, offset);
            }

            @Override
            public String decode(final io.ringflow.state.codec.CodecBuffer buffer, final int offset, final int length)
            {
                return StringCodec.INSTANCE.decode(buffer, offset, length);
            }
        };

        channel.writer().writeRecord(picky, "ok1");
        assertThatThrownBy(() -> channel.writer().writeRecord(picky, "bad")).hasMessage("cannot encode bad");
        assertThatThrownBy(() -> channel.writer().writeRecord(picky, "x".repeat(100)))
            .isInstanceOf(RecordTooLargeException.class);
        channel.writer().flush();
        reader.poll(channel, 100);
        assertThat(reader.seen).containsExactly("R:ok1");

        channel.writer().writeRecord(picky, "ok2");
        channel.writer().flush();
        reader.poll(channel, 100);
        assertThat(reader.seen).containsExactly("R:ok1", "R:ok2");
    }

    @Test
    void aRecordsKeyGroupAndLengthTravelInItsHeader()
    {
        final RingChannel channel = channel(16, 64, 8);
        final ChannelWriter writer = channel.writer();
        for (final int keyGroup : new int[] {0, 1, 127, 32767, SlotDescriptor.NO_KEY_GROUP})
        {
            final int length = LongCodec.INSTANCE.encode((long)keyGroup, writer.claimRecord(), 0);
            writer.commitRecord(keyGroup, length);
        }
        writer.writeBarrier(3, BarrierKind.SAVEPOINT, 42L);
        final ChannelReader reader = channel.reader();
        assertThat(reader.available(100)).isEqualTo(6);
        final List<String> seen = new ArrayList<>();
        for (int i = 0; i < 6; i++)
        {
            final long sequence = reader.nextSequence() + i;
            final long header = reader.header(sequence);
            seen.add(SlotKind.name(SlotDescriptor.kind(header)) + " " + SlotDescriptor.keyGroup(header) + " " +
                SlotDescriptor.length(header) + (SlotDescriptor.kind(header) == SlotKind.RECORD ?
                " " + LongCodec.INSTANCE.decode(reader.window(), reader.payloadOffset(sequence), 8) :
                " " + reader.barrierCheckpointId(sequence) + " " + reader.barrierKind(sequence) + " " +
                reader.barrierTimestamp(sequence)));
        }
        reader.advance(6);
        assertThat(seen).containsExactly("RECORD 0 8 0", "RECORD 1 8 1", "RECORD 127 8 127", "RECORD 32767 8 32767",
            "RECORD 65535 8 65535", "BARRIER 65535 24 3 SAVEPOINT 42");
        assertThat(reader.hasAvailable()).isFalse();
    }

    @Test
    void timestampsTravelInFrontOfKeyAndRecordAndWatermarksAndStatusesInOrder()
    {
        final RingChannel channel = channel(16, 64, 8);
        final ChannelWriter writer = channel.writer();
        final RecordTimestamp time = new RecordTimestamp();
        writer.timestamps(time);
        time.value = 1_000L;
        final io.ringflow.state.codec.CodecBuffer slot = writer.claimRecord();
        slot.putLong(0, 4242L);
        final int length = StringCodec.INSTANCE.encode("keyed", slot, SlotDescriptor.LONG_KEY_LENGTH);
        writer.commitLongKeyedRecord(17, SlotDescriptor.LONG_KEY_LENGTH + length);
        writer.writeWatermark(999L);
        time.value = RecordTimestamp.NO_TIMESTAMP;
        writer.writeRecord(StringCodec.INSTANCE, "plain");
        writer.writeWatermarkStatus(true);
        time.value = -5L;
        writer.writeRecord(StringCodec.INSTANCE, "negative");
        writer.writeWatermarkStatus(false);
        writer.flush();

        final ChannelReader reader = channel.reader();
        final long first = reader.nextSequence();
        final long keyed = reader.header(first);
        assertThat(SlotDescriptor.hasTimestamp(keyed)).isTrue();
        assertThat(SlotDescriptor.hasLongKey(keyed)).isTrue();
        assertThat(reader.window().getLong(reader.payloadOffset(first))).isEqualTo(1_000L);
        assertThat(reader.window().getLong(reader.payloadOffset(first) + 8)).isEqualTo(4242L);
        assertThat(SlotDescriptor.length(keyed)).isEqualTo(16 + length);
        assertThat(SlotDescriptor.kind(reader.header(first + 1))).isEqualTo(SlotKind.WATERMARK);
        assertThat(reader.watermark(first + 1)).isEqualTo(999L);
        assertThat(SlotDescriptor.hasTimestamp(reader.header(first + 2))).isFalse();
        assertThat(SlotDescriptor.flags(reader.header(first + 3))).isEqualTo(SlotDescriptor.FLAG_IDLE);
        assertThat(reader.window().getLong(reader.payloadOffset(first + 4))).isEqualTo(-5L);
        assertThat(SlotDescriptor.flags(reader.header(first + 5))).isEqualTo(SlotDescriptor.FLAG_ACTIVE);

        final List<String> overtaken = new ArrayList<>();
        reader.peekRecordsBefore(first + 6, (timestamp, buffer, offset, bytes) ->
            overtaken.add(timestamp + ":" + StringCodec.INSTANCE.decode(buffer, offset, bytes)));
        assertThat(overtaken).as("channel state keeps each record's timestamp, not its key nor the watermarks")
            .containsExactly("1000:keyed", Long.MIN_VALUE + ":plain", "-5:negative");
    }

    @Test
    void aRecordSentWithItsLongKeyCarriesTheFlagAndChannelStateSeesOnlyTheRecord()
    {
        final RingChannel channel = channel(16, 64, 8);
        final ChannelWriter writer = channel.writer();
        final io.ringflow.state.codec.CodecBuffer slot = writer.claimRecord();
        slot.putLong(0, 4242L);
        final int length = StringCodec.INSTANCE.encode("keyed", slot, SlotDescriptor.LONG_KEY_LENGTH);
        writer.commitLongKeyedRecord(17, SlotDescriptor.LONG_KEY_LENGTH + length);
        writer.writeRecord(StringCodec.INSTANCE, "plain");
        writer.flush();

        final ChannelReader reader = channel.reader();
        final long first = reader.nextSequence();
        assertThat(SlotDescriptor.hasLongKey(reader.header(first))).isTrue();
        assertThat(SlotDescriptor.keyGroup(reader.header(first))).isEqualTo(17);
        assertThat(reader.window().getLong(reader.payloadOffset(first))).isEqualTo(4242L);
        assertThat(SlotDescriptor.hasLongKey(reader.header(first + 1))).isFalse();

        final List<String> overtaken = new ArrayList<>();
        reader.peekRecordsBefore(first + 2,
            (timestamp, buffer, offset, bytes) -> overtaken.add(StringCodec.INSTANCE.decode(buffer, offset, bytes)));
        assertThat(overtaken).as("the key is not part of the record's bytes").containsExactly("keyed", "plain");
    }

    @Test
    void aKeyedRecordTooLargeNamesTheRoomLeftBesideItsKey()
    {
        final RingChannel channel = channel(16, 32, 4);
        final ChannelWriter writer = channel.writer();
        final String large = "x".repeat(20);
        final io.ringflow.state.codec.CodecBuffer slot = writer.claimRecord();
        slot.putLong(0, 1L);
        StringCodec.INSTANCE.encode(large, slot, SlotDescriptor.LONG_KEY_LENGTH);
        assertThat(slot.overflowed()).isTrue();
        assertThat(writer.tooLarge(StringCodec.INSTANCE, large, SlotDescriptor.LONG_KEY_LENGTH))
            .hasMessageContaining("24 bytes")
            .hasMessageContaining("at most 16 payload bytes for it (8 more carry its key)")
            .hasMessageContaining("slotSize to at least 40");
    }
}
