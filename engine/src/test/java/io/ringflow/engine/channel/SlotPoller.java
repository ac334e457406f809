package io.ringflow.engine.channel;

import io.ringflow.state.codec.Codec;

/**
 * Reads a channel the way an input task's record loop does (a run of published slots; a control slot ends the run),
 * and describes each slot as a string: {@code R<record>}, {@code B<checkpoint id>}, {@code END_OF_INPUT}. For tests.
 */
final class SlotPoller
{
    /** What one slot read. */
    interface Sink
    {
        /** @param slot the slot described. @return whether the run goes on. */
        boolean accept(String slot);
    }

    private SlotPoller()
    {
    }

    /**
     * @param reader the channel's reader.
     * @param codec  the records' codec.
     * @param limit  the most slots to read.
     * @param sink   receives each slot's description.
     * @return how many slots were read.
     */
    static int poll(final ChannelReader reader, final Codec<?> codec, final int limit, final Sink sink)
    {
        final int available = reader.available(limit);
        final long first = reader.nextSequence();
        int read = 0;
        while (read < available)
        {
            final long sequence = first + read;
            final long header = reader.header(sequence);
            read++;
            final boolean goOn;
            switch (SlotDescriptor.kind(header))
            {
                case SlotKind.RECORD:
                    goOn = sink.accept("R" + codec.decode(reader.window(), reader.payloadOffset(sequence),
                        SlotDescriptor.length(header)));
                    break;
                case SlotKind.BARRIER:
                    sink.accept("B" + reader.barrierCheckpointId(sequence));
                    goOn = false;
                    break;
                default:
                    sink.accept(SlotKind.name(SlotDescriptor.kind(header)));
                    goOn = false;
                    break;
            }
            if (!goOn)
            {
                break;
            }
        }
        reader.advance(read);
        return read;
    }
}
