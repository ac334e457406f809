package io.ringflow.state.checkpoint;

import io.ringflow.state.codec.CodecBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ChannelStateFormatTest
{
    /** Two channels: input 0 with records {1,2,3} (timestamp 7) and {4} (none), input 1 with none. */
    private static byte[] twoChannels()
    {
        final ByteBuffer out = ByteBuffer.allocate(12 + 8 + 4 + 8 + 3 + 4 + 8 + 1 + 8);
        out.putInt(ChannelStateFormat.MAGIC).putInt(ChannelStateFormat.VERSION).putInt(2);
        out.putInt(0).putInt(2).putInt(3).putLong(7).put(new byte[] {1, 2, 3});
        out.putInt(1).putLong(ChannelStateFormat.NO_TIMESTAMP).put((byte)4);
        out.putInt(1).putInt(0);
        return out.array();
    }

    /** The same in version 2, whose records carry no timestamp. */
    private static byte[] twoChannelsVersion2()
    {
        final ByteBuffer out = ByteBuffer.allocate(12 + 8 + 4 + 3 + 4 + 1 + 8);
        out.putInt(ChannelStateFormat.MAGIC).putInt(2).putInt(2);
        out.putInt(0).putInt(2).putInt(3).put(new byte[] {1, 2, 3}).putInt(1).put((byte)4);
        out.putInt(1).putInt(0);
        return out.array();
    }

    @Test
    void version2IsReadWithoutTimestamps()
    {
        final List<String> seen = new ArrayList<>();
        ChannelStateFormat.read(twoChannelsVersion2(), "f", new ChannelStateFormat.Visitor()
        {
            @Override
            public void record(final int channel, final long timestamp, final CodecBuffer bytes, final int offset,
                final int length)
            {
                seen.add(timestamp + " " + Arrays.toString(bytes.toByteArray(offset, length)));
            }
        });
        assertThat(seen).containsExactly(Long.MIN_VALUE + " [1, 2, 3]", Long.MIN_VALUE + " [4]");
    }

    @Test
    void visitsChannelsAndRecordsInFileOrder()
    {
        final List<String> seen = new ArrayList<>();
        ChannelStateFormat.read(twoChannels(), "f", new ChannelStateFormat.Visitor()
        {
            @Override
            public void channels(final int count)
            {
                seen.add("channels " + count);
            }

            @Override
            public void channel(final int channel, final int inputIndex, final int records)
            {
                seen.add("channel " + channel + " input " + inputIndex + " records " + records);
            }

            @Override
            public void record(final int channel, final long timestamp, final CodecBuffer bytes, final int offset,
                final int length)
            {
                seen.add("record " + channel + " " + (timestamp == ChannelStateFormat.NO_TIMESTAMP ? "-" : timestamp) +
                    " " + Arrays.toString(bytes.toByteArray(offset, length)));
            }
        });
        assertThat(seen).containsExactly("channels 2", "channel 0 input 0 records 2", "record 0 7 [1, 2, 3]",
            "record 0 - [4]", "channel 1 input 1 records 0");
    }

    @Test
    void damageIsRefusedNamingTheFile()
    {
        final ChannelStateFormat.Visitor nothing = new ChannelStateFormat.Visitor()
        {
        };
        final byte[] wrongMagic = twoChannels();
        wrongMagic[0] ^= 1;
        assertThatThrownBy(() -> ChannelStateFormat.read(wrongMagic, "cs-1", nothing))
            .isInstanceOf(CorruptCheckpointException.class).hasMessageContaining("cs-1")
            .hasMessageContaining("not a Ringflow channel state file");
        final byte[] newer = twoChannels();
        newer[7] = 9;
        assertThatThrownBy(() -> ChannelStateFormat.read(newer, "cs-1", nothing))
            .hasMessageContaining("version 9");
        for (int length = 12; length < twoChannels().length; length++)
        {
            final byte[] torn = Arrays.copyOf(twoChannels(), length);
            assertThatThrownBy(() -> ChannelStateFormat.read(torn, "cs-1", nothing)).as("length %d", length)
                .isInstanceOf(CorruptCheckpointException.class);
        }
        final byte[] longer = Arrays.copyOf(twoChannels(), twoChannels().length + 2);
        assertThatThrownBy(() -> ChannelStateFormat.read(longer, "cs-1", nothing))
            .hasMessageContaining("2 unexpected bytes at the end");
    }
}
